package lint_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/lint"
)

// fleet is modelled on controlplaneio-fluxcd/d2-fleet (commit 64e49530, tenants/*.yaml,
// https://github.com/controlplaneio-fluxcd/d2-fleet/blob/main/tenants/apps.yaml): one
// Kustomization applies three ResourceSets; infra waits for policies (a ResourceSet), renders
// per tenant infra-controllers and infra-configs (which depends on infra-controllers), and apps
// waits for monitoring/infra-configs before it renders each tenant's apps Kustomization. The
// tenants' sources are the repository here (d2-fleet pulls OCI artifacts) so every tier builds.
func fleet() platform {
	rendered := func(name, path, deps string) string {
		return `    - apiVersion: kustomize.toolkit.fluxcd.io/v1
      kind: Kustomization
      metadata:
        name: ` + name + `
        namespace: << inputs.tenant >>
      spec:
` + deps + `        interval: 30m
        wait: true
        path: ./` + path + `
        prune: true
        sourceRef:
          kind: GitRepository
          name: flux-system
          namespace: flux-system
`
	}
	p := platform{
		"clusters/prod/tenants.yaml": ks("tenants", "tenants", ""),
		"tenants/policies.yaml": `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata:
  name: policies
  namespace: flux-system
spec:
  resources:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: flux-allowlist
        namespace: flux-system
`,
		"tenants/infra.yaml": `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata:
  name: infra
  namespace: flux-system
spec:
  dependsOn:
    - apiVersion: fluxcd.controlplane.io/v1
      kind: ResourceSet
      name: policies
      namespace: flux-system
      ready: true
  inputs:
    - tenant: cert-manager
    - tenant: monitoring
  resources:
` + rendered("infra-controllers", "infra/controllers", "") + rendered("infra-configs", "infra/configs", "        dependsOn:\n          - name: infra-controllers\n"),
		"tenants/apps.yaml": `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata:
  name: apps
  namespace: flux-system
spec:
  dependsOn:
    - apiVersion: kustomize.toolkit.fluxcd.io/v1
      kind: Kustomization
      name: infra-configs
      namespace: monitoring
      ready: true
      readyExpr: status.observedGeneration >= 0
  inputs:
    - tenant: frontend
    - tenant: backend
  resources:
` + rendered("apps", "apps", ""),
		"tenants/kustomization.yaml":       kustomization("policies.yaml", "infra.yaml", "apps.yaml"),
		"infra/controllers/configmap.yaml": configMap("controllers", "default"),
		"infra/configs/configmap.yaml":     configMap("configs", "default"),
		"apps/configmap.yaml":              configMap("apps", "default"),
		"clusters/prod/kustomization.yaml": kustomization("tenants.yaml"),
	}
	return p
}

func tierOf(t *testing.T, c *flux.Chain, id string) int {
	t.Helper()
	n := c.Node(id)
	if n == nil {
		t.Fatalf("%s is not in the chain: %v", id, c.Tiers)
	}
	return n.Tier
}

// TestResourceSetDependsOnOrdersWhatItRenders: before, frontend/apps and backend/apps were
// drawn in tier 0 (their own dependsOn is empty); the ResourceSet that creates them waits for
// monitoring/infra-configs (tier 1), so they are in tier 2 and say why.
func TestResourceSetDependsOnOrdersWhatItRenders(t *testing.T) {
	r := load(t, fleet())
	for _, tr := range r.BuildFailures() {
		t.Fatalf("%s did not build: %v", tr.ID(), tr.Err)
	}
	c := r.Chain
	if got := tierOf(t, c, "monitoring/infra-configs"); got != 1 {
		t.Errorf("monitoring/infra-configs in tier %d, want 1", got)
	}
	for _, id := range []string{"frontend/apps", "backend/apps"} {
		if got := tierOf(t, c, id); got != 2 {
			t.Errorf("%s in tier %d, want 2 (after monitoring/infra-configs)", id, got)
		}
		want := []flux.InheritedDep{{ID: "monitoring/infra-configs", Via: "ResourceSet flux-system/apps"}}
		if got := c.Node(id).Inherited; !slices.Equal(got, want) {
			t.Errorf("%s inherits %v, want %v", id, got, want)
		}
		if up := c.Upstream(id); !slices.Contains(up, "monitoring/infra-controllers") {
			t.Errorf("%s upstream %v lacks monitoring/infra-controllers", id, up)
		}
	}
	if d := c.Node("monitoring/infra-configs").Dependents; !slices.Contains(d, "frontend/apps") {
		t.Errorf("monitoring/infra-configs dependents %v lack frontend/apps", d)
	}
	// The policies ResourceSet has no wait: it is Ready once applied, and renders no
	// Kustomization anyway; infra's Kustomizations wait for nothing in the chain.
	if got := tierOf(t, c, "cert-manager/infra-controllers"); got != 0 {
		t.Errorf("cert-manager/infra-controllers in tier %d, want 0", got)
	}
	// An inherited dependency is no dependsOn of the node: no cycle or missing-dependency
	// finding, and the text draws it apart.
	for _, f := range c.Findings {
		t.Errorf("finding: %s %s", f.Kustomization, f.Message)
	}
}

// TestResourceSetDependsOnVariants: what a dependency does not wait for orders nothing, and
// what makes a ResourceSet it depends on Ready orders what it renders.
func TestResourceSetDependsOnVariants(t *testing.T) {
	t.Run("ready false waits only for existence", func(t *testing.T) {
		p := fleet()
		p["tenants/apps.yaml"] = strings.Replace(p["tenants/apps.yaml"], "ready: true", "ready: false", 1)
		c := load(t, p).Chain
		if got := tierOf(t, c, "frontend/apps"); got != 0 || len(c.Node("frontend/apps").Inherited) != 0 {
			t.Errorf("frontend/apps in tier %d inheriting %v, want tier 0 and nothing", got, c.Node("frontend/apps").Inherited)
		}
	})
	t.Run("a ResourceSet with wait is Ready after what it renders", func(t *testing.T) {
		p := fleet()
		// infra waits for its Kustomizations; apps now depends on infra instead.
		p["tenants/infra.yaml"] = strings.Replace(p["tenants/infra.yaml"], "spec:\n  dependsOn:", "spec:\n  wait: true\n  dependsOn:", 1)
		p["tenants/apps.yaml"] = strings.Replace(strings.Replace(strings.Replace(p["tenants/apps.yaml"],
			"kustomize.toolkit.fluxcd.io/v1\n      kind: Kustomization", "fluxcd.controlplane.io/v1\n      kind: ResourceSet", 1),
			"name: infra-configs\n      namespace: monitoring", "name: infra\n      namespace: flux-system", 1),
			"      readyExpr: status.observedGeneration >= 0\n", "", 1)
		c := load(t, p).Chain
		if got := tierOf(t, c, "backend/apps"); got != 2 {
			t.Errorf("backend/apps in tier %d, want 2", got)
		}
		var ids []string
		for _, d := range c.Node("backend/apps").Inherited {
			ids = append(ids, d.ID+" via "+d.Via)
		}
		want := "cert-manager/infra-configs via ResourceSet flux-system/apps, cert-manager/infra-controllers via ResourceSet flux-system/apps, " +
			"monitoring/infra-configs via ResourceSet flux-system/apps, monitoring/infra-controllers via ResourceSet flux-system/apps"
		if got := strings.Join(ids, ", "); got != want {
			t.Errorf("backend/apps inherits %s, want %s", got, want)
		}
	})
	t.Run("what its own dependsOn names is not inherited again", func(t *testing.T) {
		p := fleet()
		p["tenants/apps.yaml"] = strings.Replace(p["tenants/apps.yaml"], "        interval: 30m\n",
			"        dependsOn:\n          - name: infra-configs\n            namespace: monitoring\n        interval: 30m\n", 1)
		c := load(t, p).Chain
		n := c.Node("frontend/apps")
		if n == nil || n.Tier != 2 || len(n.Inherited) != 0 || !slices.Equal(n.DependsOn, []string{"monitoring/infra-configs"}) {
			t.Errorf("frontend/apps %+v, want tier 2, dependsOn monitoring/infra-configs and nothing inherited", n)
		}
	})
	t.Run("a Kustomization that applies a ResourceSet passes its own dependsOn on", func(t *testing.T) {
		p := fleet()
		p["clusters/prod/tenants.yaml"] = ks("tenants", "tenants", "  dependsOn:\n    - name: platform\n") + ks("platform", "platform", "  wait: true\n")
		p["platform/configmap.yaml"] = configMap("platform", "default")
		c := load(t, p).Chain
		if got := tierOf(t, c, "cert-manager/infra-controllers"); got != 1 {
			t.Errorf("cert-manager/infra-controllers in tier %d, want 1 (after flux-system/platform)", got)
		}
		want := []flux.InheritedDep{{ID: "flux-system/platform", Via: "Kustomization flux-system/tenants"}}
		if got := c.Node("cert-manager/infra-controllers").Inherited; !slices.Equal(got, want) {
			t.Errorf("inherits %v, want %v", got, want)
		}
		if got := tierOf(t, c, "frontend/apps"); got != 3 {
			t.Errorf("frontend/apps in tier %d, want 3", got)
		}
	})
}

// TestResourceSetRenderErrorOnce: a ResourceSet that does not render is named once, by its
// tier ("ResourceSet ns/name: not rendered: …"), not again by each layer of the error.
func TestResourceSetRenderErrorOnce(t *testing.T) {
	p := fleet()
	p["tenants/apps.yaml"] = strings.Replace(p["tenants/apps.yaml"], "  inputs:\n", "  inputsFrom:\n    - apiVersion: fluxcd.controlplane.io/v1\n      kind: ResourceSetInputProvider\n      name: missing\n  inputs:\n", 1)
	r := load(t, p)
	var got []string
	for _, tr := range r.BuildFailures() {
		got = append(got, gitops.TierName(tr.ID(), tr.Kustomization.Path)+": "+tr.Err.Error())
	}
	want := "ResourceSet flux-system/apps: not rendered: ResourceSetInputProvider flux-system/missing is not in the repository"
	if len(got) != 1 || got[0] != want {
		t.Errorf("build failures %q, want [%q]", got, want)
	}
}

// TestResourceSetDependsOnOrdersItsCRs: a custom resource a ResourceSet renders, whose CRD a
// tier the ResourceSet waits for installs, is in order (crd-order says nothing); without the
// ResourceSet's dependsOn it waits for a retry (warning).
func TestResourceSetDependsOnOrdersItsCRs(t *testing.T) {
	crd := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: servicemonitors.monitoring.coreos.com
spec:
  group: monitoring.coreos.com
  scope: Namespaced
  names:
    kind: ServiceMonitor
    plural: servicemonitors
  versions:
    - name: v1
      served: true
      storage: true
`
	monitor := `    - apiVersion: monitoring.coreos.com/v1
      kind: ServiceMonitor
      metadata:
        name: apps
        namespace: << inputs.tenant >>
`
	for _, tc := range []struct {
		name    string
		depends bool
		want    string
	}{{"waits for the tier with the CRD", true, ""}, {"does not wait", false, "warning"}} { // one per tenant
		t.Run(tc.name, func(t *testing.T) {
			p := fleet()
			p["infra/configs/crd.yaml"] = crd
			p["tenants/apps.yaml"] += monitor
			if !tc.depends {
				p["tenants/apps.yaml"] = strings.Replace(p["tenants/apps.yaml"], "ready: true", "ready: false", 1)
			}
			var got []string
			for _, f := range lint.Run(load(t, p)) {
				if f.Rule == "crd-order" && f.Severity != lint.Info { // ResourceSet's own CRD: not in the fixture
					got = append(got, string(f.Severity)+": "+f.Message)
				}
			}
			switch {
			case tc.want == "" && len(got) != 0:
				t.Errorf("crd-order findings %q, want none", got)
			case tc.want != "" && (len(got) != 2 || !strings.HasPrefix(got[0], tc.want) || !strings.Contains(got[0], "its ResourceSet has no dependsOn")):
				t.Errorf("crd-order findings %q, want two %ss naming the ResourceSet", got, tc.want)
			}
		})
	}
}

// TestInheritedCycle: a Kustomization that waits for one which waits for its own child never
// applies, so the child is never created: a cycle, its inherited edge named as such.
func TestInheritedCycle(t *testing.T) {
	p := platform{
		"clusters/prod/ks.yaml": ks("k", "k", "  dependsOn:\n    - name: x\n") + ks("x", "x", "  wait: true\n  dependsOn:\n    - name: c\n"),
		"k/ks.yaml":             ks("c", "c", ""),
		"c/cm.yaml":             configMap("c", "default"),
		"x/cm.yaml":             configMap("x", "default"),
	}
	var got []string
	for _, f := range lint.Run(load(t, p)) {
		if f.Rule == "dependency-graph" {
			got = append(got, string(f.Severity)+": "+f.Message)
		}
	}
	want := "error: flux-system/c dependsOn cycle through 2 Kustomization(s) (flux-system/c -> flux-system/x (inherited from Kustomization flux-system/k), flux-system/x -> flux-system/c)"
	if len(got) != 1 || !strings.HasPrefix(got[0], want) {
		t.Errorf("dependency-graph findings %q, want one starting %q", got, want)
	}
}
