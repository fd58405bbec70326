package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// This file runs a GitHub Actions workflow the way a runner does, as far as the sample of
// docs/ci.md and the composite action.yml need: `run:` steps with bash under a runner's GITHUB_*
// environment, step env and `if:` evaluated from `${{ }}` expressions (paths, string literals,
// ==, !=, &&, ||, !, parentheses; anything else fails the test, so the files stay within what
// is checked here), outputs through GITHUB_OUTPUT and PATH additions through GITHUB_PATH. Of
// `uses:` steps, actions/checkout is taken as done (the test prepares the checkout) and
// upload-sarif is recorded with its inputs, since neither can run without GitHub; actions/cache
// restores the directory saved under its key (or the newest under a restore-keys prefix) from
// cacheStore, and saves it there after the action's last step, as its post step does.

// step is one step of a job or of a composite action.
type step struct {
	Name  string            `json:"name"`
	ID    string            `json:"id"`
	If    string            `json:"if"`
	Uses  string            `json:"uses"`
	Run   string            `json:"run"`
	Shell string            `json:"shell"`
	Env   map[string]string `json:"env"`
	With  map[string]any    `json:"with"`
}

type workflow struct {
	Permissions map[string]string `json:"permissions"`
	Jobs        map[string]struct {
		Steps []step `json:"steps"`
	} `json:"jobs"`
}

type action struct {
	Inputs map[string]struct {
		Default string `json:"default"`
	} `json:"inputs"`
	Runs struct {
		Using string `json:"using"`
		Steps []step `json:"steps"`
	} `json:"runs"`
}

// runner is one job's environment: the GITHUB_* variables, the github context, the action's
// directory, and what the job produced.
type runner struct {
	t   *testing.T
	env map[string]string
	// github is the github context (token, action_ref, event_name, repository, event).
	github map[string]any
	// actionPath is where `uses: kubeforensics/suite@...` is found: this repository.
	actionPath string
	// inputs override the action's defaults after the workflow's with: (release-url).
	inputs map[string]string
	path   []string
	// log is every step's output; summary the step summaries joined; uploads the
	// upload-sarif steps' sarif_file inputs.
	log, summary strings.Builder
	uploads      []string
	tmp          string
	// cacheStore stands in for GitHub's cache service: <key>/ holds a saved directory. Jobs
	// that share it see each other's saves. cacheHits are the keys restored, in order.
	cacheStore string
	cacheHits  []string
}

// runJob runs every step of the workflow's only job and returns the exit code of the first
// step that failed (0 when none did).
func (r *runner) runJob(wf workflow) int {
	if len(wf.Jobs) != 1 {
		r.t.Fatalf("the sample workflow has %d jobs, want 1", len(wf.Jobs))
	}
	for _, job := range wf.Jobs {
		for _, st := range job.Steps {
			switch {
			case strings.HasPrefix(st.Uses, "actions/checkout@"):
				if fmt.Sprint(st.With["fetch-depth"]) != "0" {
					r.t.Errorf("checkout without fetch-depth: 0: safe-retire needs the base commit")
				}
			case strings.HasPrefix(st.Uses, "kubeforensics/suite@"):
				if code := r.runAction(st); code != 0 {
					return code
				}
			case st.Run != "":
				if code := r.runStep(st, map[string]any{}, map[string]any{}); code != 0 {
					return code
				}
			default:
				r.t.Fatalf("the sample workflow uses %q, which this test cannot run", st.Uses)
			}
		}
	}
	return 0
}

// runAction runs action.yml's steps with the inputs of st.
func (r *runner) runAction(st step) int {
	var a action
	readYAML(r.t, filepath.Join(r.actionPath, "action.yml"), &a)
	if a.Runs.Using != "composite" {
		r.t.Fatalf("action.yml runs %q, want composite", a.Runs.Using)
	}
	inputs := map[string]any{}
	for name, in := range a.Inputs {
		inputs[name] = r.expand(in.Default, map[string]any{"github": r.github})
	}
	for name, v := range st.With {
		if _, ok := a.Inputs[name]; !ok {
			r.t.Fatalf("the workflow gives input %q, which action.yml does not declare", name)
		}
		inputs[name] = r.expand(fmt.Sprint(v), map[string]any{"github": r.github})
	}
	for name, v := range r.inputs {
		inputs[name] = v
	}
	steps := map[string]any{}
	var posts []func()
	defer func() {
		for _, p := range posts {
			p()
		}
	}()
	for _, s := range a.Runs.Steps {
		ctx := map[string]any{"github": r.github, "inputs": inputs, "steps": steps}
		if s.If != "" && !truthy(r.eval(s.If, ctx)) {
			fmt.Fprintf(&r.log, "## skipped: %s\n", s.Name)
			continue
		}
		switch {
		case strings.HasPrefix(s.Uses, "github/codeql-action/upload-sarif@"):
			r.uploads = append(r.uploads, r.expand(fmt.Sprint(s.With["sarif_file"]), ctx))
		case strings.HasPrefix(s.Uses, "actions/cache@"):
			posts = append(posts, r.cacheStep(s, ctx))
		case s.Uses != "":
			r.t.Fatalf("action.yml uses %q, which this test cannot run", s.Uses)
		default:
			if s.Shell != "bash" {
				r.t.Fatalf("step %q: shell %q, want bash", s.Name, s.Shell)
			}
			if code := r.runStep(s, ctx, steps); code != 0 {
				return code
			}
		}
	}
	return 0
}

// cacheStep restores an actions/cache step's path and returns its post step, which saves the
// path under the key when the key was not restored exactly (GitHub's caches are immutable).
func (r *runner) cacheStep(s step, ctx map[string]any) func() {
	path := r.expand(fmt.Sprint(s.With["path"]), ctx)
	key := r.expand(fmt.Sprint(s.With["key"]), ctx)
	prefix := r.expand(fmt.Sprint(s.With["restore-keys"]), ctx)
	if path == "" || key == "" || r.cacheStore == "" {
		r.t.Fatalf("actions/cache: path %q, key %q, store %q", path, key, r.cacheStore)
	}
	hit := key
	if _, err := os.Stat(filepath.Join(r.cacheStore, key)); err != nil {
		hit = ""
		entries, _ := os.ReadDir(r.cacheStore)
		for _, e := range entries { // the newest matching prefix; names sort by creation here
			if prefix != "" && strings.HasPrefix(e.Name(), prefix) {
				hit = e.Name()
			}
		}
	}
	if hit != "" {
		copyDir(r.t, filepath.Join(r.cacheStore, hit), path)
		r.cacheHits = append(r.cacheHits, hit)
		fmt.Fprintf(&r.log, "## cache restored from key: %s\n", hit)
	}
	return func() {
		if hit == key {
			return
		}
		if _, err := os.Stat(path); err == nil {
			copyDir(r.t, path, filepath.Join(r.cacheStore, key))
			fmt.Fprintf(&r.log, "## cache saved with key: %s\n", key)
		}
	}
}

// copyDir copies the tree src into dst (created), keeping modes, as tar does.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", src+"/.", dst+"/").CombinedOutput(); err != nil {
		t.Fatalf("cp -a %s %s: %v\n%s", src, dst, err, out)
	}
}

// runStep runs one run: step with bash as the runner does (bash --noprofile --norc -eo
// pipefail), records its outputs under steps.<id> and its PATH additions.
func (r *runner) runStep(s step, ctx map[string]any, steps map[string]any) int {
	dir := r.t.TempDir()
	script := filepath.Join(dir, "step.sh")
	files := map[string]string{"GITHUB_OUTPUT": "output", "GITHUB_PATH": "path", "GITHUB_STEP_SUMMARY": "summary", "GITHUB_ENV": "env"}
	env := os.Environ()
	env = slicesFilter(env)
	for k, v := range r.env {
		env = append(env, k+"="+v)
	}
	for k, f := range files {
		files[k] = filepath.Join(dir, f)
		env = append(env, k+"="+files[k])
	}
	for k, v := range s.Env {
		env = append(env, k+"="+r.expand(v, ctx))
	}
	env = append(env, "PATH="+strings.Join(append(append([]string{}, r.path...), os.Getenv("PATH")), string(os.PathListSeparator)))
	if err := os.WriteFile(script, []byte(r.expand(s.Run, ctx)), 0o600); err != nil {
		r.t.Fatal(err)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir, cmd.Env = r.env["GITHUB_WORKSPACE"], env
	cmd.Stdout, cmd.Stderr = &r.log, &r.log
	fmt.Fprintf(&r.log, "## step: %s\n", s.Name)
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		r.t.Fatalf("step %q: %v", s.Name, err)
	}
	outputs := map[string]any{}
	for _, line := range readLines(r.t, files["GITHUB_OUTPUT"]) {
		if k, v, ok := strings.Cut(line, "="); ok {
			outputs[k] = v
		}
	}
	if s.ID != "" {
		steps[s.ID] = map[string]any{"outputs": outputs}
	}
	r.path = append(readLines(r.t, files["GITHUB_PATH"]), r.path...)
	if md, err := os.ReadFile(files["GITHUB_STEP_SUMMARY"]); err == nil {
		r.summary.Write(md)
	}
	return code
}

// slicesFilter drops the test process's own GitHub Actions variables (when CI runs on GitHub)
// so the job sees only those the test sets.
func slicesFilter(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GITHUB_") && !strings.HasPrefix(kv, "RUNNER_") && !strings.HasPrefix(kv, "KF_") && !strings.HasPrefix(kv, "PATH=") {
			out = append(out, kv)
		}
	}
	return out
}

func readLines(t *testing.T, path string) []string {
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(raw), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

func readYAML(t *testing.T, path string, into any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// sampleWorkflow is the first yaml block under "## The workflow" in docs/ci.md.
func sampleWorkflow(t *testing.T, root string) workflow {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(raw), "\n## The workflow\n")
	m := regexp.MustCompile("(?s)\n```yaml\n(.*?)\n```\n").FindStringSubmatch(after)
	if !ok || m == nil {
		t.Fatal("docs/ci.md has no yaml block under \"## The workflow\"")
	}
	var wf workflow
	if err := yaml.Unmarshal([]byte(m[1]), &wf); err != nil {
		t.Fatalf("docs/ci.md's workflow: %v", err)
	}
	return wf
}
