package flux

import (
	"fmt"
	"github.com/fluxcd/cli-utils/pkg/object"
	"sort"
	"strings"
)

// explainMissingKinds tells, for each `no matches for kind` a root cause reports, that a custom
// resource is applied before its CRD, and which Kustomization applies that CRD (found in the
// inventories) — the tier the failing one must depend on.
func explainMissingKinds(c *Chain, objs *Objects) {
	crdOwners := map[string][]string{} // CRD name (plural.group) -> Kustomization ids
	for i := range objs.Kustomizations {
		ks := &objs.Kustomizations[i]
		if ks.Status.Inventory == nil {
			continue
		}
		for _, e := range ks.Status.Inventory.Entries {
			m, err := object.ParseObjMetadata(e.ID)
			if err == nil && m.GroupKind.Kind == "CustomResourceDefinition" {
				crdOwners[m.Name] = append(crdOwners[m.Name], ks.Namespace+"/"+ks.Name)
			}
		}
	}
	for i := range c.RootCauses {
		rc := &c.RootCauses[i]
		for _, mk := range rc.Failure.MissingKinds {
			rc.Explanation = append(rc.Explanation, explainMissingKind(rc.Kustomization, mk, crdOwners))
		}
	}
}

// explainMissingKind words one CR-before-CRD failure.
func explainMissingKind(id string, mk MissingKind, crdOwners map[string][]string) string {
	group, _, _ := strings.Cut(mk.Version, "/")
	prefix := strings.ToLower(mk.Kind)
	var owners []string
	for name, ids := range crdOwners {
		if strings.HasSuffix(name, "."+group) && strings.HasPrefix(name, prefix) {
			for _, o := range ids {
				if o != id {
					owners = append(owners, o)
				}
			}
		}
	}
	sort.Strings(owners)
	base := fmt.Sprintf("a %s (%s) is applied before its CRD exists", mk.Kind, mk.Version)
	if len(owners) == 0 {
		return base + "; no Kustomization in scope applies that CRD: install it in an upstream tier that this one dependsOn, with wait: true"
	}
	return fmt.Sprintf("%s; the CRD is applied by %s: add it to dependsOn of %s (and give it wait: true), or move the custom resource to a later tier",
		base, joinList(owners), kustomizationRef(id))
}
