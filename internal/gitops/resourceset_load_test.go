package gitops

import (
	"context"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// resourceSetRepo is a repository that drives its apps through a Flux Operator ResourceSet,
// as the operator's "app definition" guide lays one out
// (https://github.com/controlplaneio-fluxcd/flux-operator/blob/main/docs/guides/resourcesets/rset-app-definition.md):
// one Kustomization applies the ResourceSet, which renders a namespace, a claim and a Flux
// Kustomization per app from a Static ResourceSetInputProvider and its inline inputs.
var resourceSetRepo = map[string]string{
	"clusters/main/flux-system/gotk-sync.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  url: https://github.com/example/home-ops
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux-system
  namespace: flux-system
spec:
  path: ./clusters/main
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`,
	"clusters/main/apps.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: flux-system
spec:
  path: ./apps
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`,
	"apps/defaults.yaml": `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSetInputProvider
metadata:
  name: defaults
  namespace: flux-system
  labels:
    app.kubernetes.io/part-of: apps
spec:
  type: Static
  defaultValues:
    storage: 1Gi
`,
	"apps/apps.yaml": `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata:
  name: apps
  namespace: flux-system
spec:
  dependsOn:
    - apiVersion: kustomize.toolkit.fluxcd.io/v1
      kind: Kustomization
      name: infra
    - apiVersion: apiextensions.k8s.io/v1
      kind: CustomResourceDefinition
      name: helmreleases.helm.toolkit.fluxcd.io
  inputStrategy:
    name: Permute
  inputsFrom:
    - kind: ResourceSetInputProvider
      selector:
        matchLabels:
          app.kubernetes.io/part-of: apps
  resourcesTemplate: |
    <<- range $app := list "grafana" "loki" >>
    ---
    apiVersion: v1
    kind: PersistentVolumeClaim
    metadata:
      name: << $app >>-data
      namespace: monitoring
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: << inputs.defaults.storage >>
    ---
    apiVersion: kustomize.toolkit.fluxcd.io/v1
    kind: Kustomization
    metadata:
      name: << $app >>
      namespace: flux-system
    spec:
      path: ./apps/<< $app >>
      prune: true
      sourceRef:
        kind: GitRepository
        name: flux-system
    <<- end >>
`,
	"apps/kustomization.yaml":  "resources:\n- defaults.yaml\n- apps.yaml\n",
	"apps/grafana/deploy.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: grafana\n  namespace: monitoring\n",
	"apps/loki/deploy.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: loki\n  namespace: monitoring\n",
}

func TestLoadResourceSets(t *testing.T) {
	r := gittest.New(t, resourceSetRepo)
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
