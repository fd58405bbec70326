package helmstorage

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	chartcommon "helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/release/common"
	rspb "helm.sh/helm/v4/pkg/release/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// withHooks is release web v2 with a chart that has a template, and two hooks: a Secret whose
// data is the sentinel (post-install, hook-succeeded, succeeded) and a Job (pre-delete).
func withHooks(manifest string, deps ...*chart.Dependency) *rspb.Release {
	r := release("web", 2, common.StatusDeployed, manifest)
	r.Chart.Templates = []*chartcommon.File{{Name: "templates/claim.yaml", Data: []byte("kind: PersistentVolumeClaim\n")}}
	r.Chart.Metadata.Dependencies = deps
	r.Hooks = []*rspb.Hook{
		{Name: "web-token", Kind: "Secret", Path: "web/templates/token.yaml", Events: []rspb.HookEvent{rspb.HookPostInstall},
			DeletePolicies: []rspb.HookDeletePolicy{rspb.HookSucceeded}, LastRun: rspb.HookExecution{Phase: rspb.HookPhaseSucceeded},
			Manifest: "# Source: web/templates/token.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: web-token\nstringData:\n  token: " + sentinel + "\n"},
		{Name: "web-cleanup", Kind: "Job", Path: "web/templates/cleanup.yaml", Events: []rspb.HookEvent{rspb.HookPreDelete},
			Manifest: "# Source: web/templates/cleanup.yaml\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: web-cleanup\n  namespace: jobs\n"},
	}
	return r
}

// DeployedChart returns the chart Helm stored, with its templates and default values; Deployed
// does not decode it. Both read the hooks, keeping only what names each hook's object.
func TestDeployedChart(t *testing.T) {
	kube := fake.NewClientset()
	store(t, kube, false, withHooks(manifest))
	rel, err := DeployedChart(context.Background(), kube, loc)
	if err != nil {
		t.Fatal(err)
	}
	c := rel.InstalledChart
	if c == nil || c.Name() != "web" || len(c.Templates) != 1 || c.Values["token"] != sentinel || rel.StoredChartIncomplete != "" {
		t.Fatalf("chart %+v incomplete %q", c, rel.StoredChartIncomplete)
	}
	plain, err := Deployed(context.Background(), kube, loc)
	if err != nil || plain.InstalledChart != nil {
		t.Fatalf("Deployed decoded the chart: %v", err)
	}
	for _, r := range []*Release{rel, plain} {
		if len(r.Hooks) != 2 {
			t.Fatalf("hooks %+v", r.Hooks)
		}
		secret, job := r.Hooks[0], r.Hooks[1]
		if secret.Object.GetKind() != "Secret" || secret.Object.GetName() != "web-token" || !slices.Equal(secret.Events, []string{"post-install"}) ||
			!slices.Equal(secret.DeletePolicies, []string{"hook-succeeded"}) || secret.LastPhase != "Succeeded" ||
			job.Object.GroupVersionKind().Group != "batch" || job.Object.GetNamespace() != "jobs" || job.LastPhase != "" || job.Path != "web/templates/cleanup.yaml" {
			t.Fatalf("hooks %+v %+v", secret, job)
		}
		data, err := json.Marshal(secret.Object.Object)
		if err != nil || strings.Contains(string(data), sentinel) {
			t.Fatalf("a hook Secret's data is kept: %s", data)
		}
	}
}

// A stored chart is not the whole chart when it declares dependencies, or when the manifest
// holds a subchart's objects: Helm stores a chart without its subcharts.
func TestStoredChartIncomplete(t *testing.T) {
	for _, tc := range []struct {
		name string
		rel  *rspb.Release
		want string
	}{
		{"dependencies", withHooks(manifest, &chart.Dependency{Name: "common", Version: "4.0.0"}), "declares dependencies (common)"},
		{"subchart objects", withHooks(manifest + "---\n# Source: web/charts/db/templates/sts.yaml\napiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\n"), "a subchart rendered"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube := fake.NewClientset()
			store(t, kube, false, tc.rel)
			rel, err := DeployedChart(context.Background(), kube, loc)
			if err != nil || !strings.Contains(rel.StoredChartIncomplete, tc.want) {
				t.Fatalf("got %v, %q", err, rel.StoredChartIncomplete)
			}
		})
	}
}
