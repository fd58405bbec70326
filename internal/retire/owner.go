package retire

import (
	"strings"

	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/resourceset"
)

// owner is what applied a removed object and prunes it: a Flux Kustomization, or a Flux
// Operator ResourceSet (a tier id "ResourceSet/namespace/name", gitops.OwnerResourceSet).
type owner struct {
	resourceSet     bool
	namespace, name string
}

// ownerOf reads a Removal's Kustomization id.
func ownerOf(id string) owner {
	rest, rset := strings.CutPrefix(id, gitops.OwnerResourceSet+"/")
	ns, name, _ := strings.Cut(rest, "/")
	return owner{resourceSet: rset, namespace: ns, name: name}
}

// applied says how the protect command shows the owner applied the merged change.
func (o owner) applied() string {
	if o.resourceSet {
		return "the ResourceSet above is Ready again after the merge"
	}
	return "the lastAppliedRevision above is the merged commit"
}

// resource is the owner's resource for kubectl.
func (o owner) resource() string {
	if o.resourceSet {
		return "resourceset"
	}
	return "kustomization"
}

// groupKind is the owner's kind with its group, as cluster.InvalidName takes it.
func (o owner) groupKind() string {
	if o.resourceSet {
		return resourceset.GroupKind
	}
	return "Kustomization.kustomize.toolkit.fluxcd.io"
}

// String names the owner as the plan says it: "Kustomization flux-system/apps",
// "ResourceSet flux-system/apps".
func (o owner) String() string {
	kind := "Kustomization"
	if o.resourceSet {
		kind = gitops.OwnerResourceSet
	}
	return kind + " " + o.namespace + "/" + o.name
}
