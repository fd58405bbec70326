package finalizers

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// createdRe finds an event that reports making something: its reason or the first word of its
// message (Created, SuccessfulCreate, Creating, Recreated).
var createdRe = regexp.MustCompile(`(?i)^(successful)?(re)?creat(e|ed|ing)\b|^(successful)?(re)?create$`)

// applyRecreatedDependents reads, for an owner under foreground deletion, whether something
// keeps making a dependent the garbage collector waits for: an event on the owner, reported
// since its deletion by a component other than Kubernetes' own, saying it created an object
// the blockers name (`Created Pod shop/x`). The collector deletes the dependent and waits, the
// component makes it again, and the owner never goes: that component is the blocker's cause,
// and the step is to stop it (scale the workload it answers to down until the owner is gone),
// never to clear the dependent's own blockers, which are not the cause.
func (x *Explainer) applyRecreatedDependents(ctx context.Context, o subject, f *Finalizer) {
	del := o.obj.GetDeletionTimestamp()
	if del == nil || len(f.Blockers) == 0 {
		return
	}
	events, err := x.eventsAbout(ctx, o, del.Time)
	if err != nil {
		f.Unchecked = append(f.Unchecked, listGap(objectID("", "v1", "events", o.obj.GetNamespace(), ""), "reading whether a controller re-creates the dependents", err))
		return
	}
	for _, ev := range events {
		if ev.Source == "" || slices.Contains(kubernetesSources, strings.ToLower(ev.Source)) || strings.HasPrefix(ev.Source, "kubernetes.io/") || strings.Contains(strings.ToLower(ev.Source), "garbage") {
			continue
		}
		if !createdRe.MatchString(ev.Reason) && !createdRe.MatchString(splitFirst(ev.Message)) {
			continue
		}
		for i := range f.Blockers {
			b := &f.Blockers[i]
			if b.Code != ReasonForegroundDependent || !namesDependent(ev.Message, b.Object) {
				continue
			}
			times := ""
			if ev.Count > 1 {
				times = fmt.Sprintf(", %d times", ev.Count)
			}
			who := ev.Source
			var w *workload
			if ws, err := x.workloads(ctx); err == nil {
				for j := range ws {
					if _, ok := answersTo(ev.Source, ws[j]); ok {
						w = &ws[j]
						who = ws[j].ref.String()
						break
					}
				}
			}
			b.Reason += fmt.Sprintf("; %s makes it again after the owner's deletion (event %s from %s%s, last %s ago): the collector deletes it and waits, and it comes back", who, ev.Reason, ev.Source, times, Age(x.now.Sub(ev.Last)))
			step := Remediation{Code: ReasonStopRecreating,
				Summary: fmt.Sprintf("Stop %s from making %s again while its owner is being deleted: it reconciles the owner as if it stayed. Upgrade it to a version that leaves an owner under deletion alone, or scale it down until the owner is gone, then back; the collector then deletes the dependent and the owner goes.", who, b.Object.String())}
			if w != nil && (w.ref.Kind == "Deployment" || w.ref.Kind == "StatefulSet") {
				step.Command = x.kubectl(w.ref.Namespace, "scale", w.ref.QualifiedResource(), w.ref.Name, "--replicas=0")
				step.Cost = "while it is scaled down it reconciles none of its other objects; scale it back (to its replicas before) once the owner is gone"
			}
			f.Remedies = append([]Remediation{step}, slices.DeleteFunc(f.Remedies, func(r Remediation) bool {
				return r.Code == "" && strings.Contains(r.Summary, "are themselves Terminating")
			})...)
			return
		}
	}
}

// namesDependent reports whether an event's message names the dependent: `<namespace>/<name>`
// or its name as a whole word.
func namesDependent(message string, dep ObjectRef) bool {
	for _, w := range strings.FieldsFunc(message, func(r rune) bool {
		return r == ' ' || r == '"' || r == '\'' || r == ',' || r == ':' || r == '(' || r == ')'
	}) {
		if w == dep.Name || (dep.Namespace != "" && w == dep.Namespace+"/"+dep.Name) {
			return true
		}
	}
	return false
}

// splitFirst is the first word of an event's message.
func splitFirst(message string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(message), " ")
	return first
}
