package finalizers

import (
	"context"
	"fmt"
	"strings"
)

// maxAbsentReferrers bounds the referrers a reinstall step names.
const maxAbsentReferrers = 3

// applyAbsentReferrers qualifies the reinstall step of a finalizer no running controller
// removes when objects still refer to the stuck object: a controller that holds its finalizer
// while the object is in use (a runtime, class or template its objects name) keeps it after a
// reinstall as long as they do, so "it then removes the finalizer itself" is not true until they
// are gone. The step names them (at most three, with the field that refers); the search is the
// one "who refers to me" runs for a remover that runs. A failed read adds nothing: the step
// stays as it was, the gap is recorded.
func (x *Explainer) applyAbsentReferrers(ctx context.Context, o subject, e *Explanation) {
	var refs []referrer
	searched := false
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		j := -1
		for k, r := range f.Remedies {
			if r.Code == ReasonReinstallController {
				j = k
				break
			}
		}
		if j < 0 || len(f.Blockers) > 0 {
			continue
		}
		if !searched {
			found, _, gaps := x.findReferrers(ctx, o)
			refs, searched = dropControlledChildren(found, o.obj.GetUID()), true
			e.Unchecked = append(e.Unchecked, gaps...)
		}
		if len(refs) == 0 {
			return
		}
		var named []string
		for n, r := range refs {
			if n == maxAbsentReferrers {
				named = append(named, fmt.Sprintf("and %d more", len(refs)-n))
				break
			}
			named = append(named, fmt.Sprintf("%s (%s)", refFor(r.res, r.obj.GetNamespace(), r.obj.GetName()).String(), strings.Join(r.paths, ", ")))
		}
		f.Remedies[j].Summary += referrersNote(f.Name, named, len(refs))
	}
}

// referrersNote is what a reinstall step adds for the referrers named (count in all).
func referrersNote(finalizer string, named []string, count int) string {
	verb, they, them := "still refers", "it does", "it"
	if count > 1 {
		verb, they, them = "still refer", "they do", "them"
	}
	return fmt.Sprintf(" But %s %s to the object: a controller that holds %s while the object is in use keeps it after the reinstall as long as %s — delete or repoint %s first, or remove the finalizer by hand.", strings.Join(named, ", "), verb, finalizer, they, them)
}
