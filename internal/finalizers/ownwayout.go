package finalizers

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// maxDescription bounds the schema description quoted for a switch.
const maxDescription = 240

// removerCannotFinish reports a finalizer whose remover runs, Ready, that nothing pauses and that
// is not orphaned, while what the object shows says its outside work does not finish: the
// remover stalled on it, a record of that work made for it shows it failing (companions), or
// the object's own status or conditions record a failure.
func removerCannotFinish(f Finalizer, w ownWord, companions int) bool {
	if len(f.Controllers) == 0 || !f.Controllers[0].Found || !f.Controllers[0].Healthy || f.Orphaned || len(f.Paused) > 0 {
		return false
	}
	if f.Stalled != nil || companions > 0 {
		return true
	}
	if field, _, _, _ := statusFailure(w.obj); field != "" {
		return true
	}
	return slices.ContainsFunc(w.conditions, conditionFails)
}

// applyOwnWayOut gives a finalizer whose remover runs but whose outside work cannot finish
// (removerCannotFinish) the object's own way out. The record of the work its controller made for
// it (a deprovision, a cleanup: companions), whose status shows the work failing or never
// finishing, is the blocker, named with how it fails and the command that shows why. A switch
// the object's spec offers to let it go without that work (optOuts: `preserveOnDelete`, a
// deletion policy that orphans) comes first of all steps, before any strip: the controller then
// removes the finalizer itself, knowingly, where a strip does it behind its back; both leave
// what the work would have removed, now unmanaged, named from what the object records.
func (x *Explainer) applyOwnWayOut(ctx context.Context, o subject, e *Explanation, w ownWord) {
	if w.obj == nil {
		return
	}
	left := recordedResources(w.obj)
	var switches []optOut
	read := false
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if len(f.Controllers) == 0 || !f.Controllers[0].Found || !f.Controllers[0].Healthy {
			continue
		}
		comps, gaps := x.companions(ctx, o, f.Name)
		f.Unchecked = append(f.Unchecked, gaps...)
		if !removerCannotFinish(*f, w, len(comps)) {
			continue
		}
		if !read {
			switches, read = x.objectOptOuts(ctx, o, w.obj), true
		}
		var steps []Remediation
		for _, s := range switches {
			steps = append(steps, x.optOutStep(o, *f, s, left))
		}
		for _, c := range comps {
			f.Blockers = append(f.Blockers, Blocker{Object: c.ref(), Code: ReasonCompanionUnfinished, labels: c.obj.GetLabels(),
				Reason:  "made for it by its controller to do " + f.Name + "'s work (" + c.tie + "): " + c.state,
				Details: []string{"exists and is not being deleted"}})
			if f.Stalled != nil {
				f.Stalled.Evidence = append([]string{"the work made for it does not finish: " + c.ref().String() + ": " + c.state}, f.Stalled.Evidence...)
			}
			steps = append(steps, x.companionStep(*f, c, len(switches) > 0))
		}
		if len(steps) == 0 {
			continue
		}
		f.Remedies = append(steps, slices.DeleteFunc(slices.Clone(f.Remedies), func(r Remediation) bool {
			return slices.ContainsFunc(steps, func(s Remediation) bool { return s.Summary == r.Summary })
		})...)
	}
}

// optOutStep is the exact command that sets one switch, what it does and what it leaves.
func (x *Explainer) optOutStep(o subject, f Finalizer, s optOut, left []string) Remediation {
	r := o.ref()
	now := "not set"
	if s.now != "" {
		now = "now " + s.now
	}
	said := ""
	if d := strings.Join(strings.Fields(s.description), " "); d != "" {
		d = clip(d, maxDescription)
		said = fmt.Sprintf(" (its schema: %q)", d)
	}
	cost := "left behind, now unmanaged: whatever " + f.Name + "'s work would have removed outside the cluster"
	if len(left) > 0 {
		cost = "left behind, now unmanaged: what " + f.Name + "'s work would have removed; the object records " + strings.Join(left, ", ")
	}
	return Remediation{
		Code: ReasonOptOutOfCleanup,
		Summary: fmt.Sprintf("Set %s to %v on %s (%s)%s: the object's own switch to be let go without %s's outside work, which does not finish. Its controller, %s, then removes the finalizer itself and knows nothing was cleaned up, which a strip does behind its back. Do it once what that work would remove is dealt with outside the cluster, or may stay.",
			s.field(), s.value, r.String(), now, said, f.Name, f.Controllers[0].Object.String()),
		Command: x.kubectl(r.Namespace, "patch", r.QualifiedResource(), r.Name, "--type=merge", "-p", optOutPatch(s)),
		Cost:    cost,
		request: updateRequest(o.res, r.Namespace, o.obj.GetLabels()),
	}
}

// companionStep shows why the work made for the object does not finish.
func (x *Explainer) companionStep(f Finalizer, c companion, switched bool) Remediation {
	r := c.ref()
	other := "If the work cannot finish (what it cleans up is out of its reach), remove " + f.Name + " by hand as a last resort, with its cost."
	if switched {
		other = "If the work cannot finish (what it cleans up is out of its reach), the object's own switch above lets it go without it."
	}
	return Remediation{
		Code: ReasonFixCompanionWork,
		Summary: fmt.Sprintf("%s, which its controller made to do %s's work, shows that work not finishing: %s. Its status, events and the Job it controls say why; fix that, and %s finishes the work and removes %s itself. %s",
			r.String(), f.Name, c.state, f.Controllers[0].Object.String(), f.Name, other),
		Command: x.kubectl(r.Namespace, "describe", r.QualifiedResource(), r.Name),
	}
}
