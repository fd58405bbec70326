package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kubeforensics/suite/internal/helmrender"
)

// workerBuild is the id of the render worker's build in .goreleaser.yaml.
const workerBuild = "helmrender"

// rendersCharts tells whether the main package in dir (relative to the repository) renders
// Helm charts: its main calls ServeWorker, as every executable that renders must
// (internal/helmrender), so it also starts the render worker when it finds it beside itself.
func rendersCharts(t *testing.T, dir string) bool {
	t.Helper()
	files, err := parser.ParseDir(token.NewFileSet(), filepath.Join(repoRoot(t), dir), func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: %v (%d packages)", dir, err, len(files))
	}
	found := false
	for _, pkg := range files {
		ast.Inspect(pkg, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "ServeWorker" {
				found = true
			}
			return !found
		})
	}
	return found
}

// withWorker is the builds ids, and the render worker's when one of them renders charts.
func withWorker(t *testing.T, cfg goreleaserConfig, ids ...string) []string {
	t.Helper()
	mains := map[string]string{}
	for _, b := range cfg.Builds {
		mains[b.ID] = b.Main
	}
	for _, id := range ids {
		main, ok := mains[id]
		if !ok {
			t.Fatalf("no build %s", id)
		}
		if rendersCharts(t, main) {
			return append(ids, workerBuild)
		}
	}
	return ids
}

// TestRenderingArchivesHoldTheWorker: every release archive holding an executable that
// renders charts holds the render worker too, built from cmd/kubeforensics-helmrender under
// the name the executables look for (helmrender.WorkerExe), and no other archive holds it;
// and each krew manifest extracts it exactly when its plugin's archive holds it. Which
// executables render is read from their source, not listed here.
func TestRenderingArchivesHoldTheWorker(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg goreleaserConfig
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	builds := map[string]string{}
	for _, b := range cfg.Builds {
		builds[b.ID] = b.Main
		if b.ID == workerBuild && (b.Main != "./cmd/"+helmrender.WorkerExe || b.Binary != helmrender.WorkerExe) {
			t.Errorf("build %s: main %s binary %s, want ./cmd/%s and %s", b.ID, b.Main, b.Binary, helmrender.WorkerExe, helmrender.WorkerExe)
		}
	}
	if _, ok := builds[workerBuild]; !ok {
		t.Fatalf("no build %s", workerBuild)
	}
	holds := map[string]bool{}
	rendering := 0
	for _, a := range cfg.Archives {
		renders, worker := false, false
		for _, id := range a.IDs {
			worker = worker || id == workerBuild
			renders = renders || (id != workerBuild && rendersCharts(t, builds[id]))
		}
		if renders {
			rendering++
		}
		if renders != worker {
			t.Errorf("archive %s: renders charts %v, holds the render worker %v", a.ID, renders, worker)
		}
		holds[a.ID] = worker
	}
	if rendering == 0 {
		t.Fatal("no archive holds an executable that renders: the source check found no ServeWorker")
	}

	out := renderAll(t)
	for _, name := range plugins(t) {
		raw, err := os.ReadFile(filepath.Join(out, name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var m manifest
		if err := yaml.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		for _, p := range m.Spec.Platforms {
			want := helmrender.WorkerExe
			if p.Selector.MatchLabels["os"] == "windows" {
				want += ".exe"
			}
			extracted := false
			for _, f := range p.Files {
				extracted = extracted || (f.From == want && f.To == ".")
			}
			if extracted != holds[name] {
				t.Errorf("krew %s %v: extracts %s %v, its archive holds it %v", name, p.Selector.MatchLabels, want, extracted, holds[name])
			}
		}
	}
}

// TestWorkerBuiltAsThePlugins: an executable uses the render worker beside it only when the
// worker's answers report the executable's own build (version and commit, internal/version),
// so the release builds both with the same flags and the same link-time stamps. Snapshot
// builds included: goreleaser stamps every build of one run with the same {{ .Version }}
// (a snapshot's "…-SNAPSHOT-<commit>") and {{ .FullCommit }}, so what must hold is that the
// worker's build entry carries exactly the flags, ldflags and environment of every build that
// renders charts, as read from .goreleaser.yaml (its YAML merge keys resolved).
func TestWorkerBuiltAsThePlugins(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Builds []struct {
			ID      string   `json:"id"`
			Main    string   `json:"main"`
			Env     []string `json:"env"`
			Flags   []string `json:"flags"`
			Ldflags []string `json:"ldflags"`
		} `json:"builds"`
	}
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	stamp := func(env, flags, ldflags []string) string {
		return strings.Join(env, " ") + " | " + strings.Join(flags, " ") + " | " + strings.Join(ldflags, " ")
	}
	want := ""
	for _, b := range cfg.Builds {
		if b.ID == workerBuild {
			want = stamp(b.Env, b.Flags, b.Ldflags)
		}
	}
	if !strings.Contains(want, "internal/version.version=") || !strings.Contains(want, "internal/version.commit=") {
		t.Fatalf("the worker's build %q does not stamp the version and the commit its answers report", want)
	}
	rendering := 0
	for _, b := range cfg.Builds {
		if b.ID == workerBuild || !rendersCharts(t, b.Main) {
			continue
		}
		rendering++
		if got := stamp(b.Env, b.Flags, b.Ldflags); got != want {
			t.Errorf("build %s is stamped %q, the render worker %q: the worker beside it would not be used", b.ID, got, want)
		}
	}
	if rendering == 0 {
		t.Fatal("no build renders charts: the source check found no ServeWorker")
	}
}
