package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kubeforensics/suite/hack/release/dist"
	"github.com/kubeforensics/suite/hack/release/tools"
	"github.com/kubeforensics/suite/internal/cli"
)

// manifest is the part of a krew manifest the tests check.
type manifest struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Version          string `json:"version"`
		ShortDescription string `json:"shortDescription"`
		Description      string `json:"description"`
		Platforms        []struct {
			Selector struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"selector"`
			URI    string `json:"uri"`
			SHA256 string `json:"sha256"`
			Bin    string `json:"bin"`
			Files  []struct {
				From string `json:"from"`
				To   string `json:"to"`
			} `json:"files"`
		} `json:"platforms"`
	} `json:"spec"`
}

// plugins are the plugin names of every cmd/kubectl-* executable: each needs a template.
func plugins(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(repoRoot(t), "cmd", "kubectl-*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cmd/kubectl-* directories: %v", err)
	}
	var names []string
	for _, d := range dirs {
		names = append(names, strings.ReplaceAll(strings.TrimPrefix(filepath.Base(d), "kubectl-"), "_", "-"))
	}
	return names
}

// fluxBinary is the executable of krew plugin name in the release archives: flux-<Flux name>.
func fluxBinary(t *testing.T, name string) string {
	t.Helper()
	for _, p := range cli.Plugins {
		if p.Kubectl == name {
			return p.FluxBinary()
		}
	}
	t.Fatalf("%s is not in cli.Plugins", name)
	return ""
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := tools.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// fakeDist writes a goreleaser-like dist directory with one small archive per plugin and
// platform and returns its path.
func fakeDist(t *testing.T, version string, names []string) string {
	t.Helper()
	dir := t.TempDir()
	var arts []dist.Artifact
	for _, n := range names {
		for _, p := range Platforms {
			file := n + "_" + p.OS + "_" + p.Arch + archiveExt(p.OS)
			if err := os.WriteFile(filepath.Join(dir, file), []byte(file), 0o644); err != nil {
				t.Fatal(err)
			}
			arts = append(arts, dist.Artifact{Name: file, Path: "dist/" + file, GOOS: p.OS, GOARCH: p.Arch, Type: "Archive", Extra: map[string]any{"ID": n}})
		}
	}
	writeJSON(t, filepath.Join(dir, "artifacts.json"), arts)
	writeJSON(t, filepath.Join(dir, "metadata.json"), map[string]string{"tag": "v" + version, "version": version})
	return dir
}

// archiveExt is the archive format goreleaser writes for os (.goreleaser.yaml).
func archiveExt(os string) string {
	if os == "windows" {
		return ".zip"
	}
	return ".tar.gz"
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// renderAll renders the committed templates against a fake build and returns the output dir.
func renderAll(t *testing.T) string {
	t.Helper()
	dist := fakeDist(t, "0.3.1", plugins(t))
	out := filepath.Join(t.TempDir(), "krew")
	if _, err := run(dist, filepath.Join(repoRoot(t), "krew"), out, ""); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestManifestsFollowKrewRules(t *testing.T) {
	out := renderAll(t)
	for _, name := range plugins(t) {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(out, name+".yaml"))
			if err != nil {
				t.Fatalf("krew/%s.yaml: %v", name, err)
			}
			var m manifest
			if err := yaml.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			checkManifest(t, name, m)
		})
	}
}

func checkManifest(t *testing.T, name string, m manifest) {
	t.Helper()
	if m.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" || m.Kind != "Plugin" || m.Metadata.Name != name {
		t.Errorf("header %s %s %s; want the v1alpha2 Plugin %s", m.APIVersion, m.Kind, m.Metadata.Name, name)
	}
	if m.Spec.Version != "v0.3.1" {
		t.Errorf("version %q, want v0.3.1", m.Spec.Version)
	}
	// `kubectl krew search` cuts the short description at 50 characters (krew
	// cmd/krew/cmd/search.go, limitString).
	if s := m.Spec.ShortDescription; s == "" || strings.Contains(s, "\n") || len(s) > 50 {
		t.Errorf("shortDescription %q (%d characters): want one line of at most 50", s, len(s))
	}
	if d := m.Spec.Description; strings.Contains(d, " --") || strings.Contains(d, " -o ") || strings.Contains(d, " -A") {
		t.Errorf("description lists flags:\n%s", d)
	}
	seen := map[string]bool{}
	for _, p := range m.Spec.Platforms {
		sel := p.Selector.MatchLabels["os"] + "/" + p.Selector.MatchLabels["arch"]
		if seen[sel] || len(p.Selector.MatchLabels) != 2 {
			t.Errorf("selector %v repeats or is not exactly os+arch", p.Selector.MatchLabels)
		}
		seen[sel] = true
		// The executable carries its Flux catalog name (.goreleaser.yaml); krew links it as
		// kubectl-<name> whatever bin says.
		bin := fluxBinary(t, name)
		if p.Selector.MatchLabels["os"] == "windows" {
			bin += ".exe"
		}
		if p.Bin != bin || len(p.SHA256) != 64 || !strings.HasSuffix(p.URI, archiveExt(p.Selector.MatchLabels["os"])) {
			t.Errorf("%s: bin %q uri %q sha256 %q", sel, p.Bin, p.URI, p.SHA256)
		}
		var license, binary bool
		for _, f := range p.Files {
			license = license || f.From == "LICENSE"
			binary = binary || (f.From == p.Bin && f.To == ".")
		}
		if !license || !binary {
			t.Errorf("%s: LICENSE extracted %v, %s extracted %v", sel, license, p.Bin, binary)
		}
	}
	if len(seen) != len(Platforms) {
		t.Errorf("%d platforms, want %d", len(seen), len(Platforms))
	}
}

// TestValidateKrewManifest runs krew's own validator (without its install step, which needs
// real archives; the e2e test in test/e2e does that) on every rendered manifest.
func TestValidateKrewManifest(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: installs validate-krew-manifest with go install on first use")
	}
	validate, err := tools.Path(tools.ValidateKrewManifest)
	if err != nil {
		t.Fatal(err)
	}
	out := renderAll(t)
	for _, name := range plugins(t) {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(validate, "-skip-install", "-manifest", filepath.Join(out, name+".yaml"))
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("validate-krew-manifest: %v\n%s", err, b)
			}
		})
	}
}

func TestRenderRefuses(t *testing.T) {
	cases := []struct{ name, src, version string }{
		{"unprefixed version", "v: {{ .Version }}", "0.1.0"},
		{"not semver", "v: {{ .Version }}", "v1.2"},
		{"unknown field", "x: {{ .Nope }}", "v0.1.0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Render("x", tc.src, Data{Version: tc.version}); err == nil {
				t.Fatal("rendered; want an error")
			}
		})
	}
}

func TestMissingArchiveIsAnError(t *testing.T) {
	dist := fakeDist(t, "0.1.0", []string{"why-terminating"})
	b, err := ReadBuild(dist)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Data("flux-chain", "https://example.invalid"); err == nil || !strings.Contains(err.Error(), "flux-chain") {
		t.Fatalf("err = %v, want one naming flux-chain", err)
	}
}
