package e2e

import (
	"strings"
	"testing"

	"github.com/kubeforensics/suite/hack/release/tools"
	"github.com/kubeforensics/suite/internal/testsupport/charttest"
	"github.com/kubeforensics/suite/internal/testsupport/ghapi"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// The sample workflow of docs/ci.md on the everyday pull requests of a repository whose
// HelmRelease installs a third-party chart from a chart repository (served on 127.0.0.1): the
// action lists the declared charts, restores the chart cache by their key, pulls what it lacks
// and runs the offline gate with it. An image bump and a chart version bump are SAFE, a dropped
// claim UNSAFE; with charts: false the gate cannot have the chart, and none of them
// gets that verdict. A second job on the same pull request restores the cache the first one saved.
func TestActionWorkflowCharts(t *testing.T) {
	root, err := tools.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	wf := sampleWorkflow(t, root)
	api, err := ghapi.Start(ghapi.Options{Repository: "acme/platform", AssetsDir: releaseAssets(t),
		Tokens: map[string]bool{actionToken: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()
	charts := charttest.NewRepo(t, charttest.WebApp("6.5.0"), charttest.WebApp("6.5.1"), charttest.WebApp("6.6.0"), charttest.WebApp("7.0.0"))
	repoFile := "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: example\n  namespace: flux-system\nspec:\n  interval: 1h\n  url: " + charts.URL + "\n"

	for _, tc := range []struct {
		name       string
		base, head string
		code       int
		verdict    string
	}{
		{"image bump", charttest.WebAppRelease("6.5.x", "1.0.0", false), charttest.WebAppRelease("6.5.x", "1.1.0", false), 0, "## safe-retire: SAFE"},
		{"chart bump", charttest.WebAppRelease("6.5.0", "1.0.0", true), charttest.WebAppRelease("6.6.0", "1.0.0", true), 0, "## safe-retire: SAFE"},
		{"dropped claim", charttest.WebAppRelease("6.5.0", "1.0.0", true), charttest.WebAppRelease("7.0.0", "1.0.0", true), 1, "## safe-retire: UNSAFE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := gittest.New(t, map[string]string{
				"clusters/prod/apps.yaml": incident.KustomizationManifest("flux-system", "apps", "./k8s/apps", true),
				"k8s/apps/repos.yaml":     repoFile,
				"k8s/apps/webapp.yaml":    tc.base,
			})
			base := repo.Git("rev-parse", "HEAD")
			repo.Git("checkout", "--quiet", "-b", "renovate/webapp")
			head := repo.Commit("renovate: update webapp", map[string]string{"k8s/apps/webapp.yaml": tc.head})
			store := t.TempDir()

			// Without charts the gate cannot have the chart: not the verdict a pull with them gets.
			r := newRunner(t, root, api, repo.Dir, actionToken, event(t, base, head, "acme/platform"))
			r.inputs["charts"], r.inputs["comment"], r.cacheStore = "false", "false", store
			if code := r.runJob(wf); code == tc.code || code == 0 {
				t.Fatalf("charts: false: job exit %d, want neither %d nor 0\n%s", code, tc.code, r.log.String())
			}

			for _, restored := range []bool{false, true} {
				r := newRunner(t, root, api, repo.Dir, actionToken, event(t, base, head, "acme/platform"))
				r.inputs["comment"], r.cacheStore = "false", store
				code := r.runJob(wf)
				log, summary := r.log.String(), r.summary.String()
				if code != tc.code {
					t.Fatalf("job exit %d, want %d\n%s\n%s", code, tc.code, log, summary)
				}
				if !strings.Contains(summary, tc.verdict) {
					t.Errorf("the step summary lacks %q\n%s", tc.verdict, summary)
				}
				for _, w := range []string{"PULLED: ", "declared in k8s/apps/webapp.yaml at "} {
					if !strings.Contains(log, w) {
						t.Errorf("the log lacks %q\n%s", w, log)
					}
				}
				if restored != (len(r.cacheHits) == 1) {
					t.Errorf("cache restored %v, want %v\n%s", r.cacheHits, restored, log)
				}
				if restored && strings.Contains(log, "downloaded  webapp") {
					t.Errorf("the second job downloaded a chart its restored cache holds\n%s", log)
				}
			}
		})
	}
}
