package finalizers

import "k8s.io/apimachinery/pkg/types"

// dropControlledChildren leaves out the referrers that refer to the object only through an
// ownerReference that makes it their controller, and that are not being deleted themselves:
// the object's own children (a task record, a generated Deployment). They are not what its
// remover waits for: the remover made them and may delete them, and one that waited for them
// would have deleted them; the garbage collector deletes them once the object is gone, so
// removing the finalizer leaves no reference pointing at nothing. A child that is being deleted
// (its own finalizer holding it) and any reference through the spec stay referrers.
func dropControlledChildren(refs []referrer, uid types.UID) []referrer {
	out := refs[:0:0]
	for _, r := range refs {
		if !controlledChild(r, uid) {
			out = append(out, r)
		}
	}
	return out
}

// controlledChild reports a referrer held only by a controller ownerReference to uid.
func controlledChild(r referrer, uid types.UID) bool {
	if r.obj.GetDeletionTimestamp() != nil || len(r.paths) != 1 || r.paths[0] != "metadata.ownerReferences" {
		return false
	}
	for _, ref := range r.obj.GetOwnerReferences() {
		if ref.UID == uid {
			return ref.Controller != nil && *ref.Controller
		}
	}
	return false
}
