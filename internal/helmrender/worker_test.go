package helmrender

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/kubeforensics/suite/internal/chartrender"
	"github.com/kubeforensics/suite/internal/testsupport/charttest"
	"github.com/kubeforensics/suite/internal/version"
)

// buildWorker builds cmd/kubeforensics-helmrender into dir as a release would, stamped with
// version v and commit c (and no VCS information, so its build is exactly v@c).
func buildWorker(t *testing.T, dir, v, c string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the render worker")
	}
	exe := filepath.Join(dir, WorkerExe)
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	pkg := "github.com/kubeforensics/suite/internal/version."
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false",
		"-ldflags", "-X "+pkg+"version="+v+" -X "+pkg+"commit="+c, "-o", exe, "../../cmd/kubeforensics-helmrender")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the worker: %v\n%s", err, out)
	}
	return exe
}

func write(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// A worker is used only when it is found beside the plugin's real file (or named by
// WorkerExeEnv) and reports the plugin's build; otherwise the plugin renders itself, and a
// worker found but not used is said in one line. The worker is a real build of
// cmd/kubeforensics-helmrender; the plugin is a file of its name (never started here: when
// it is chosen, the test sees self).
func TestWorkerLookup(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links and shell scripts")
	}
	root := t.TempDir()
	store := filepath.Join(root, "store", "safe-retire", "v1.2.3")
	worker := buildWorker(t, store, "v1.2.3", "abc123")
	plugin := write(t, filepath.Join(store, "flux-safe-retire"), "not run\n")
	own := chartrender.BuildOf(version.Info{Version: "v1.2.3", Commit: "abc123"})

	// krew's bin directory: a link to the plugin, and a worker of the same name beside the
	// link that would record being started. Only the store's is the plugin's.
	bin := filepath.Join(root, "bin")
	link := filepath.Join(bin, "kubectl-safe_retire")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(plugin, link); err != nil {
		t.Fatal(err)
	}
	started := filepath.Join(root, "decoy-started")
	write(t, filepath.Join(bin, WorkerExe), "#!/bin/sh\ntouch "+started+"\n")

	alone := write(t, filepath.Join(root, "alone", "flux-safe-retire"), "not run\n")
	elsewhere := filepath.Join(root, "elsewhere")
	named := buildWorkerCopy(t, worker, elsewhere)
	write(t, filepath.Join(root, "junk", WorkerExe), "#!/bin/sh\necho hello\n")
	junkPlugin := write(t, filepath.Join(root, "junk", "flux-safe-retire"), "not run\n")

	cases := []struct {
		name, named, exe, own string
		want                  string
		self                  bool
		note                  []string
	}{
		{name: "beside", exe: plugin, own: own, want: worker},
		{name: "symlinked plugin: beside its real file", exe: link, own: own, want: worker},
		{name: "absent: the plugin itself", exe: alone, own: own, want: alone, self: true},
		{name: "another release's: the plugin itself, said", exe: plugin, own: "v1.2.4@def456", want: plugin, self: true,
			note: []string{"render worker", worker, `build "v1.2.3@abc123"`, `"v1.2.4@def456"`, "rendering in the plugin itself"}},
		{name: "a dev build's plugin: the plugin itself, said", exe: plugin, own: "dev@", want: plugin, self: true, note: []string{`"dev@"`}},
		{name: "not a worker: the plugin itself, said", exe: junkPlugin, own: own, want: junkPlugin, self: true, note: []string{"did not answer as a render worker", `"hello"`}},
		{name: "named by the environment", named: named, exe: alone, own: own, want: named},
		{name: "named, of another build: the plugin itself, said", named: named, exe: alone, own: "v9@x", want: alone, self: true, note: []string{named, `"v9@x"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var note strings.Builder
			w := &Worker{Note: &note, src: workerSource{named: tc.named, exe: tc.exe, goos: runtime.GOOS, own: tc.own}}
			got, self, err := w.get(t.Context())
			if err != nil || got != tc.want || self != tc.self {
				t.Fatalf("worker %q self %v (%v), want %q self %v", got, self, err, tc.want, tc.self)
			}
			if len(tc.note) == 0 && note.Len() > 0 {
				t.Errorf("a note when the worker is used or none is found: %s", note.String())
			}
			for _, s := range tc.note {
				if !strings.Contains(note.String(), s) {
					t.Errorf("the note %q does not say %q", note.String(), s)
				}
			}
			if strings.Count(note.String(), "\n") > 1 {
				t.Errorf("the note is more than one line: %q", note.String())
			}
			if again, _, _ := w.get(t.Context()); again != got || strings.Count(note.String(), "\n") > 1 {
				t.Errorf("chosen again: %q, note %q", again, note.String())
			}
		})
	}
	if _, err := os.Stat(started); err == nil {
		t.Error("the worker beside krew's link, not beside the plugin's file, was started")
	}
	if _, _, err := (&Worker{src: workerSource{named: filepath.Join(root, "missing"), exe: alone, own: own}}).get(t.Context()); err == nil {
		t.Error("a missing worker named by the environment was accepted")
	}

	// And a render through it: the plugin here is not executable, so only the worker can
	// have rendered.
	hr := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: web, namespace: apps}\nspec:\n  chart: {spec: {chart: app-template, version: 4.4.0}}\n  values:\n    controllers: {main: {containers: {app: {image: {repository: nginx, tag: '1'}}}}}\n"), &hr.Object); err != nil {
		t.Fatal(err)
	}
	c, err := loader.Load(charttest.Package(t, t.TempDir(), charttest.AppTemplate("4.4.0")))
	if err != nil {
		t.Fatal(err)
	}
	w := &Worker{src: workerSource{exe: link, goos: runtime.GOOS, own: own}}
	r, err := Do(context.Background(), hr, c, "", nil, Options{Worker: w})
	if err != nil || len(r.Manifest) == 0 {
		t.Fatalf("render through the worker: %v", err)
	}
	if w.exe != worker || w.self {
		t.Fatalf("rendered by %q (self %v), want the worker %q", w.exe, w.self, worker)
	}
}

// buildWorkerCopy copies the built worker exe into dir (a worker kept elsewhere).
func buildWorkerCopy(t *testing.T, exe, dir string) string {
	t.Helper()
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	return write(t, filepath.Join(dir, filepath.Base(exe)), string(b))
}
