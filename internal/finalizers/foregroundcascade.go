package finalizers

// withoutCascade drops the referents whose deletion is the foreground cascade reaching the stuck
// object rather than something that holds it: an owner in foreground deletion for which the
// object is a blocking dependent, named by nothing in the object's spec (only by its
// ownerReferences, or by inference). Such an owner is what deletes its dependents: it waits for
// this object, and its going takes nothing from the object's cleanup that the cluster shows;
// nothing shows the controller retrying for ever because of it. An owner the spec also names
// (a database server a user is dropped from) stays a referent that is going. What does hold the
// object is left to the other rules (the remover's health, what the object names that is not
// ready, and, failing those, a stalled remover with its logs first).
func withoutCascade(going []goingReferent) []goingReferent {
	var out []goingReferent
	for _, g := range going {
		if g.waits && !g.specNamed {
			continue
		}
		out = append(out, g)
	}
	return out
}
