package charts_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/charts"
	"github.com/kubeforensics/suite/internal/testsupport/charttest"
)

func appTemplateRef(url, version string) charts.Ref {
	return charts.Ref{Chart: "app-template", Version: version, Source: "HelmRepository/flux-system/bjw-s", URL: url, Type: charts.TypeHTTP}
}

func openCache(t *testing.T) *charts.Cache {
	t.Helper()
	c, err := charts.OpenCache(filepath.Join(t.TempDir(), "charts"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// An HTTP repository's index resolves an exact version and a constraint to the newest match,
// as source-controller does; the archive lands in the cache, which answers the next, offline,
// run without a request.
func TestHTTPRepositoryAndCache(t *testing.T) {
	repo := charttest.NewRepo(t, charttest.AppTemplate("4.4.0"), charttest.AppTemplate("4.5.0"), charttest.AppTemplate("5.0.0-rc.1"))
	cache := openCache(t)
	online := &charts.Getter{Cache: cache, AllowNetwork: true}
	for _, tc := range []struct{ version, want string }{
		{"4.4.0", "4.4.0"}, {"^4.0.0", "4.5.0"}, {"", "4.5.0"}, {">=4.4.0-0", "5.0.0-rc.1"},
	} {
		t.Run(tc.version, func(t *testing.T) {
			c, err := online.Get(context.Background(), appTemplateRef(repo.URL, tc.version))
			if err != nil {
				t.Fatal(err)
			}
			if c.Version != tc.want || !strings.HasPrefix(c.Digest, "sha256:") {
				t.Fatalf("got %s %s, want %s", c.Version, c.Digest, tc.want)
			}
		})
	}
	before := repo.Requests()
	offline := &charts.Getter{Cache: cache}
	c, err := offline.Get(context.Background(), appTemplateRef(repo.URL, "4.4.0"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Version != "4.4.0" || !strings.HasPrefix(c.From, "chart cache") || repo.Requests() != before {
		t.Fatalf("offline read: %s from %s, %d requests", c.Version, c.From, repo.Requests()-before)
	}
	// A range offline needs the index: unavailable, naming the chart and the flags.
	_, err = offline.Get(context.Background(), appTemplateRef(repo.URL, "^4.0.0"))
	if !errors.Is(err, charts.ErrUnavailable) || !strings.Contains(err.Error(), "chart app-template ^4.0.0 from HelmRepository/flux-system/bjw-s") || !strings.Contains(err.Error(), "--charts DIR") {
		t.Fatalf("range offline: %v", err)
	}
}

// Without the network, a cache or --charts, a chart is unavailable, and no request is made.
func TestOfflineWithoutChart(t *testing.T) {
	repo := charttest.NewRepo(t, charttest.AppTemplate("4.4.0"))
	_, err := (&charts.Getter{}).Get(context.Background(), appTemplateRef(repo.URL, "4.4.0"))
	if !errors.Is(err, charts.ErrUnavailable) || repo.Requests() != 0 {
		t.Fatalf("got %v after %d requests", err, repo.Requests())
	}
}

// --charts reads `helm pull` output, <name>-<version>.tgz, offline.
func TestChartsDir(t *testing.T) {
	dir := t.TempDir()
	charttest.Package(t, dir, charttest.AppTemplate("4.4.0"))
	c, err := (&charts.Getter{Dir: dir}).Get(context.Background(), appTemplateRef("https://bjw-s-labs.github.io/helm-charts", "4.4.0"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Chart.Name() != "app-template" || c.Version != "4.4.0" || !strings.HasPrefix(c.From, "--charts") {
		t.Fatalf("got %s %s from %s", c.Chart.Name(), c.Version, c.From)
	}
}

// An OCI registry: a HelmRepository of type oci (the chart's name appended to its URL) and an
// OCIRepository (its URL the chart itself), tags resolved by semver, the layer checked against
// its digest, and the cache keyed by reference and tag.
func TestOCIRegistry(t *testing.T) {
	reg := charttest.NewRegistry(t)
	reg.Push(t, "bjw-s-labs/helm", charttest.AppTemplate("4.4.0"))
	reg.Push(t, "bjw-s-labs/helm", charttest.AppTemplate("4.5.0"))
	reg.Push(t, "bjw-s-labs/helm", charttest.AppTemplate("4.4.1+build.7"))
	cache := openCache(t)
	g := &charts.Getter{Cache: cache, AllowNetwork: true}
	for _, tc := range []struct {
		name string
		ref  charts.Ref
		want string
	}{
		{"HelmRepository exact", charts.Ref{Chart: "app-template", Version: "4.4.0", Source: "HelmRepository/flux-system/bjw-s", URL: "oci://" + reg.Host + "/bjw-s-labs/helm", Type: charts.TypeOCI, Insecure: true}, "4.4.0"},
		{"HelmRepository range", charts.Ref{Chart: "app-template", Version: "4.x", Source: "HelmRepository/flux-system/bjw-s", URL: "oci://" + reg.Host + "/bjw-s-labs/helm", Type: charts.TypeOCI, Insecure: true}, "4.5.0"},
		{"HelmRepository build metadata", charts.Ref{Chart: "app-template", Version: "4.4.1+build.7", Source: "HelmRepository/flux-system/bjw-s", URL: "oci://" + reg.Host + "/bjw-s-labs/helm", Type: charts.TypeOCI, Insecure: true}, "4.4.1+build.7"},
		{"OCIRepository tag", charts.Ref{Chart: "app-template", Version: "4.4.0", Source: "OCIRepository/flux-system/app-template", URL: "oci://" + reg.Host + "/bjw-s-labs/helm/app-template", Type: charts.TypeOCI, Insecure: true}, "4.4.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := g.Get(context.Background(), tc.ref)
			if err != nil {
				t.Fatal(err)
			}
			if c.Version != tc.want {
				t.Fatalf("got %s, want %s", c.Version, tc.want)
			}
		})
	}
	before := reg.Requests()
	c, err := (&charts.Getter{Cache: cache}).Get(context.Background(), charts.Ref{Chart: "app-template", Version: "4.4.0", Source: "HelmRepository/flux-system/bjw-s", URL: "oci://" + reg.Host + "/bjw-s-labs/helm", Type: charts.TypeOCI, Insecure: true})
	if err != nil || c.Version != "4.4.0" || reg.Requests() != before {
		t.Fatalf("offline from cache: %v, %d requests", err, reg.Requests()-before)
	}
}

// The cache refuses a directory others may write, and a blob that no longer matches its
// digest is a miss, never a chart.
func TestCacheTrust(t *testing.T) {
	shared := filepath.Join(t.TempDir(), "shared")
	if err := os.MkdirAll(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := charts.OpenCache(shared); err == nil || !strings.Contains(err.Error(), "group or others can write it") {
		t.Fatalf("shared directory: %v", err)
	}
	c := openCache(t)
	if err := c.Store("k", []byte("archive")); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := c.Lookup("k"); !ok {
		t.Fatal("stored entry not found")
	}
	blob := filepath.Join(c.Dir(), "blobs", strings.TrimPrefix(charts.Digest([]byte("archive")), "sha256:")+".tgz")
	if err := os.WriteFile(blob, []byte("swapped"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := c.Lookup("k"); ok {
		t.Fatal("a blob that does not match its digest was read")
	}
	fi, err := os.Stat(c.Dir())
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("cache directory mode %v, %v", fi.Mode().Perm(), err)
	}
}

// A chart directory of the repository with a symbolic link is refused: Helm's loader would
// follow it out of the repository.
func TestDirChartSymlink(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "chart")
	if err := os.MkdirAll(filepath.Join(dir, "templates"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Chart.yaml"), []byte("apiVersion: v2\nname: local\nversion: 1.0.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/hostname", filepath.Join(dir, "templates", "leak.yaml")); err != nil {
		t.Fatal(err)
	}
	_, err := (&charts.Getter{}).Get(context.Background(), charts.Ref{Chart: "local", Source: "GitRepository/flux-system/flux-system", Type: charts.TypeDir, Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("got %v", err)
	}
}

// fileWriter writes a file under root, creating its directories.
func fileWriter(t *testing.T, root string) func(name, content string) {
	return func(name, content string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A chart directory's local dependency (file://) that its charts/ does not hold is built into
// it from its path inside the source's root, as source-controller's dependency manager does
// (addLocalDependency, secureLocalChartPath): a path that climbs out of the root is clamped
// inside it, no chart at the path or a version the constraint refuses fails, naming the
// dependency; held in charts/, the dependency is the chart's and it loads.
func TestDirChartLocalDependency(t *testing.T) {
	root := t.TempDir()
	write := fileWriter(t, root)
	const common = "apiVersion: v2\nname: common\nversion: 1.0.0\n"
	write("charts/common/Chart.yaml", common)
	write("charts/common/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: common}\n")
	// /etc/hostname-like target outside the root: a chart there must never be read.
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "Chart.yaml"), []byte("apiVersion: v2\nname: common\nversion: 1.0.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	escape, err := filepath.Rel(filepath.Join(root, "charts/app"), outside)
	if err != nil {
		t.Fatal(err)
	}
	getc := func(dep, version string) (*charts.Chart, error) {
		write("charts/app/Chart.yaml", "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n- {name: common, version: \""+version+"\", repository: \""+dep+"\"}\n")
		return (&charts.Getter{}).Get(context.Background(), charts.Ref{Chart: "app", Source: "GitRepository/flux-system/flux-system", Type: charts.TypeDir, Dir: filepath.Join(root, "charts/app"), Root: root})
	}
	get := func(dep string) error {
		_, err := getc(dep, "1.0.0")
		return err
	}
	c, err := getc("file://../common", "~1.0")
	if err != nil {
		t.Fatalf("file://../common inside the root: %v", err)
	}
	if deps := c.Chart.Dependencies(); len(deps) != 1 || deps[0].Name() != "common" {
		t.Fatalf("file://../common was not built into the chart: %v", deps)
	}
	for _, tc := range []struct{ dep, want string }{
		{"file://" + escape, `no chart at `},
		{"file://../../../../etc", `no chart at etc in this revision`},
		{"file://vendor/common", `dependency "common" (repository "file://vendor/common"): no chart at charts/app/vendor/common`},
		{"", `its path is the chart's own directory`},
	} {
		t.Run(tc.dep, func(t *testing.T) {
			if err := get(tc.dep); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := getc("file://../common", "2.x"); err == nil || !strings.Contains(err.Error(), `version 1.0.0, which "2.x" does not allow`) {
		t.Fatalf("a version the constraint refuses: %v", err)
	}
	write("charts/app/charts/common/Chart.yaml", common)
	if err := get("file://../common"); err != nil {
		t.Fatalf("held in charts/: %v", err)
	}
	// A dependency from a chart repository is not local: source-controller downloads it.
	if err := os.RemoveAll(filepath.Join(root, "charts/app/charts")); err != nil {
		t.Fatal(err)
	}
	if err := get("https://charts.example.com"); err != nil {
		t.Fatalf("remote dependency: %v", err)
	}
}

// A chart directory's digest covers the local dependencies built into it from outside it, so a
// pull request that changes only a shared library chart beside it renders the release again.
func TestChartDirDigestCoversLocalDependencies(t *testing.T) {
	root := t.TempDir()
	write := fileWriter(t, root)
	write("charts/common/Chart.yaml", "apiVersion: v2\nname: common\nversion: 1.0.0\n")
	write("charts/common/templates/cm.yaml", "a: 1\n")
	write("charts/app/Chart.yaml", "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n- {name: common, version: 1.0.0, repository: \"file://../common\"}\n")
	ref := charts.Ref{Chart: "app", Type: charts.TypeDir, Dir: filepath.Join(root, "charts/app"), Root: root}
	before := charts.ChartDirDigest(ref)
	write("charts/common/templates/cm.yaml", "a: 2\n")
	if after := charts.ChartDirDigest(ref); after == before {
		t.Fatalf("the digest did not change with the dependency: %s", after)
	}
	if charts.ChartDirDigest(ref) != charts.ChartDirDigest(ref) {
		t.Fatal("the digest is not stable")
	}
}
