package gitops

import (
	"context"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gitopsfixture"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

func TestLoadResourceSets(t *testing.T) {
	r := gittest.New(t, gitopsfixture.ResourceSets())
	tree, err := Load(context.Background(), r.Dir, LoadOptions{Entry: "clusters/main"})
	if err != nil {
		t.Fatal(err)
	}
	rs := tree.Tiers["ResourceSet/flux-system/apps"]
	if rs == nil || rs.Err != nil || rs.Owner != OwnerResourceSet || rs.AppliedBy != "flux-system/apps" {
		t.Fatalf("ResourceSet tier: %+v", rs)
	}
	if got := strings.Join(rs.Kustomization.DependsOn, " "); got != "flux-system/infra" {
		t.Errorf("DependsOn = %q, want the Kustomization it waits for", got)
	}
	got := strings.Join(ids(rs.Objects), " ")
	for _, want := range []string{"monitoring_grafana-data__PersistentVolumeClaim", "flux-system_loki_kustomize.toolkit.fluxcd.io_Kustomization"} {
		if !strings.Contains(got, want) {
			t.Errorf("ResourceSet rendered %s, want %s", got, want)
		}
	}
	if wf := tree.WithFiles(context.Background(), rs.ID()); wf == nil || wf.FileAt(0) != "apps/apps.yaml" {
		t.Errorf("WithFiles names %v, want the ResourceSet's apps/apps.yaml", wf)
	}
	for _, app := range []string{"grafana", "loki"} {
		tier := tree.Tiers["flux-system/"+app]
		if tier == nil || tier.Err != nil || tier.AppliedBy != "ResourceSet/flux-system/apps" || len(tier.Objects) != 1 {
			t.Errorf("rendered Kustomization %s did not join the walk: %+v", app, tier)
		}
	}
}
