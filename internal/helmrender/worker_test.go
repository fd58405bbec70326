package helmrender

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	chart "helm.sh/helm/v4/pkg/chart/v2"
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

// logged writes at path a script that records each of its starts (a line in path+".starts")
// and runs target with its arguments: the worker's starts are counted, not guessed.
func logged(t *testing.T, path, target string) string {
	t.Helper()
	return write(t, path, "#!/bin/sh\necho >> '"+path+".starts'\nexec '"+target+"' \"$@\"\n")
}

// starts is how many times the logged script at path was started.
func starts(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path + ".starts")
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// workerTestMemory is the memory bound of the renders TestWorkerLookup makes: the default,
// which a render of this test binary fits; under -race the binary that serves as the worker
// is race-instrumented, and the race detector's shadow of the heap (several times the heap,
// counted by RLIMIT_DATA and RLIMIT_AS like any mapping) passes it, so the bound is raised
// to 2 GiB. What the test checks is which worker renders, not the bound (TestMemoryBound).
func workerTestMemory() int64 {
	if raceDetector {
		return 2 << 30
	}
	return DefaultMaxMemory
}

// A worker is used only when it is found beside the plugin's real file (or named by
// WorkerExeEnv) and its answers report the plugin's build; otherwise the plugin renders
// itself, and a worker found but not used is said in one line. The worker is a real build of
// cmd/kubeforensics-helmrender; the plugin is a script that runs this test binary (which
// serves as a worker in TestMain). Both log their starts: a worker that is used is started
// once a render (no extra start to ask its build), one that is not used once in the run, and
// every render, through the worker or the plugin, gives the plugin's own manifest.
func TestWorkerLookup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("symbolic links and shell scripts")
	}
	root := t.TempDir()
	testBinary, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	built := buildWorker(t, filepath.Join(root, "built"), "v1.2.3", "abc123")
	store := filepath.Join(root, "store", "safe-retire", "v1.2.3")
	worker := logged(t, filepath.Join(store, WorkerExe), built)
	plugin := logged(t, filepath.Join(store, "flux-safe-retire"), testBinary)
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

	alone := logged(t, filepath.Join(root, "alone", "flux-safe-retire"), testBinary)
	named := logged(t, filepath.Join(root, "elsewhere", WorkerExe), buildWorkerCopy(t, built, filepath.Join(root, "copy")))
	junk := filepath.Join(root, "junk", WorkerExe)
	write(t, junk, "#!/bin/sh\necho >> '"+junk+".starts'\necho hello\n")
	junkPlugin := logged(t, filepath.Join(root, "junk", "flux-safe-retire"), testBinary)

	hr, c := workerRelease(t)
	render := func(t *testing.T, w *Worker) string {
		t.Helper()
		r, err := Do(context.Background(), hr, c, "", nil, Options{Worker: w, MaxMemory: workerTestMemory()})
		if err != nil || len(r.Manifest) == 0 {
			t.Fatalf("render: %v", err)
		}
		b, err := json.Marshal(r.Manifest)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// The plugin's own render: no worker beside it.
	want := render(t, &Worker{src: workerSource{exe: alone, goos: runtime.GOOS, own: own}})
	if starts(t, alone) != 1 {
		t.Fatalf("the plugin alone was started %d times for one render", starts(t, alone))
	}

	cases := []struct {
		name, named, exe, own string
		found                 string // the worker found; "": none
		used                  bool
		note                  []string
	}{
		{name: "beside", exe: plugin, own: own, found: worker, used: true},
		{name: "symlinked plugin: beside its real file", exe: link, own: own, found: worker, used: true},
		{name: "absent: the plugin itself", exe: alone, own: own},
		{name: "another release's: the plugin itself, said", exe: plugin, own: "v1.2.4@def456", found: worker,
			note: []string{"render worker", worker, `build "v1.2.3@abc123"`, `"v1.2.4@def456"`, "rendering in the plugin itself"}},
		{name: "a dev build's plugin: the plugin itself, said", exe: plugin, own: "dev@", found: worker, note: []string{`"dev@"`}},
		{name: "not a worker: the plugin itself, said", exe: junkPlugin, own: own, found: junk, note: []string{"did not answer as a render worker", `"hello"`}},
		{name: "named by the environment", named: named, exe: alone, own: own, found: named, used: true},
		{name: "named, of another build: the plugin itself, said", named: named, exe: alone, own: "v9@x", found: named, note: []string{named, `"v9@x"`}},
	}
	const renders = 3
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pluginFile, err := filepath.EvalSymlinks(tc.exe)
			if err != nil {
				t.Fatal(err)
			}
			workerBefore, pluginBefore := 0, starts(t, pluginFile)
			if tc.found != "" {
				workerBefore = starts(t, tc.found)
			}
			var note strings.Builder
			w := &Worker{Note: &note, src: workerSource{named: tc.named, exe: tc.exe, goos: runtime.GOOS, own: tc.own}}
			for range renders {
				if got := render(t, w); got != want {
					t.Fatalf("the manifest is not the plugin's own:\n%s\nwant:\n%s", got, want)
				}
			}
			workerStarts, pluginStarts := 0, starts(t, pluginFile)-pluginBefore
			if tc.found != "" {
				workerStarts = starts(t, tc.found) - workerBefore
			}
			wantWorker, wantPlugin := 0, renders // none found: the plugin renders all
			switch {
			case tc.used:
				wantWorker, wantPlugin = renders, 0
			case tc.found != "":
				wantWorker = 1 // its first answer is not taken; the plugin renders that release again
			}
			if workerStarts != wantWorker || pluginStarts != wantPlugin {
				t.Errorf("%d renders started the worker %d times and the plugin %d, want %d and %d", renders, workerStarts, pluginStarts, wantWorker, wantPlugin)
			}
			exe, self, err := w.get()
			if wantExe := map[bool]string{true: tc.found, false: pluginFile}[tc.used]; err != nil || exe != wantExe || self == tc.used {
				t.Errorf("the run's executable %q self %v (%v), want %q", exe, self, err, wantExe)
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
				t.Errorf("the note is more than one line for %d renders: %q", renders, note.String())
			}
		})
	}
	if _, err := os.Stat(started); err == nil {
		t.Error("the worker beside krew's link, not beside the plugin's file, was started")
	}
	if _, _, err := (&Worker{src: workerSource{named: filepath.Join(root, "missing"), exe: alone, own: own}}).get(); err == nil {
		t.Error("a missing worker named by the environment was accepted")
	}

	// Renders at once through a worker of another build: each gives the plugin's manifest,
	// and the note is said once.
	t.Run("concurrent, of another build", func(t *testing.T) {
		var note syncBuilder
		w := &Worker{Note: &note, src: workerSource{exe: plugin, goos: runtime.GOOS, own: "v1.2.4@def456"}}
		got := make([]string, 4)
		var wg sync.WaitGroup
		for i := range got {
			wg.Go(func() { got[i] = render(t, w) })
		}
		wg.Wait()
		for i, m := range got {
			if m != want {
				t.Errorf("render %d is not the plugin's own manifest", i)
			}
		}
		if n := strings.Count(note.String(), "is not used"); n != 1 {
			t.Errorf("the note is said %d times for %d renders: %q", n, len(got), note.String())
		}
	})
}

// syncBuilder is a strings.Builder safe for concurrent writes.
type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// workerRelease is a HelmRelease of app-template 4.4.0 and its chart.
func workerRelease(t *testing.T) (*unstructured.Unstructured, *chart.Chart) {
	t.Helper()
	hr := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: web, namespace: apps}\nspec:\n  chart: {spec: {chart: app-template, version: 4.4.0}}\n  values:\n    controllers: {main: {containers: {app: {image: {repository: nginx, tag: '1'}}}}}\n"), &hr.Object); err != nil {
		t.Fatal(err)
	}
	c, err := loader.Load(charttest.Package(t, t.TempDir(), charttest.AppTemplate("4.4.0")))
	if err != nil {
		t.Fatal(err)
	}
	return hr, c
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

// The decision on a found worker's outcome, per run: its first answer of this build confirms
// it; before that, an answer of another build or output that is not a worker's is rendered
// again in the plugin, which the run keeps, said once, and a bound is rendered again in the
// plugin without refusing the worker; after it, an answer of another build is an error and
// any other outcome stands.
func TestWorkerAnswered(t *testing.T) {
	why := errors.New("stopped")
	this, other, none := outcome{build: "v1@a", answer: true}, outcome{build: "v2@b", answer: true}, outcome{why: why}
	bound := outcome{bound: true, why: why}
	cases := []struct {
		name      string
		outcomes  []outcome
		wantAgain []bool
		wantErr   bool
		wantSelf  bool
	}{
		{"this build, twice", []outcome{this, this}, []bool{false, false}, false, false},
		{"another build, then this one", []outcome{other, this}, []bool{true, false}, false, true},
		{"no build, an earlier worker", []outcome{{answer: true}}, []bool{true}, false, true},
		{"not a worker's answer first", []outcome{none, this}, []bool{true, false}, false, true},
		{"a bound first: again, the worker kept", []outcome{bound, bound, this, bound}, []bool{true, true, false, false}, false, false},
		{"a bound, then another build", []outcome{bound, other}, []bool{true, true}, false, true},
		{"confirmed, then not a worker's answer: it stands", []outcome{this, none}, []bool{false, false}, false, false},
		{"confirmed, then another build: an error", []outcome{this, other}, []bool{false, false}, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var note strings.Builder
			w := &Worker{Note: &note, src: workerSource{exe: "/plugin", own: "v1@a"}, exe: "/worker"}
			var gotErr error
			for i, o := range tc.outcomes {
				again, err := w.answered("/worker", o)
				if again != tc.wantAgain[i] {
					t.Errorf("outcome %d: again %v, want %v", i, again, tc.wantAgain[i])
				}
				gotErr = errors.Join(gotErr, err)
			}
			if (gotErr != nil) != tc.wantErr || w.self != tc.wantSelf || (w.exe == "/plugin") != tc.wantSelf {
				t.Errorf("error %v self %v exe %q, want error %v self %v", gotErr, w.self, w.exe, tc.wantErr, tc.wantSelf)
			}
			if n := strings.Count(note.String(), "\n"); n != map[bool]int{true: 1, false: 0}[tc.wantSelf] {
				t.Errorf("%d note lines: %q", n, note.String())
			}
		})
	}
}

// buildDevWorker builds cmd/kubeforensics-helmrender as a dev build (no version, no commit:
// -buildvcs=false, as GOFLAGS may set it) from a copy of the module's render code under dir,
// with edit appended to the copy of internal/chartrender/render.go.
func buildDevWorker(t *testing.T, dir, edit string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the render worker")
	}
	src := filepath.Join(dir, "src")
	for _, p := range []string{"go.mod", "go.sum", "internal/chartrender", "internal/version", "cmd/kubeforensics-helmrender"} {
		if err := os.CopyFS(filepath.Join(src, p), os.DirFS(filepath.Join("../..", p))); err != nil && !isFile(p) {
			t.Fatal(err)
		}
		if isFile(p) {
			b, err := os.ReadFile(filepath.Join("../..", p))
			if err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(src, p), string(b))
		}
	}
	render := filepath.Join(src, "internal/chartrender/render.go")
	b, err := os.ReadFile(render)
	if err != nil {
		t.Fatal(err)
	}
	write(t, render, string(b)+edit)
	exe := filepath.Join(dir, "bin", WorkerExe)
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-o", exe, "./cmd/kubeforensics-helmrender")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the worker: %v\n%s", err, out)
	}
	return exe
}

func isFile(p string) bool { return strings.HasPrefix(p, "go.") }

// Two dev builds (no version, no commit) of different render code do not match: the worker
// beside a dev plugin is used only when it was built from the same code. Before, both were
// "dev@", and a worker left by another dev build rendered for the plugin.
func TestDevWorkerOfOtherCode(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("shell scripts")
	}
	testBinary, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	hr, c := workerRelease(t)
	for _, tc := range []struct {
		name, edit string
		used       bool
	}{
		{name: "the same code: used", used: true},
		{name: "other code: the plugin itself, said", edit: "\n// another commit's render\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			built := buildDevWorker(t, root, tc.edit)
			store := filepath.Join(root, "store")
			worker := logged(t, filepath.Join(store, WorkerExe), built)
			plugin := logged(t, filepath.Join(store, "flux-safe-retire"), testBinary)
			var note strings.Builder
			w := &Worker{Note: &note, src: workerSource{exe: plugin, goos: runtime.GOOS, own: chartrender.Build()}}
			for range 2 {
				if r, err := Do(context.Background(), hr, c, "", nil, Options{Worker: w, MaxMemory: workerTestMemory()}); err != nil || len(r.Manifest) == 0 {
					t.Fatalf("render: %v", err)
				}
			}
			if used := starts(t, worker) == 2 && starts(t, plugin) == 0; used != tc.used {
				t.Errorf("the worker was used: %v (%d starts, the plugin %d), want %v; note %q", used, starts(t, worker), starts(t, plugin), tc.used, note.String())
			}
			if said := strings.Contains(note.String(), "is not used"); said == tc.used {
				t.Errorf("note %q", note.String())
			}
		})
	}
}
