package lint

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

var ruleCRDOrder = Rule{
	ID: "crd-order", Severity: Error,
	Why:   "a custom resource applied with the HelmRelease that installs its CRD fails the whole server-side apply with `no matches for kind` before the chart is installed, so the tier never converges (error); one whose CRD another tier installs, without a dependsOn on that tier, fails the same way until that tier has applied and converges only on a retry (warning); a custom resource whose CRD is declared nowhere the lint can read is noted as not verifiable (info)",
	Fix:   "move the custom resource into a later tier whose dependsOn names the tier that installs the CRD (which needs wait: true), or add that dependsOn; CRDs installed before Flux are read from the repository's bootstrap files (helmfile releases, kubectl apply in scripts, Taskfiles and Makefiles, Talos inline manifests, manifests outside the paths Flux builds, gotk-components.yaml), else declared in .flux-chain.yaml (crds) or with --crds/--crds-from",
	check: checkCRDOrder,
}

// crdSource is where a CRD comes from: a CRD object, or a HelmRelease whose rendered chart
// installs it.
type crdSource struct {
	tier, via string
	chart     bool
}

// checkCRDOrder finds custom resources whose CRD comes from the same tier's HelmRelease, or from
// a tier they do not depend on. A CRD object in the same tier is fine: kustomize-controller
// applies CRDs first and waits for them. A CRD installed outside Flux (Bootstrap, --crds) is
// present before any tier. Flux's own kinds are left out: bootstrap installs them. A CRD found
// nowhere is not verifiable: one note per API group, naming how to declare it.
func checkCRDOrder(r *Repo, rule Rule, s Settings) []Finding {
	kinds := map[string][]crdSource{} // group/Kind -> sources
	present := map[string]string{}    // group/Kind -> the bootstrap helmfile release that installs it
	for _, t := range r.Built() {
		for _, o := range t.Objects {
			switch {
			case o.GetKind() == "CustomResourceDefinition":
				g, _, _ := unstructured.NestedString(o.Object, "spec", "group")
				k, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
				kinds[g+"/"+k] = append(kinds[g+"/"+k], crdSource{tier: t.ID(), via: "CRD " + o.GetName()})
			case isHelmRelease(o):
				id := o.GetNamespace() + "/" + o.GetName()
				rel := r.Bootstrap.releaseFor(o)
				for _, gk := range r.chartCRDs[id] {
					kinds[gk] = append(kinds[gk], crdSource{tier: t.ID(), via: "HelmRelease " + id + " (its rendered chart)", chart: true})
					if rel != nil {
						present[gk] = "helmfile release " + rel.Name + " in " + rel.File + " (the chart of HelmRelease " + id + ")"
					}
				}
			}
		}
	}
	var out []Finding
	unverified := map[string]*Finding{} // group -> the note
	for _, t := range r.Built() {
		for i, o := range t.Objects {
			g, k := o.GroupVersionKind().Group, o.GetKind()
			if !strings.Contains(g, ".") || strings.HasSuffix(g, ".k8s.io") || strings.HasSuffix(g, "toolkit.fluxcd.io") ||
				s.CRDs.Has(g, k) || r.Bootstrap.Where(g, k) != "" || present[g+"/"+k] != "" {
				continue
			}
			file := fileAt(t, i)
			srcs := kinds[g+"/"+k]
			if len(srcs) == 0 {
				notVerifiable(unverified, r, rule, t, o, file)
				continue
			}
			if msg, sev := crdProblem(r, t, srcs); msg != "" {
				f := rule.finding(t.ID(), objectRef(o), file, r.Locate(file, k, o.GetName(), ""),
					"%s (%s) %s", objectRef(o), o.GetAPIVersion(), msg)
				f.Severity = sev
				out = append(out, f)
			}
		}
	}
	for _, g := range slices.Sorted(maps.Keys(unverified)) {
		out = append(out, *unverified[g])
	}
	return out
}

// notVerifiable adds o to the note of its API group: its CRD is declared nowhere the lint can
// read, so its order is not judged (info, never an error).
func notVerifiable(notes map[string]*Finding, r *Repo, rule Rule, t *Tier, o *unstructured.Unstructured, file string) {
	g := o.GroupVersionKind().Group
	if n := notes[g]; n != nil {
		n.Objects = append(n.Objects, objectRef(o))
		if !slices.Contains(n.Kustomizations, t.ID()) {
			n.Kustomizations = append(n.Kustomizations, t.ID())
		}
		return
	}
	msg := "the CRD of " + objectRef(o) + " (API group " + g + ") is declared nowhere flux-chain can read (no CRD in a tier's build, " +
		"no rendered chart, no bootstrap file, not in --crds), so its order is not verifiable: declare the group with --crds " + g +
		" (or crds.groups in .flux-chain.yaml), or render the HelmReleases' charts with --chart-cache or --allow-network"
	if u := r.Bootstrap; u != nil && len(u.Unread) > 0 {
		msg += fmt.Sprintf("; bootstrap applies %d source(s) not read offline, e.g. %s", len(u.Unread), u.Unread[0])
	}
	f := rule.finding(t.ID(), objectRef(o), file, r.Locate(file, o.GetKind(), o.GetName(), ""), "%s", msg)
	f.Severity, f.Objects, f.Kustomizations = Info, []string{objectRef(o)}, []string{t.ID()}
	notes[g] = &f
}

// crdProblem says what is wrong with where a custom resource's CRD comes from, and how bad it
// is: the same tier's HelmRelease never lets the tier converge (error); another tier without a
// dependsOn on it delays it to a retry (warning, naming the dependsOn to add). "" when fine.
func crdProblem(r *Repo, t *Tier, srcs []crdSource) (string, Severity) {
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
	return "needs a CRD installed by " + joinSorted(elsewhere) + ", and its " + cmp.Or(t.Owner, "Kustomization") + " has no dependsOn on " +
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
