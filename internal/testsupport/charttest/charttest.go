// Package charttest serves Helm charts to tests the way real sources do, on 127.0.0.1 and
// started by the test: an HTTP chart repository (an index.yaml made by Helm's repo package,
// archives packaged by Helm's chart packaging) and an OCI registry (distribution's registry,
// in process, in memory) that charts are pushed to with Helm's registry client. The charts
// are fixtures written here, modelled on public charts.
package charttest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/distribution/distribution/v3/configuration"
	"github.com/distribution/distribution/v3/registry/handlers"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/inmemory" // the registry's storage
	"github.com/sirupsen/logrus"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"helm.sh/helm/v4/pkg/registry"
	repo "helm.sh/helm/v4/pkg/repo/v1"
)

// Chart is a chart's files (relative to its directory; Chart.yaml is written from Name and
// Version).
type Chart struct {
	Name, Version string
	Files         map[string]string
}

// Package writes c as a chart directory and packages it with Helm into dir, returning the
// archive's path (<name>-<version>.tgz, as `helm package` and `helm pull` name it).
func Package(tb testing.TB, dir string, c Chart) string {
	tb.Helper()
	src := filepath.Join(tb.TempDir(), c.Name)
	files := map[string]string{"Chart.yaml": "apiVersion: v2\nname: " + c.Name + "\nversion: " + c.Version + "\nappVersion: \"" + c.Version + "\"\ntype: application\n"}
	for k, v := range c.Files {
		files[k] = v
	}
	for name, content := range files {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	ch, err := loader.LoadDir(src)
	if err != nil {
		tb.Fatalf("chart %s: %v", c.Name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	out, err := chartutil.Save(ch, dir)
	if err != nil {
		tb.Fatalf("packaging chart %s: %v", c.Name, err)
	}
	return out
}

// Repo is an HTTP chart repository.
type Repo struct {
	URL string
	Dir string
	// Requests counts the requests served, so a test can tell a download from a cache read.
	Requests func() int
}

// NewRepo serves charts, packaged, with their index.yaml, until the test ends.
func NewRepo(tb testing.TB, charts ...Chart) *Repo {
	tb.Helper()
	dir := tb.TempDir()
	for _, c := range charts {
		Package(tb, dir, c)
	}
	idx, err := repo.IndexDirectory(dir, "")
	if err != nil {
		tb.Fatal(err)
	}
	idx.SortEntries()
	if err := idx.WriteFile(filepath.Join(dir, "index.yaml"), 0o644); err != nil {
		tb.Fatal(err)
	}
	var n counter
	srv := httptest.NewServer(n.wrap(http.FileServer(http.Dir(dir))))
	tb.Cleanup(srv.Close)
	return &Repo{URL: srv.URL, Dir: dir, Requests: n.get}
}

// Registry is an OCI registry that speaks plain HTTP on 127.0.0.1.
type Registry struct {
	// Host is host:port, for oci://<Host>/<path> references.
	Host     string
	Requests func() int
	// Authorized counts the requests that carried credentials (an Authorization header).
	Authorized func() int
	auth       *atomic.Bool
}

// RequireAuth makes the registry ask for credentials (HTTP Basic) on every request that
// carries none; any credentials are then accepted.
func (r *Registry) RequireAuth(on bool) { r.auth.Store(on) }

// NewRegistry starts an in-memory registry until the test ends.
func NewRegistry(tb testing.TB) *Registry {
	tb.Helper()
	cfg := &configuration.Configuration{}
	cfg.Storage = configuration.Storage{"inmemory": configuration.Parameters{}}
	cfg.Log.AccessLog.Disabled = true
	cfg.HTTP.Secret = "charttest"
	// handlers.NewApp logs through logrus' standard logger (the registry binary configures it
	// from cfg.Log; an app made in process does not): keep the tests' output to the tests.
	logrus.SetOutput(io.Discard)
	app := handlers.NewApp(context.Background(), cfg)
	var n counter
	auth := &atomic.Bool{}
	srv := httptest.NewServer(n.wrap(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if auth.Load() && req.Header.Get("Authorization") == "" {
			w.Header().Set("WWW-Authenticate", `Basic realm="charttest"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		app.ServeHTTP(w, req)
	})))
	tb.Cleanup(srv.Close)
	return &Registry{Host: strings.TrimPrefix(srv.URL, "http://"), Requests: n.get, Authorized: n.getAuthorized, auth: auth}
}

// Push packages c and pushes it with Helm's registry client to oci://<Host>/<path>/<name>:<version>.
func (r *Registry) Push(tb testing.TB, path string, c Chart) {
	tb.Helper()
	data, err := os.ReadFile(Package(tb, tb.TempDir(), c))
	if err != nil {
		tb.Fatal(err)
	}
	client, err := registry.NewClient(registry.ClientOptPlainHTTP(), registry.ClientOptWriter(io.Discard))
	if err != nil {
		tb.Fatal(err)
	}
	ref := r.Host + "/" + strings.Trim(path, "/") + "/" + c.Name + ":" + strings.ReplaceAll(c.Version, "+", "_")
	if _, err := client.Push(data, ref, registry.PushOptStrictMode(false)); err != nil {
		tb.Fatalf("pushing %s: %v", ref, err)
	}
}
