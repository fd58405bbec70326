package charts_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/charts"
	"github.com/kubeforensics/suite/internal/testsupport/charttest"
)

// A pull resolves a range against the source's list and keeps that list, so offline the same
// range resolves to the same version, which the chart's From names; the resolution matches
// what the Getter picks online from the same source (Helm's rules: pre-releases only when the
// range names one). Without the kept list, offline a range stays unavailable.
func TestPullThenResolveOffline(t *testing.T) {
	repo := charttest.NewRepo(t, charttest.WebApp("6.5.0"), charttest.WebApp("6.5.1"), charttest.WebApp("6.6.0"), charttest.WebApp("7.0.0-rc.1"))
	reg := charttest.NewRegistry(t)
	for _, v := range []string{"6.5.0", "6.5.1", "6.6.0", "7.0.0-rc.1"} {
		reg.Push(t, "charts", charttest.WebApp(v))
	}
	httpRef := func(v string) charts.Ref {
		return charts.Ref{Chart: "webapp", Version: v, Source: "HelmRepository/flux-system/example", URL: repo.URL, Type: charts.TypeHTTP}
	}
	ociRef := func(v string) charts.Ref {
		return charts.Ref{Chart: "webapp", Version: v, Source: "HelmRepository/flux-system/oci", URL: "oci://" + reg.Host + "/charts", Type: charts.TypeOCI, Insecure: true}
	}
	for _, tc := range []struct {
		name string
		ref  charts.Ref
		want string
	}{
		{"http range", httpRef("6.5.x"), "6.5.1"}, {"http caret", httpRef("^6.0.0"), "6.6.0"}, {"http latest", httpRef(""), "6.6.0"},
		{"http pre-release", httpRef(">=7.0.0-0"), "7.0.0-rc.1"}, {"oci range", ociRef("~6.5.0"), "6.5.1"}, {"oci caret", ociRef("^6"), "6.6.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := openCache(t)
			offline := &charts.Getter{Cache: cache}
			if _, err := offline.GetPinned(context.Background(), tc.ref); !errors.Is(err, charts.ErrUnavailable) {
				t.Fatalf("before the pull: %v, want unavailable", err)
			}
			online, err := (&charts.Getter{Cache: openCache(t), AllowNetwork: true}).Get(context.Background(), tc.ref)
			if err != nil {
				t.Fatal(err)
			}
			p := (&charts.Puller{Cache: cache}).Pull(context.Background(), charts.Declared{Ref: tc.ref})
			if p.Status != charts.PullDownloaded || p.Got != tc.want || p.Pin == nil || p.Pin.Version != tc.want {
				t.Fatalf("pull: %+v, want %s downloaded", p, tc.want)
			}
			if online.Version != p.Got {
				t.Errorf("online the Getter picks %s, the pull %s", online.Version, p.Got)
			}
			c, err := offline.GetPinned(context.Background(), tc.ref)
			if err != nil {
				t.Fatal(err)
			}
			if c.Version != tc.want || c.Digest != p.Digest || !strings.Contains(c.From, " resolved to "+tc.want+" against the cached ") {
				t.Errorf("offline: %s %s from %q, want %s %s", c.Version, c.Digest, c.From, tc.want, p.Digest)
			}
		})
	}
}

// The version lists are read from the declared host only: a redirect to another host is
// refused and nothing is asked of it.
func TestListFetcherStaysOnHost(t *testing.T) {
	other := charttest.NewRepo(t, charttest.WebApp("6.5.0"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}))
	defer srv.Close()
	ref := charts.Ref{Chart: "webapp", Version: "6.x", Source: "HelmRepository/flux-system/example", URL: srv.URL, Type: charts.TypeHTTP}
	p := (&charts.Puller{Cache: openCache(t)}).Pull(context.Background(), charts.Declared{Ref: ref})
	if p.Status != charts.PullUnavailable || !strings.Contains(p.Reason, "redirect to another host") {
		t.Errorf("%+v, want unavailable: redirect to another host refused", p)
	}
	if n := other.Requests(); n != 0 {
		t.Errorf("the other host got %d requests", n)
	}
}

// The scan names the chart of each HelmRelease through the sources its files declare: a
// source whose namespace a kustomization sets is matched by kind and name; a substitution, a
// missing source are skipped with the reason; a chart from a GitRepository needs nothing.
func TestScanDeclared(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"repos/example.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: example\nspec:\n  url: https://charts.example.com\n",
		"repos/oci.yaml":     "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: podinfo\n  namespace: flux-system\nspec:\n  url: oci://ghcr.io/stefanprodan/charts/podinfo\n  ref:\n    semver: \">=6.0.0\"\n",
		"apps/web.yaml":      charttest.WebAppRelease("6.5.x", "1.0.0", false) + "---\n# a second document\n" + hr("sub", "spec:\n  chart:\n    spec:\n      chart: webapp\n      version: ${WEBAPP_VERSION}\n      sourceRef: {kind: HelmRepository, name: example, namespace: flux-system}\n"),
		"apps/podinfo.yaml":  hr("podinfo", "spec:\n  chartRef: {kind: OCIRepository, name: podinfo, namespace: flux-system}\n"),
		"apps/missing.yaml":  hr("missing", "spec:\n  chart:\n    spec:\n      chart: x\n      sourceRef: {kind: HelmRepository, name: nowhere}\n"),
		"apps/local.yaml":    hr("local", "spec:\n  chart:\n    spec:\n      chart: ./charts/local\n      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}\n"),
		"apps/values.yaml":   "image:\n  tag: 1.0.0\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := charts.ScanDeclared(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range s.Charts {
		got = append(got, d.Ref.String()+" in "+strings.Join(d.Files, ","))
	}
	want := []string{
		"chart podinfo >=6.0.0 from OCIRepository/flux-system/podinfo <oci://ghcr.io/stefanprodan/charts/podinfo> in apps/podinfo.yaml",
		"chart webapp 6.5.x from HelmRepository/flux-system/example <https://charts.example.com> in apps/web.yaml",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("charts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var skipped []string
	for _, k := range s.Skipped {
		skipped = append(skipped, k.File+": "+k.Object+": "+k.Reason)
	}
	if len(skipped) != 2 || !strings.Contains(skipped[0], "apps/missing.yaml: HelmRelease apps/missing: its chart source HelmRepository/apps/nowhere is not declared") ||
		!strings.Contains(skipped[1], "apps/web.yaml: HelmRelease apps/sub: ") || !strings.Contains(skipped[1], "Flux substitution") {
		t.Errorf("skipped:\n%s", strings.Join(skipped, "\n"))
	}
}

func hr(name, spec string) string {
	return "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: " + name + "\n  namespace: apps\n" + spec
}
