package gitops

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gitopsfixture"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

func TestLoadExternalArtifacts(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	r := gittest.New(t, gitopsfixture.ExternalArtifacts())
	tree, err := Load(context.Background(), r.Dir, LoadOptions{Entry: "clusters/production"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "GitRepository/flux-system/flux-system"; tree.Source != want {
		t.Errorf("Source = %s, want %s", tree.Source, want)
	}
	want := map[string]string{
		"flux-system/apps":              "podinfo_podinfo-data__PersistentVolumeClaim",
		"flux-system/infra-controllers": "_cert-manager__Namespace",
		"flux-system/infra-configs":     "_letsencrypt_cert-manager.io_ClusterIssuer",
	}
	for id, obj := range want {
		tier := tree.Tiers[id]
		if tier == nil || tier.Err != nil || tier.NotCovered != "" {
			t.Fatalf("tier %s: %+v", id, tier)
		}
		if !strings.Contains(strings.Join(ids(tier.Objects), " "), obj) {
			t.Errorf("tier %s built %v, want %s", id, ids(tier.Objects), obj)
		}
		if !strings.Contains(tier.Generated, "made by ArtifactGenerator flux-system/flux-system") {
			t.Errorf("tier %s Generated = %q", id, tier.Generated)
		}
	}
	vendor := tree.Tiers["flux-system/vendor"]
	if vendor == nil || !strings.Contains(vendor.NotCovered, "GitRepository/flux-system/vendor-configs") {
		t.Errorf("vendor tier: %+v, want not covered naming the other source", vendor)
	}
	if got := strings.Join(tree.GeneratedSources(), " "); got != "ExternalArtifact/flux-system/apps ExternalArtifact/flux-system/infrastructure ExternalArtifact/flux-system/vendor" {
		t.Errorf("GeneratedSources = %s", got)
	}
	withFiles := tree.WithFiles(context.Background(), "flux-system/apps")
	for i, o := range withFiles.Objects {
		if o.GetKind() == "PersistentVolumeClaim" && withFiles.FileAt(i) != "apps/base/podinfo/data.yaml" {
			t.Errorf("the claim's file = %q, want the repository's apps/base/podinfo/data.yaml", withFiles.FileAt(i))
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("materialised artifacts left behind: %v", left)
	}
}
