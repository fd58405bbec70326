package finalizers

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// installs says whether workload a installed workload b, and on what evidence: b's
// app.kubernetes.io/managed-by label names a (its name, or its app.kubernetes.io/name or app
// label), b's ownerReferences name a itself, or b is owned by a custom resource of an API group
// a's service account may act on (an operator that deploys a controller for each of its custom
// resources). Broad rights to install are no evidence that a removes b's finalizers.
func installs(a, b workload, rb *rbacObjects) (string, bool) {
	if a.ref == b.ref {
		return "", false
	}
	if v := b.labels["app.kubernetes.io/managed-by"]; v != "" && (v == a.ref.Name || v == a.labels["app.kubernetes.io/name"] || v == a.labels["app"]) {
		return fmt.Sprintf("%s carries app.kubernetes.io/managed-by=%s, which names %s", b.ref.String(), v, a.ref.String()), true
	}
	var groups map[string]string
	for _, or := range b.owners {
		gv, err := schema.ParseGroupVersion(or.APIVersion)
		if err != nil {
			continue
		}
		if gv.Group == a.ref.Group && or.Kind == a.ref.Kind && or.Name == a.ref.Name && b.ref.Namespace == a.ref.Namespace {
			return fmt.Sprintf("%s is owned by %s", b.ref.String(), a.ref.String()), true
		}
		if gv.Group == "" || gv.Group == "apps" {
			continue
		}
		if groups == nil {
			groups = rb.groupsOf(a.ref.Namespace, a.serviceAccount)
		}
		if via, ok := groups[gv.Group]; ok {
			return fmt.Sprintf("%s is owned by %s %s (%s), a custom resource %s acts on through %s", b.ref.String(), or.Kind, or.Name, gv.Group, a.ref.String(), via), true
		}
	}
	return "", false
}

// installersLast ranks a candidate that installed another tied candidate below the one it
// installed, whatever their confidence: the installed controller is the remover, the installer
// only "installs the remover" (an operator that manages the real controller's Deployment has
// broad rights on that controller's types, which outrank it otherwise).
func installersLast(tied []Controller, byRef map[string]workload, rb *rbacObjects) []Controller {
	installer := map[int]bool{}
	for i, a := range tied {
		wa, ok := byRef[a.Object.String()]
		if !ok || !a.Found {
			continue
		}
		for j, b := range tied {
			wb, ok := byRef[b.Object.String()]
			if i == j || !ok || !b.Found {
				continue
			}
			if why, ok := installs(wa, wb, rb); ok {
				if _, back := installs(wb, wa, rb); back {
					continue
				}
				installer[i] = true
				tied[i].Evidence = append(tied[i].Evidence, "installs the remover "+b.Object.String()+": "+why)
				tied[i].Note = "installs the remover " + b.Object.String() + ", which removes the finalizer; this one is not its remover"
			}
		}
	}
	if len(installer) == 0 {
		return tied
	}
	idx := make([]int, len(tied))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return !installer[idx[i]] && installer[idx[j]] })
	out := make([]Controller, 0, len(tied))
	for _, i := range idx {
		out = append(out, tied[i])
	}
	return out
}
