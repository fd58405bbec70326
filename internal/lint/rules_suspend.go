package lint

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

var ruleSuspend = Rule{
	ID: "suspend-committed", Severity: Warning,
	Why:   "suspend: true in git stops reconciliation for good: changes are not applied and drift is not corrected, silently, long after whoever suspended it has forgotten",
	Fix:   "remove spec.suspend from git; suspend by hand (flux suspend) only for the length of an incident",
	check: checkSuspend,
}

// checkSuspend finds Kustomizations and HelmReleases whose effective spec.suspend is true.
func checkSuspend(r *Repo, rule Rule, _ Settings) []Finding {
	var out []Finding
	for _, id := range r.IDs() {
		t := r.Tiers[id]
		if ks := t.Kustomization; ks.Object != nil && suspended(ks.Object) {
			out = append(out, rule.finding(id, "Kustomization "+id, ks.File, r.Locate(ks.File, "Kustomization", ks.Name, "suspend"),
				"Kustomization %s is committed with suspend: true", id))
		}
		for i, o := range t.Objects {
			if isHelmRelease(o) && suspended(o) {
				file := fileAt(t, i)
				out = append(out, rule.finding(id, objectRef(o), file, r.Locate(file, o.GetKind(), o.GetName(), "suspend"),
					"%s is committed with suspend: true", objectRef(o)))
			}
		}
	}
	return out
}

func suspended(o *unstructured.Unstructured) bool {
	s, _, _ := unstructured.NestedBool(o.Object, "spec", "suspend")
	return s
}
