package charts_test

import (
	"context"
	"encoding/base64"
	"io"
	"os"
	"path"
	"path/filepath"
	"testing"

	"helm.sh/helm/v4/pkg/getter"
	"helm.sh/helm/v4/pkg/registry"
	repo "helm.sh/helm/v4/pkg/repo/v1"

	"github.com/kubeforensics/suite/internal/charts"
	"github.com/kubeforensics/suite/internal/testsupport/charttest"
)

// A HelmRepository's version resolves to what Helm's own lookup (repo.FindChartInRepoURL, the
// index downloaded, loaded and asked with IndexFile.Get) picks from the same repository, or
// fails where it fails.
func TestIndexResolutionMatchesHelm(t *testing.T) {
	t.Setenv("HELM_CACHE_HOME", t.TempDir())
	r := charttest.NewRepo(t, charttest.AppTemplate("4.4.0"), charttest.AppTemplate("4.4.1"), charttest.AppTemplate("4.5.0"),
		charttest.AppTemplate("5.0.0-rc.1"), charttest.AppTemplate("3.7.3"))
	providers := getter.Providers{{Schemes: []string{"http", "https"}, New: getter.NewHTTPGetter}}
	g := &charts.Getter{AllowNetwork: true}
	for _, version := range []string{"4.4.0", "v4.4.0", "4.4", "4.x", "~4.4", "^4.0.0", ">=4.4.0 <4.5.0", "", "*", ">=4.4.0-0", "5.0.0-rc.1", "3.x || 4.4.x", "9.9.9", "not-a-version"} {
		t.Run(version, func(t *testing.T) {
			want, wantErr := repo.FindChartInRepoURL(r.URL, "app-template", providers, repo.WithChartVersion(version))
			got, gotErr := g.Get(context.Background(), appTemplateRef(r.URL, version))
			if (wantErr == nil) != (gotErr == nil) {
				t.Fatalf("Helm: %v, ours: %v", wantErr, gotErr)
			}
			if wantErr != nil {
				return
			}
			if path.Base(want) != "app-template-"+got.Version+".tgz" {
				t.Fatalf("Helm picks %s, ours %s", path.Base(want), got.Version)
			}
		})
	}
}

// Helm's registry client, made as Helm makes it, sends the credentials Docker's config holds
// for a registry that asks for them; the one charts pulls with never does, and the pull fails
// naming the registry's refusal.
func TestOCINoCredentials(t *testing.T) {
	reg := charttest.NewRegistry(t)
	reg.Push(t, "private", charttest.AppTemplate("4.4.0"))
	dir := t.TempDir()
	auth := base64.StdEncoding.EncodeToString([]byte("user:secret"))
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"auths": {"`+reg.Host+`": {"auth": "`+auth+`"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_CONFIG", dir)
	t.Setenv("HELM_REGISTRY_CONFIG", filepath.Join(t.TempDir(), "none.json"))
	ref := charts.Ref{Chart: "app-template", Version: "4.4.0", Source: "HelmRepository/flux-system/private", URL: "oci://" + reg.Host + "/private", Type: charts.TypeOCI, Insecure: true}
	reg.RequireAuth(true)

	helm, err := registry.NewClient(registry.ClientOptPlainHTTP(), registry.ClientOptWriter(io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = helm.Pull(reg.Host + "/private/app-template:4.4.0")
	if reg.Authorized() == 0 {
		t.Fatal("Helm's default client sent no credentials: the test does not tell them apart")
	}
	before := reg.Authorized()
	_, err = (&charts.Getter{AllowNetwork: true}).Get(context.Background(), ref)
	if err == nil || reg.Authorized() != before {
		t.Fatalf("pulled with credentials the registry asked for: %v, %d requests with credentials", err, reg.Authorized()-before)
	}
}
