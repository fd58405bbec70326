package helmrender_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/testsupport/charttest"
)

const cacheValues = `  values:
    controllers:
      main:
        containers:
          main:
            image: {repository: ghcr.io/paperless-ngx/paperless-ngx, tag: 2.15.0}
    persistence:
      data:
        accessMode: ReadWriteOnce
        size: 15Gi
`

// A render the cache holds is not rendered again and answers the same objects; a change to
// the values, the chart, the Capabilities or the post-renderers renders again.
func TestRenderCache(t *testing.T) {
	cache, err := helmrender.OpenCache(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	app := load(t, charttest.AppTemplate("4.4.0"))
	newer := load(t, charttest.AppTemplate("4.5.0"))
	hr := release(t, cacheValues)
	opts := helmrender.Options{InProcess: true, Cache: cache}
	render := func(hr *unstructured.Unstructured, digest string, opts helmrender.Options) *helmrender.Render {
		t.Helper()
		r, err := helmrender.Do(context.Background(), hr, app, digest, nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := render(hr, "sha256:aaaa", opts)
	if n := cache.Rendered(); n != 1 {
		t.Fatalf("first render: rendered %d, want 1", n)
	}
	second := render(hr, "sha256:aaaa", opts)
	if n := cache.Rendered(); n != 1 {
		t.Fatalf("the same render again: rendered %d in all, want 1 (a hit renders nothing)", n)
	}
	if d := cmp.Diff(ids(first.Manifest), ids(second.Manifest)); d != "" || len(first.Manifest) == 0 {
		t.Fatalf("cached render differs (-rendered +cached):\n%s", d)
	}
	if d := cmp.Diff(first.Manifest[0].Object, second.Manifest[0].Object); d != "" {
		t.Fatalf("cached object differs:\n%s", d)
	}
	if hits, misses, stored := cache.Stats(); hits != 1 || misses != 1 || stored != 1 {
		t.Fatalf("stats %d hits, %d misses, %d stored; want 1, 1, 1", hits, misses, stored)
	}
	changes := []struct {
		name   string
		hr     *unstructured.Unstructured
		digest string
		opts   helmrender.Options
	}{
		{"values", release(t, cacheValues+"    service: {main: {controller: main, ports: {http: {port: 80}}}}\n"), "sha256:aaaa", opts},
		{"chart digest", hr, "sha256:bbbb", opts},
		{"kube version", hr, "sha256:aaaa", helmrender.Options{InProcess: true, Cache: cache, KubeVersion: "v1.30.0"}},
		{"API versions", hr, "sha256:aaaa", helmrender.Options{InProcess: true, Cache: cache, APIVersions: []string{"example.com/v1"}}},
		{"post-renderers", release(t, cacheValues+"  postRenderers:\n  - kustomize:\n      patches:\n      - patch: '[{\"op\": \"add\", \"path\": \"/metadata/annotations\", \"value\": {\"a\": \"b\"}}]'\n        target: {kind: PersistentVolumeClaim}\n"), "sha256:aaaa", opts},
		{"release namespace", release(t, cacheValues+"  targetNamespace: other\n"), "sha256:aaaa", opts},
	}
	for i, c := range changes {
		render(c.hr, c.digest, c.opts)
		if n := cache.Rendered(); n != int64(2+i) {
			t.Fatalf("%s changed: rendered %d in all, want %d", c.name, n, 2+i)
		}
	}
	// A chart read from a directory has no archive digest: its files are the key.
	if _, err := helmrender.Do(context.Background(), hr, newer, "", nil, opts); err != nil {
		t.Fatal(err)
	}
	if _, err := helmrender.Do(context.Background(), hr, app, "", nil, opts); err != nil {
		t.Fatal(err)
	}
	want := int64(1 + len(changes) + 2)
	if n := cache.Rendered(); n != want {
		t.Fatalf("two charts without digests: rendered %d in all, want %d", n, want)
	}
	if _, err := helmrender.Do(context.Background(), hr, app, "", nil, opts); err != nil {
		t.Fatal(err)
	}
	if n := cache.Rendered(); n != want {
		t.Fatalf("a chart without digest again: rendered %d in all, want %d", n, want)
	}
}

// Values from a Secret are rendered every time and never stored.
func TestRenderCacheSecretValues(t *testing.T) {
	cache, err := helmrender.OpenCache(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	app := load(t, charttest.AppTemplate("4.4.0"))
	hr := release(t, cacheValues+"  valuesFrom:\n  - kind: Secret\n    name: paperless-values\n")
	secret := obj(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: paperless-values, namespace: media}\nstringData:\n  values.yaml: |\n    defaultPodOptions: {hostname: secret}\n")
	for range 2 {
		if _, err := helmrender.Do(context.Background(), hr, app, "sha256:aaaa", []*unstructured.Unstructured{secret}, helmrender.Options{InProcess: true, Cache: cache}); err != nil {
			t.Fatal(err)
		}
	}
	if hits, _, stored := cache.Stats(); hits != 0 || stored != 0 || cache.Rendered() != 2 {
		t.Fatalf("%d hits, %d stored, %d rendered; want 0, 0, 2", hits, stored, cache.Rendered())
	}
}

// A cache directory, shard or entry someone else may write is refused as the build cache's
// is; an entry that fails authentication under the key is a miss, rendered again and counted.
func TestRenderCacheTrust(t *testing.T) {
	open := t.TempDir()
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := helmrender.OpenCache(open, nil); !errors.Is(err, gitops.ErrUntrustedCache) {
		t.Fatalf("a directory others may write: %v, want ErrUntrustedCache", err)
	}
	dir := t.TempDir()
	cache, err := helmrender.OpenCache(dir, []byte("0123456789abcdef0123"))
	if err != nil {
		t.Fatal(err)
	}
	app := load(t, charttest.AppTemplate("4.4.0"))
	hr := release(t, cacheValues)
	opts := helmrender.Options{InProcess: true, Cache: cache}
	if _, err := helmrender.Do(context.Background(), hr, app, "sha256:aaaa", nil, opts); err != nil {
		t.Fatal(err)
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "*", "*"))
	if len(entries) != 1 {
		t.Fatalf("entries %v, want one", entries)
	}
	// Another key: the entry fails authentication, a miss, rendered again.
	other, err := helmrender.OpenCache(dir, []byte("another key, 16 bytes or more"))
	if err != nil {
		t.Fatal(err)
	}
	opts.Cache = other
	if _, err := helmrender.Do(context.Background(), hr, app, "sha256:aaaa", nil, opts); err != nil {
		t.Fatal(err)
	}
	if n, _ := other.Unauthenticated(); n != 1 || other.Rendered() != 1 {
		t.Fatalf("under another key: %d unauthenticated, %d rendered; want 1, 1", n, other.Rendered())
	}
	// An entry others may write is refused for the whole run.
	if err := os.Chmod(entries[0], 0o666); err != nil {
		t.Fatal(err)
	}
	opts.Cache = cache
	if _, err := helmrender.Do(context.Background(), hr, app, "sha256:aaaa", nil, opts); err != nil {
		t.Fatal(err)
	}
	if err := cache.Untrusted(); !errors.Is(err, gitops.ErrUntrustedCache) {
		t.Fatalf("an entry others may write: Untrusted() = %v, want ErrUntrustedCache", err)
	}
	if hits, _, _ := cache.Stats(); hits != 0 {
		t.Fatalf("an untrusted entry answered %d render(s)", hits)
	}
}
