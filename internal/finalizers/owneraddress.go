package finalizers

// ownerAddressPath is the spec field that holds an in-cluster address of the object's owner
// itself (`pod://<owner>.<namespace>:9070`, `<owner>.<namespace>.svc`): the first two DNS labels
// of the address are the owner's name and namespace (parseServiceAddress's shape). An object that
// records where its owner answers is one its controller reaches through that owner: a
// CSIAddonsNode registered by a CSI pod's sidecar, owned by that pod, its endpoint
// pod://<pod>.<namespace>:9070 (csi-addons/kubernetes-csi-addons#237, whose controller resolves
// the endpoint before it removes its finalizer). "" when no field does, or the owner is
// cluster-scoped (an address names a namespace).
func ownerAddressPath(spec map[string]any, owner ObjectRef) string {
	if owner.Name == "" || owner.Namespace == "" {
		return ""
	}
	for _, a := range serviceAddresses(spec) {
		if a.name == owner.Name && a.namespace == owner.Namespace {
			return a.path
		}
	}
	return ""
}
