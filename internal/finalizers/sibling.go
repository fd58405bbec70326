package finalizers

import (
	"fmt"
	"sort"
	"strings"
)

// siblingOnly reports a workload that another component of the finalizer's product family
// runs. The finalizer's domain is (or is under) an API group the cluster serves types of,
// operator.example.io (its own group: the longest such group), whose name has a label more than
// its parent's; the workload acts only on that parent (example.io), not on the own group, and
// names no more of the own group than the parent (its name, namespace, images and product labels
// say "example", never "operator"). It shows that the family runs, not that the own group's
// controller does: that controller, which alone acts on those types, is gone, and the finalizer
// waits for it (controller-absent, reinstall first); it is not orphaned. line says so.
func siblingOnly(domain string, w workload, idx *productIndex, rb *rbacObjects) (string, bool) {
	own := ""
	for g := range idx.crdGroups {
		if (g == domain || strings.HasSuffix(domain, "."+g)) && len(g) > len(own) {
			own = g
		}
	}
	labels := strings.Split(own, ".")
	if own == "" || len(labels) < 3 || specificity(own, w) >= len(labels)-1 {
		return "", false
	}
	var parents []string
	for g := range rb.groupsOf(w.ref.Namespace, w.serviceAccount) {
		switch {
		case g == own || strings.HasSuffix(g, "."+own):
			return "", false
		case strings.HasSuffix(own, "."+g) && idx.crdGroups[g]:
			parents = append(parents, g)
		}
	}
	if len(parents) == 0 {
		return "", false
	}
	sort.Strings(parents)
	return fmt.Sprintf("%s acts on %s, a parent of %s, the API group of the finalizer's domain %s, and not on %s itself: another component of that family runs, not the controller of %s, which no workload acts on", w.ref.String(), strings.Join(parents, ", "), own, domain, own, own), true
}
