package finalizers

import (
	"strings"
)

// protectionWords in a finalizer's name say that what it keeps is the object itself (a
// passphrase Secret's `…/protect-master-passphrase`, a `…-retain` finalizer), not a cleanup
// elsewhere.
var protectionWords = []string{"protect", "retain", "preserve"}

// nameProtectsSelf reports a finalizer whose name says it protects the object it is on. The
// registered ones (the core claim and volume protections) explain their own costs.
func nameProtectsSelf(name string) bool {
	if _, ok := registered(name); ok {
		return false
	}
	// The name after the domain: `dataprotection.kubeblocks.io/finalizer` protects nothing.
	lower := strings.ToLower(name[strings.LastIndex(name, "/")+1:])
	for _, w := range protectionWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// applyProtectsSelf adds to the cost of every strip of such a finalizer on a Secret or
// ConfigMap that the strip lets the deletion it protects against finish: the data the object
// holds is gone (piraeus-operator#402: the passphrase Secret's finalizer is removed only by
// hand, and its data must be backed up first). Other objects' strips say what they leave
// behind elsewhere; a data object's loss is its own.
func applyProtectsSelf(o subject, e *Explanation) {
	if o.res.Group != "" || (o.res.Resource != "secrets" && o.res.Resource != "configmaps") {
		return
	}
	what := e.Object.String() + " and the data it holds"
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if !nameProtectsSelf(f.Name) {
			continue
		}
		for j, r := range f.Remedies {
			if r.Code != ReasonStripFinalizer {
				continue
			}
			note := "the finalizer's name says it protects the object itself: the strip lets the deletion finish, and " + what + " are gone — keep a copy first if it may be needed again"
			if r.Cost == "" {
				f.Remedies[j].Cost = note
			} else {
				f.Remedies[j].Cost = note + "; " + r.Cost
			}
		}
	}
}
