package lint

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

var ruleDriftCNI = Rule{
	ID: "drift-detection-cni", Severity: Warning,
	Why:   "drift detection re-asserts the Helm storage manifest; when that manifest is the bad render (as in a broken CNI upgrade) it actively re-applies the breakage to the network every node depends on",
	Fix:   "leave spec.driftDetection.mode at disabled (or warn) on CNI HelmReleases",
	check: checkDriftCNI,
}

var ruleLeafInGate = Rule{
	ID: "leaf-in-gating-tier", Severity: Warning,
	Why:   "a non-critical app (dashboard, UI, auth proxy) in a wait: true tier that many tiers depend on turns its crashloop into a stall of every tier downstream, including the one that would fix it",
	Fix:   "move the HelmRelease into its own Kustomization with wait: false that nothing depends on",
	check: checkLeafInGate,
}

// cniCharts are the charts of container network plugins.
var cniCharts = []string{"cilium", "calico", "tigera-operator", "flannel", "canal", "antrea", "kube-ovn", "multus", "weave"}

// leafCharts are charts of apps nothing else needs to be healthy; a HelmRelease is marked as one
// with the annotation leafAnnotation: "true" too.
var leafCharts = []string{"headlamp", "homepage", "oauth2-proxy", "kubernetes-dashboard", "weave-gitops", "kube-ops-view", "goldilocks", "podinfo"}

// leafAnnotation marks a HelmRelease as a non-critical leaf for leaf-in-gating-tier.
const leafAnnotation = "flux-chain.kubeforensics.dev/leaf"

// gatingDependents is how many tiers must depend on a gating tier for a leaf in it to matter.
const gatingDependents = 3

func checkDriftCNI(r *Repo, rule Rule, _ Settings) []Finding {
	var out []Finding
	for _, t := range r.Built() {
		for i, o := range t.Objects {
			mode, _, _ := unstructured.NestedString(o.Object, "spec", "driftDetection", "mode")
			if !isHelmRelease(o) || mode != "enabled" || !matchesAny(chartOf(o), cniCharts) {
				continue
			}
			file := fileAt(t, i)
			out = append(out, rule.finding(t.ID(), objectRef(o), file, r.Locate(file, o.GetKind(), o.GetName(), "driftDetection"),
				"%s (chart %s, a CNI) has driftDetection.mode: enabled", objectRef(o), chartOf(o)))
		}
	}
	return out
}

func checkLeafInGate(r *Repo, rule Rule, _ Settings) []Finding {
	var out []Finding
	for _, t := range r.Built() {
		if !t.Kustomization.Wait {
			continue
		}
		deps := r.dependents(t.ID())
		if len(deps) < gatingDependents {
			continue
		}
		for i, o := range t.Objects {
			if !isHelmRelease(o) || (!matchesAny(chartOf(o), leafCharts) && o.GetAnnotations()[leafAnnotation] != "true") {
				continue
			}
			file := fileAt(t, i)
			out = append(out, rule.finding(t.ID(), objectRef(o), file, r.Locate(file, o.GetKind(), o.GetName(), ""),
				"%s is a non-critical leaf in gating tier %s, which %d tiers depend on", objectRef(o), t.ID(), len(deps)))
		}
	}
	return out
}

func matchesAny(chart string, names []string) bool {
	for _, n := range names {
		if chart == n || strings.HasPrefix(chart, n+"-") {
			return true
		}
	}
	return false
}
