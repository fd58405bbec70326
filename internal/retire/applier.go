package retire

import "strings"

// Applier names the Flux object that applies the objects of the tier id: a ResourceSet for
// the tier of the objects a Flux Operator ResourceSet renders (id "ResourceSet/namespace/name",
// gitops.Tier.ID), else a Kustomization (id "namespace/name").
func Applier(id string) string {
	if rest, ok := strings.CutPrefix(id, "ResourceSet/"); ok {
		return "ResourceSet " + rest
	}
	return "Kustomization " + id
}
