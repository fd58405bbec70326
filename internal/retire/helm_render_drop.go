package retire

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/retire/helm"
)

// judgeHelmDrop decides a removal Helm makes: an object with helm.sh/resource-policy: keep is
// left in place, unmanaged; any other is deleted, which is unsafe when it holds persistent
// state. Flux's prune settings play no part: Helm deletes what its new manifest drops.
func judgeHelmDrop(r *Removal, k Kinds, all []*unstructured.Unstructured) {
	d := r.HelmDrop
	r.Persistent = k.Persistence(r, all)
	r.Unsafe = false
	r.resetReasons()
	how := fmt.Sprintf("helm-controller upgrades release %s (HelmRelease %s, chart %s to %s) and Helm deletes %s, which the new manifest no longer has", d.Release, d.HelmRelease, d.FromText(), d.To, r.Object)
	if d.Reinstall != "" {
		how = fmt.Sprintf("the candidate reinstalls release %s (HelmRelease %s: %s): helm-controller uninstalls it first, deleting %s of its old manifest", d.Release, d.HelmRelease, d.Reinstall, r.Object)
	}
	if d.Suspended {
		how += " once the HelmRelease is resumed (the candidate sets spec.suspend: true, which only postpones it)"
	}
	if v := r.base.GetAnnotations()[HelmResourcePolicyAnnotation]; helm.IsKeep(v) {
		r.Outcome, r.OptOut = Retained, HelmResourcePolicyAnnotation+": keep (Helm leaves it in place, no longer managed by the release)"
		r.classify()
		return
	}
	r.Outcome = Pruned
	if r.Persistent == nil {
		r.classify()
		return
	}
	r.Unsafe = true
	code := ReasonHelmUpgradeDeletesPersistent
	if d.Reinstall != "" {
		code = ReasonHelmReinstallPersistent
	}
	r.addReason(code, fmt.Sprintf("%s; it holds persistent state (%s), and nothing protects it", how, r.Persistent.Detail))
}

// planHelmDrop is the plan of an unsafe object Helm deletes: protect it with
// helm.sh/resource-policy: keep through the chart before the change, then drain and delete by
// hand.
func (p Planner) planHelmDrop(r *Removal) {
	d := r.HelmDrop
	hrNS, hrName, _ := strings.Cut(d.HelmRelease, "/")
	protect := Stage{Number: 1, Title: "protect",
		Do: []string{
			fmt.Sprintf("in git, before this change, make the chart put the annotation %s: keep on %s (chart values that set it, e.g. app-template's retain: true, or a spec.postRenderers kustomize patch on HelmRelease %s)", HelmResourcePolicyAnnotation, r.Object, d.HelmRelease),
			"merge that change alone",
			fmt.Sprintf("wait until HelmRelease %s has upgraded to it", d.HelmRelease),
		},
		Commands: []string{p.kubectl(hrNS, "get", "helmrelease.helm.toolkit.fluxcd.io", hrName)},
		Check:    p.kubectl(r.Object.Namespace, "get", r.Object.Resource(), r.Object.Name, "-o", `jsonpath={.metadata.annotations.helm\.sh/resource-policy}`),
		Expect:   "keep",
	}
	remove := Stage{Number: 3, Title: "change the release",
		Do: []string{"merge this change: Helm leaves " + r.Object.String() + " in place, no longer in the release"},
	}
	r.Plan = []Stage{protect, p.drain(r), remove, p.delete(r)}
}
