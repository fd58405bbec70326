package saferetire_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/charttest"
)

// The Action's chart steps as action.yml runs them (action/charts.sh key, then pull, then
// action/run.sh with the pull's cache), with the built plugin on PATH, on a pull request from
// the repository and on one from a fork that points the HelmRepository elsewhere: the image
// bump is SAFE; the fork's new source is refused (no request reaches it) and its gate UNKNOWN.
// test/e2e runs the same steps from docs/ci.md's workflow with the released archives.
func TestActionChartSteps(t *testing.T) {
	if testing.Short() || runtime.GOOS == "windows" {
		t.Skip("builds the plugin and runs the action's bash scripts")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "kubectl-safe_retire"), "../../cmd/kubectl-safe_retire").CombinedOutput(); err != nil {
		t.Fatalf("building the plugin: %v\n%s", err, out)
	}
	trusted := charttest.NewRepo(t, charttest.WebApp("6.5.0"), charttest.WebApp("6.5.1"))
	elsewhere := charttest.NewRepo(t, charttest.WebApp("6.5.0"), charttest.WebApp("6.5.1"))
	for _, tc := range []struct {
		name, fork, url string
		code            string
		wants           []string
	}{
		{"same repository", "false", trusted.URL, "0", []string{"## safe-retire: SAFE", "6.5.x resolved to 6.5.1 against the cached index of " + trusted.URL}},
		{"fork, another source", "true", elsewhere.URL, "2", []string{"## safe-retire: UNKNOWN", "refused     webapp 6.5.x from HelmRepository/flux-system/example <" + elsewhere.URL + ">"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := pullRepo(t, trusted.URL, "", charttest.WebAppRelease("6.5.x", "1.0.0", false))
			base := r.Git("rev-parse", "HEAD")
			r.Commit("renovate: webapp image 1.1.0", map[string]string{
				"k8s/apps/webapp.yaml": charttest.WebAppRelease("6.5.x", "1.1.0", false),
				"k8s/apps/repos.yaml":  helmRepository("example", tc.url, ""),
			})
			before := elsewhere.Requests()
			tmp := t.TempDir()
			env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "KF_BASE="+base, "KF_FORK="+tc.fork,
				"KF_PLUGINS=safe-retire", "RUNNER_TEMP="+tmp, "RUNNER_OS=Linux", "GITHUB_ACTIONS=true", "XDG_CACHE_HOME="+filepath.Join(tmp, "cache"))
			// step runs one of the action's scripts as its step would, returning its output, its
			// step summary and the outputs it wrote.
			step := func(extraEnv []string, script string, args ...string) map[string]string {
				outputs, summary := filepath.Join(t.TempDir(), "output"), filepath.Join(t.TempDir(), "summary")
				cmd := exec.Command("bash", append([]string{filepath.Join(root, "action", script)}, args...)...)
				cmd.Dir = r.Dir
				cmd.Env = append(append(env, extraEnv...), "GITHUB_OUTPUT="+outputs, "GITHUB_STEP_SUMMARY="+summary)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s %v: %v\n%s", script, args, err, out)
				}
				raw, _ := os.ReadFile(outputs)
				md, _ := os.ReadFile(summary)
				kv := map[string]string{"log": string(out), "summary": string(md)}
				for _, l := range strings.Split(string(raw), "\n") {
					if k, v, ok := strings.Cut(l, "="); ok {
						kv[k] = v
					}
				}
				return kv
			}
			key := step(nil, "charts.sh", "key")
			if !strings.HasPrefix(key["key"], "kubeforensics-charts-Linux-") || key["dir"] != filepath.Join(tmp, "kubeforensics", "charts") {
				t.Fatalf("key step outputs %v", key)
			}
			pull := step(nil, "charts.sh", "pull")
			gate := step([]string{"KF_CHART_CACHE=" + pull["dir"]}, "run.sh")
			all := pull["log"] + gate["log"] + gate["summary"]
			if gate["exit-code"] != tc.code {
				t.Errorf("gates: exit-code %q, want %s\n%s", gate["exit-code"], tc.code, all)
			}
			contains(t, all, tc.wants...)
			if tc.fork == "true" && elsewhere.Requests() != before {
				t.Errorf("the fork's source got %d requests", elsewhere.Requests()-before)
			}
		})
	}
}
