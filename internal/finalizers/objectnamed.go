package finalizers

import "strings"

// namedForObject reports whether a finalizer that looks like it has a domain is in fact named for
// the object itself: the last label of its "domain" is the object's own name (`db.blab-ticketing`
// on the Database blab-ticketing). No product's domain ends in one object's name, so the name says
// nothing about which product removes it: like a finalizer without a domain, only RBAC can say,
// and no "controller of the domain" is looked for (its absence would be no evidence of anything).
func namedForObject(finalizer, object string) bool {
	// What the finalizer writes as a domain, whether or not it reads as one (finalizerDomain):
	// `db.blab-ticketing` ends in no top-level domain, and is exactly this rule's case.
	d, _, _ := strings.Cut(finalizer, "/")
	if !strings.Contains(d, ".") || object == "" {
		return false
	}
	return strings.ToLower(d[strings.LastIndex(d, ".")+1:]) == strings.ToLower(object)
}

// objectNamedKnown is what is known of a finalizer named for its object.
func objectNamedKnown(name string) known {
	return known{
		removedBy: "whichever controller added it: " + name + " is named for the object itself, not for a product's domain, so only RBAC can say who may remove it",
		waitsFor:  "that controller finishes its cleanup for this object",
		lost:      "whatever that controller would have cleaned up",
	}
}
