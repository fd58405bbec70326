package finalizers

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// maxLeftDeployed bounds the workloads named as left running in a target namespace.
const maxLeftDeployed = 5

// leftDeployed adds to every strip's cost what the object's controller deployed for it and what
// only its finalizer would remove: the workloads that run in the namespace the object's spec
// names as its target (`spec.targetNamespace`, the namespace an operator installs its operand
// into), when that namespace is not the object's own. Removing the finalizer by hand leaves them
// running, with nothing to uninstall them. Read from the object and the cluster's workloads; a
// failed list leaves the cost as it was, recorded as unchecked.
func (x *Explainer) leftDeployed(ctx context.Context, e *Explanation, obj *unstructured.Unstructured) {
	if obj == nil {
		return
	}
	spec, _ := obj.Object["spec"].(map[string]any)
	target := ""
	path := ""
	for k, v := range spec {
		if s, ok := v.(string); ok && strings.EqualFold(k, "targetNamespace") && validName(s) {
			target, path = s, "spec."+k
		}
	}
	if target == "" || target == obj.GetNamespace() {
		return
	}
	ws, err := x.workloads(ctx)
	if err != nil {
		for i := range e.Finalizers {
			e.Finalizers[i].Unchecked = append(e.Finalizers[i].Unchecked, listGap(workloadsID(), "listing workloads to name what runs in namespaces/"+target, err))
		}
		return
	}
	var left []string
	for _, w := range ws {
		if w.ref.Namespace == target {
			left = append(left, w.ref.String())
		}
	}
	if len(left) == 0 {
		return
	}
	sort.Strings(left)
	if len(left) > maxLeftDeployed {
		left = append(left[:maxLeftDeployed], fmt.Sprintf("and %d more", len(left)-maxLeftDeployed))
	}
	what := fmt.Sprintf("what its controller deployed into namespaces/%s, which the object's %s names, keeps running with nothing to uninstall it: %s", target, path, strings.Join(left, ", "))
	for i := range e.Finalizers {
		for j := range e.Finalizers[i].Remedies {
			if r := &e.Finalizers[i].Remedies[j]; r.Code == ReasonStripFinalizer && strings.HasPrefix(r.Cost, "left behind: ") && !strings.Contains(r.Cost, what) {
				r.Cost = strings.TrimSuffix(r.Cost, ".") + "; " + what
			}
		}
	}
}
