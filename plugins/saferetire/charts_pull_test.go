package saferetire_test

import (
	"encoding/json"
	"github.com/kubeforensics/suite/internal/testsupport/golden"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/charttest"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// pullRepo is a repository whose apps declare the HelmRepository example at url (type oci
// when typ is) and webapp's HelmRelease.
func pullRepo(t *testing.T, url, typ, release string) *gittest.Repo {
	return gittest.New(t, map[string]string{
		"clusters/prod/apps.yaml": fluxKS("flux-system", "apps", "./k8s/apps", true),
		"k8s/apps/repos.yaml":     helmRepository("example", url, typ),
		"k8s/apps/webapp.yaml":    release,
	})
}

// The sample workflow's steps on the everyday pull requests (docs/ci.md): `charts pull
// --allow-network` at the base and the head fills a chart cache from the repository's own
// declarations, then the offline gate reads that cache. An image bump and a chart version bump
// of a third-party chart are SAFE, judged on the rendered manifests; a dropped claim is UNSAFE.
// Without the pull the same gate cannot have the chart and is not SAFE.
func TestChartsPullThenGate(t *testing.T) {
	httpRepo := charttest.NewRepo(t, charttest.WebApp("6.5.0"), charttest.WebApp("6.5.1"), charttest.WebApp("6.6.0"), charttest.WebApp("7.0.0-rc.1"), charttest.WebApp("7.0.0"))
	reg := charttest.NewRegistry(t)
	for _, v := range []string{"6.5.0", "6.5.1", "6.6.0"} {
		reg.Push(t, "charts", charttest.WebApp(v))
	}
	for _, tc := range []struct {
		name, url, typ       string
		base, head           string
		code                 int
		wants, pulled, gated []string
	}{
		{name: "image bump, range, http", url: httpRepo.URL,
			base: charttest.WebAppRelease("6.5.x", "1.0.0", false), head: charttest.WebAppRelease("6.5.x", "1.1.0", false), code: 0,
			pulled: []string{"6.5.x resolved to 6.5.1 against the cached index of " + httpRepo.URL},
			gated:  []string{"verdict: SAFE (exit 0)"}},
		{name: "chart bump, http", url: httpRepo.URL,
			base: charttest.WebAppRelease("6.5.0", "1.0.0", true), head: charttest.WebAppRelease("6.6.0", "1.0.0", true), code: 0,
			gated: []string{"verdict: SAFE (exit 0)"}},
		{name: "chart bump, range, oci", url: "oci://" + reg.Host + "/charts", typ: "oci",
			base: charttest.WebAppRelease("~6.5.0", "1.0.0", true), head: charttest.WebAppRelease("^6.6.0", "1.0.0", true), code: 0,
			pulled: []string{"~6.5.0 resolved to 6.5.1 against the cached tags of oci://" + reg.Host + "/charts/webapp",
				"^6.6.0 resolved to 6.6.0 against the cached tags of oci://" + reg.Host + "/charts/webapp"},
			gated: []string{"verdict: SAFE (exit 0)"}},
		{name: "dropped claim, chart major, http", url: httpRepo.URL,
			base: charttest.WebAppRelease("6.5.0", "1.0.0", true), head: charttest.WebAppRelease("7.0.0", "1.0.0", true), code: 1,
			gated: []string{"UNSAFE PersistentVolumeClaim web/webapp-data: Helm deletes it when helm-controller upgrades release web/webapp", "verdict: UNSAFE (exit 1)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := pullRepo(t, tc.url, tc.typ, tc.base)
			base := r.Git("rev-parse", "HEAD")
			r.Commit("renovate: update", map[string]string{"k8s/apps/webapp.yaml": tc.head})
			cache := filepath.Join(t.TempDir(), "charts")
			gate := []string{"--dry-run", "--offline", "--repo", r.Dir, "--base", base, "--candidate", "HEAD", "--chart-cache", cache}

			// Without the pull: the chart cannot be had offline, and the gate is not SAFE.
			out, errOut, code := invocation{}.raw(t, gate...)
			if code == 0 || code == tc.code {
				t.Fatalf("before the pull: exit %d, want neither 0 nor %d (the chart is not had)\n%s\n%s", code, tc.code, out, errOut)
			}

			out, errOut, code = invocation{}.raw(t, "charts", "pull", "--allow-network", "--repo", r.Dir,
				"--revision", base, "--revision", "HEAD", "--chart-cache", cache)
			if code != 0 {
				t.Fatalf("pull: exit %d, want 0\n%s\n%s", code, out, errOut)
			}
			contains(t, out, append([]string{"declared in k8s/apps/webapp.yaml at ", "PULLED: "}, tc.pulled...)...)

			out, errOut, code = invocation{}.raw(t, gate...)
			if code != tc.code {
				t.Fatalf("gate: exit %d, want %d\n%s\n%s", code, tc.code, out, errOut)
			}
			contains(t, out, tc.gated...)
		})
	}
}

// A second pull reads the charts from the cache (only a range's version list is read again),
// the JSON report names what each declaration came to, and --list fetches nothing and gives the
// same cache key.
func TestChartsPullCachedAndListed(t *testing.T) {
	httpRepo := charttest.NewRepo(t, charttest.WebApp("6.5.0"), charttest.WebApp("6.5.1"))
	r := pullRepo(t, httpRepo.URL, "", charttest.WebAppRelease("6.5.0", "1.0.0", true))
	cache := filepath.Join(t.TempDir(), "charts")
	pull := []string{"charts", "pull", "--allow-network", "--repo", r.Dir, "--chart-cache", cache, "-o", "json"}
	var first, second, listed struct {
		Key    string `json:"key"`
		Charts []struct {
			Status, Got, Digest string
		} `json:"charts"`
		Verdict string `json:"verdict"`
	}
	for _, step := range []struct {
		args []string
		into any
	}{{pull, &first}, {pull, &second}, {[]string{"charts", "pull", "--list", "--repo", r.Dir, "-o", "json"}, &listed}} {
		out, errOut, code := invocation{}.raw(t, step.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", step.args, code, out, errOut)
		}
		if err := json.Unmarshal([]byte(out), step.into); err != nil {
			t.Fatalf("%v: %v\n%s", step.args, err, out)
		}
	}
	// The --list report is kept as a golden, which hack/release/schemagen validates against
	// docs/schema/ChartsPullResult.json.
	listOut, _, _ := invocation{}.raw(t, "charts", "pull", "--list", "--repo", r.Dir, "-o", "json")
	// The key digests the sources declared, the chart repository's random port included.
	goldens.Assert(t, "charts-pull-list.json", listOut, golden.Literal(r.Dir, "REPO"), golden.Literal(httpRepo.URL, "CHART_REPO_URL"),
		golden.Regexp(`"key": "sha256:[0-9a-f]{64}"`, `"key": "sha256:KEY"`))
	if len(first.Charts) != 1 || first.Charts[0].Status != "downloaded" || first.Charts[0].Got != "6.5.0" || !strings.HasPrefix(first.Charts[0].Digest, "sha256:") {
		t.Errorf("first pull: %+v", first)
	}
	before := httpRepo.Requests()
	if len(second.Charts) != 1 || second.Charts[0].Status != "cached" || second.Charts[0].Digest != first.Charts[0].Digest {
		t.Errorf("second pull: %+v", second)
	}
	if httpRepo.Requests() != before {
		t.Errorf("the second pull of an exact version made %d requests", httpRepo.Requests()-before)
	}
	if listed.Verdict != "LISTED" || listed.Key != first.Key || first.Key == "" {
		t.Errorf("--list: verdict %s key %s, want LISTED and the pull's key %s", listed.Verdict, listed.Key, first.Key)
	}
}

// What a fork's pull request can make the pull fetch: with --trusted-revision, only from the
// sources the base declares. A source only the head declares is refused and named, nothing is
// fetched from it, and the exit code is UNKNOWN's. Without --allow-network nothing runs.
func TestChartsPullTrustedRevision(t *testing.T) {
	trusted := charttest.NewRepo(t, charttest.WebApp("6.5.0"))
	other := charttest.NewRepo(t, charttest.WebApp("6.5.0"))
	r := pullRepo(t, trusted.URL, "", charttest.WebAppRelease("6.5.0", "1.0.0", true))
	base := r.Git("rev-parse", "HEAD")
	r.Commit("fork: another source", map[string]string{"k8s/apps/repos.yaml": helmRepository("example", other.URL, "")})
	cache := filepath.Join(t.TempDir(), "charts")
	out, errOut, code := invocation{}.raw(t, "charts", "pull", "--allow-network", "--repo", r.Dir, "--revision", base, "--revision", "HEAD",
		"--trusted-revision", base, "--chart-cache", cache)
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "refused     webapp 6.5.0 from HelmRepository/flux-system/example <"+other.URL+">: its source's URL is not declared by the trusted revision",
		"downloaded  webapp 6.5.0 from HelmRepository/flux-system/example <"+trusted.URL+">")
	if n := other.Requests(); n != 0 {
		t.Errorf("the untrusted source got %d requests", n)
	}
	_, errOut, code = invocation{}.raw(t, "charts", "pull", "--repo", r.Dir, "--chart-cache", cache)
	if code != 3 || !strings.Contains(errOut, "add --allow-network") {
		t.Errorf("without --allow-network: exit %d, want 3\n%s", code, errOut)
	}
}
