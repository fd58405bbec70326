package lint

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

var ruleCRDOrder = Rule{
	ID: "crd-order", Severity: Error,
	Why:   "a custom resource applied with the HelmRelease that installs its CRD fails the whole server-side apply with `no matches for kind` before the chart is installed, so the tier never converges (error); one whose CRD another tier installs, without a dependsOn on that tier, fails the same way until that tier has applied and converges only on a retry (warning)",
	Fix:   "move the custom resource into a later tier whose dependsOn names the tier that installs the CRD (which needs wait: true), or add that dependsOn; CRDs installed before Flux (a bootstrap step) are declared in .flux-chain.yaml (crds) or with --crds/--crds-from",
	check: checkCRDOrder,
}

// chartCRDGroups are the API groups whose CRDs well-known charts install; a CRD a chart
// installs is not in the build, so this table is how a HelmRelease is known to install one.
var chartCRDGroups = map[string][]string{
	"cert-manager":             {"cert-manager.io", "acme.cert-manager.io"},
	"kube-prometheus-stack":    {"monitoring.coreos.com"},
	"prometheus-operator-crds": {"monitoring.coreos.com"},
	"cilium":                   {"cilium.io"},
	"traefik":                  {"traefik.io", "traefik.containo.us"},
	"longhorn":                 {"longhorn.io"},
	"cloudnative-pg":           {"postgresql.cnpg.io"},
	"velero":                   {"velero.io"},
	"external-secrets":         {"external-secrets.io", "generators.external-secrets.io"},
	"kyverno":                  {"kyverno.io"},
	"metallb":                  {"metallb.io"},
	"sealed-secrets":           {"bitnami.com"},
	"tigera-operator":          {"crd.projectcalico.org", "operator.tigera.io"},
	"keda":                     {"keda.sh"},
	"rook-ceph":                {"ceph.rook.io"},
	"external-dns":             {"externaldns.k8s.io"},
	"base":                     {"networking.istio.io", "security.istio.io"},
}

// crdSource is where a CRD comes from: a CRD object, or a HelmRelease known to install it.
type crdSource struct {
	tier, via string
	chart     bool
}

// checkCRDOrder finds custom resources whose CRD comes from the same tier's HelmRelease, or from
// a tier they do not depend on. A CRD object in the same tier is fine: kustomize-controller
// applies CRDs first and waits for them. Flux's own kinds are left out: bootstrap installs them.
func checkCRDOrder(r *Repo, rule Rule, s Settings) []Finding {
	kinds := map[string][]crdSource{}  // group/kind -> sources
	groups := map[string][]crdSource{} // group -> HelmReleases that install its CRDs
	for _, t := range r.Built() {
		for _, o := range t.Objects {
			switch {
			case o.GetKind() == "CustomResourceDefinition":
				g, _, _ := unstructured.NestedString(o.Object, "spec", "group")
				k, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
				kinds[g+"/"+k] = append(kinds[g+"/"+k], crdSource{tier: t.ID(), via: "CRD " + o.GetName()})
			case isHelmRelease(o):
				if rendered, ok := r.chartCRDs[o.GetNamespace()+"/"+o.GetName()]; ok {
					for _, gk := range rendered {
						kinds[gk] = append(kinds[gk], crdSource{tier: t.ID(), via: "HelmRelease " + o.GetNamespace() + "/" + o.GetName() + " (its rendered chart)", chart: true})
					}
					continue
				}
				for _, g := range chartCRDGroups[chartOf(o)] {
					groups[g] = append(groups[g], crdSource{tier: t.ID(), via: "HelmRelease " + o.GetNamespace() + "/" + o.GetName(), chart: true})
				}
			}
		}
	}
	var out []Finding
	for _, t := range r.Built() {
		for i, o := range t.Objects {
			g := o.GroupVersionKind().Group
			if !strings.Contains(g, ".") || strings.HasSuffix(g, ".k8s.io") || strings.HasSuffix(g, "toolkit.fluxcd.io") || s.CRDs.Has(g, o.GetKind()) {
				continue
			}
			srcs := append(append([]crdSource(nil), kinds[g+"/"+o.GetKind()]...), groups[g]...)
			if msg, sev := crdProblem(r, t, srcs); msg != "" {
				file := fileAt(t, i)
				f := rule.finding(t.ID(), objectRef(o), file, r.Locate(file, o.GetKind(), o.GetName(), ""),
					"%s (%s) %s", objectRef(o), o.GetAPIVersion(), msg)
				f.Severity = sev
				out = append(out, f)
			}
		}
	}
	return out
}

// crdProblem says what is wrong with where a custom resource's CRD comes from, and how bad it
// is: the same tier's HelmRelease never lets the tier converge (error); another tier without a
// dependsOn on it delays it to a retry (warning, naming the dependsOn to add). "" when fine.
func crdProblem(r *Repo, t *Tier, srcs []crdSource) (string, Severity) {
	if len(srcs) == 0 {
		return "", "" // a CRD from outside the repository (or bootstrap): nothing to judge offline
	}
	var elsewhere, missing []string
	sameTier := ""
	for _, s := range srcs {
		switch {
		case s.tier == t.ID() && !s.chart:
			return "", ""
		case s.tier == t.ID():
			sameTier = s.via
			continue
		case r.dependsOn(t.ID(), s.tier):
			return "", ""
		}
		elsewhere = append(elsewhere, s.via+" in "+s.tier)
		missing = append(missing, s.tier)
	}
	if sameTier != "" {
		return "is applied in the same tier as " + sameTier + ", which installs its CRD", Error
	}
	return "needs a CRD installed by " + joinSorted(elsewhere) + ", and its Kustomization has no dependsOn on " +
		joinSorted(slices.Compact(slices.Sorted(slices.Values(missing)))) + ": it fails until that tier has applied, then converges on a retry", Warning
}

// chartOf is a HelmRelease's chart name: spec.chart.spec.chart, else the name of spec.chartRef.
func chartOf(o *unstructured.Unstructured) string {
	if c, _, _ := unstructured.NestedString(o.Object, "spec", "chart", "spec", "chart"); c != "" {
		return c
	}
	c, _, _ := unstructured.NestedString(o.Object, "spec", "chartRef", "name")
	return c
}
