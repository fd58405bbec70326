package finalizers

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeforensics/suite/internal/report"
)

// stallAfter is how long a running, Ready remover may show no work at all on a deleted object
// (no event, no write, no condition change since the deletion was requested, nor since it
// became Ready) before the finalizer counts as one it will not remove: twice the window in
// which its work counts as progress (recentWindow).
const stallAfter = 2 * recentWindow

// Stall is the evidence that a finalizer's remover runs but has made no progress on the object
// for longer than the stall grace period: the controller does not handle this finalizer any
// more (a newer version dropped it), or it fails on this object before it gets to it.
type Stall struct {
	// Remover is the controller most likely to remove the finalizer, running and Ready.
	Remover ObjectRef `json:"remover"`
	// ReadySince is when the remover's pods became Ready (the oldest Ready pod), when known.
	ReadySince *time.Time `json:"readySince,omitempty"`
	// Idle is how long the remover has run Ready while the object waited, e.g. "2h10m".
	Idle string `json:"idle"`
	// Evidence lists what the verdict rests on: the remover's readiness, no work on the
	// object since the deletion, no referrer, no pause marker, the object's own failing
	// conditions and a version marker older than the running remover.
	Evidence []string `json:"evidence"`
	// LikelyReasons are the general reasons a running remover leaves a finalizer, most likely
	// first.
	LikelyReasons []string `json:"likelyReasons"`
}

// failureWord, in a condition's type or reason, names a failure.
var failureWord = regexp.MustCompile(`(?i)fail|error|degraded|stalled`)

// versionKey marks an annotation or label that records which version of a controller wrote
// or manages the object (`common.k8s.elastic.co/controller-version`).
var versionKey = regexp.MustCompile(`(?i)version`)

// versionValue is a value shaped like a release version (`0.8.0`, `v1.2`).
var versionValue = regexp.MustCompile(`^v?[0-9]+\.[0-9]+(\.[0-9]+)?([-+][0-9A-Za-z.-]+)?$`)

// applyStalled gives the stalled-remover verdict to every finalizer whose most likely remover
// runs and is Ready, that nothing else explains (no blocker, referrer, pause marker, failed
// read), and on which the object shows no work at all since its deletion was requested, for
// longer than stallAfter counted from the request or from when the remover became Ready,
// whichever is later. The way out, in order: the remover's logs about the object, then removing
// that one finalizer by hand with its cost; never every finalizer at once.
func (x *Explainer) applyStalled(ctx context.Context, o subject, e *Explanation, w ownWord, requested time.Time) {
	if e.Deleting || len(activitySince(w, requested)) > 0 {
		return
	}
	changed := false
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if !removerRuns(*f) || len(f.Incomplete) > 0 || f.bypass == nil {
			continue
		}
		c := f.Controllers[0]
		ready, gap := x.readySince(ctx, c)
		if gap != (report.Gap{}) {
			f.Unchecked = append(f.Unchecked, gap)
		}
		since := requested
		if ready != nil && ready.After(since) {
			since = *ready
		}
		idle := x.now.Sub(since)
		if idle < stallAfter {
			continue
		}
		s := &Stall{Remover: c.Object, ReadySince: ready, Idle: Age(idle)}
		s.Evidence, s.LikelyReasons = x.stallEvidence(ctx, o, e, w, c, ready, requested, f.refs)
		ev, reasons, note, gaps := x.stallContext(ctx, o, c.Object)
		f.Unchecked = append(f.Unchecked, gaps...)
		s.Evidence, s.LikelyReasons = append(s.Evidence, ev...), append(reasons, s.LikelyReasons...)
		s.Evidence = append(s.Evidence, x.remoteNotes(ctx, o, w)...)
		f.Stalled = s
		f.Remedies = x.stalledRemedies(o, *f, s, note)
		dev, dreasons, dfixes, dgaps := x.removerDependencies(ctx, c)
		f.Unchecked = append(f.Unchecked, dgaps...)
		withDependencies(f, s, dev, dreasons, dfixes)
		bev, breasons, bfixes, bgaps := x.sharedBindingTaken(ctx, c)
		f.Unchecked = append(f.Unchecked, bgaps...)
		withFailedCleanup(f, s, bev, breasons, bfixes)
		fev, freasons, ffixes, fgaps := x.failedCleanup(ctx, o)
		f.Unchecked = append(f.Unchecked, fgaps...)
		withFailedCleanup(f, s, fev, freasons, ffixes)
		pev, preasons, pfixes, pgaps := x.unreadyPeers(ctx, o, w)
		f.Unchecked = append(f.Unchecked, pgaps...)
		withFailedCleanup(f, s, pev, preasons, pfixes)
		changed = true
	}
	if changed {
		// The strip's cost names what the object records outside the cluster.
		nameLeftovers(e, w.obj)
		x.leftDeployed(ctx, e, w.obj)
	}
}

// activitySince lists the work shown on the object after the deletion request: events, writes
// by field managers, condition changes.
func activitySince(w ownWord, requested time.Time) []string {
	var out []string
	for _, ev := range w.events {
		if sinceRequest(ev.Last, requested) {
			out = append(out, "event "+ev.Reason)
		}
	}
	for m := range w.writes {
		out = append(out, "write by "+m)
	}
	for _, c := range w.conditions {
		if c.LastTransition != nil && c.LastTransition.Truncate(time.Second).After(requested.Truncate(time.Second)) {
			out = append(out, "condition "+c.Type)
		}
	}
	return out
}

// readySince returns when the remover's pods became Ready: the oldest Ready condition among its
// running, Ready pods (it has run Ready at least since then). A failed read is returned.
func (x *Explainer) readySince(ctx context.Context, c Controller) (*time.Time, report.Gap) {
	ws, err := x.workloads(ctx)
	if err != nil {
		return nil, listGap(workloadsID(), "listing workloads to see since when "+c.Object.String()+" is Ready", err)
	}
	i := slices.IndexFunc(ws, func(w workload) bool { return w.ref.String() == c.Object.String() })
	if i < 0 || len(ws[i].podLabels) == 0 {
		return nil, report.Gap{}
	}
	pods, err := x.pods(ctx, c.Object.Namespace)
	if err != nil {
		return nil, listGap(typeID(podsResource, c.Object.Namespace), "listing pods in namespace "+c.Object.Namespace+" to see since when "+c.Object.String()+" is Ready", err)
	}
	sel := labels.SelectorFromSet(ws[i].podLabels)
	var oldest *time.Time
	for _, p := range pods {
		if p.DeletionTimestamp != nil || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue && !cond.LastTransitionTime.IsZero() {
				if t := cond.LastTransitionTime.UTC(); oldest == nil || t.Before(*oldest) {
					oldest = &t
				}
			}
		}
	}
	return oldest, report.Gap{}
}

// stallEvidence says what the stalled verdict rests on and the likely reasons, the ones the
// object itself supports first.
func (x *Explainer) stallEvidence(ctx context.Context, o subject, e *Explanation, w ownWord, c Controller, ready *time.Time, requested time.Time, refs *refRead) ([]string, []string) {
	readyLine := fmt.Sprintf("%s runs (%s ready)", c.Object.String(), c.Ready)
	if ready != nil {
		readyLine += fmt.Sprintf(", Ready since %s (%s)", ready.Format(time.RFC3339), Age(x.now.Sub(*ready)))
	}
	ev := []string{
		readyLine + ", and may update " + o.ref().QualifiedResource(),
		fmt.Sprintf("no work on the object since its deletion was requested %s ago: no event, no write by any field manager, no condition change", Age(x.now.Sub(requested))),
		noReferrerLine(refs),
		"no pause marker is on it or its owners",
	}
	if g := o.obj.GetGeneration(); g > 0 && w.obj != nil {
		if obs, ok := observedGeneration(w); ok && obs < g {
			ev = append(ev, fmt.Sprintf("its status.observedGeneration is %d, the object is at generation %d: the controller has not reconciled it since the deletion", obs, g))
		}
	}
	var failing []string
	for _, cond := range w.conditions {
		if conditionFails(cond) {
			failing = append(failing, fmt.Sprintf("%s=%s (%s: %s)", cond.Type, cond.Status, cond.Reason, cond.Message))
		}
	}
	if len(failing) > 0 {
		ev = append(ev, "the object's own conditions report a failure: "+strings.Join(failing, "; "))
	}
	marker := x.olderVersionMarker(ctx, o, c)
	if marker != "" {
		ev = append(ev, marker)
	}
	dropped := "its controller does not handle this finalizer any more: a newer version dropped it, or leaves alone objects an older version created"
	failingOn := "its controller fails on this object before it gets to the finalizer: its logs name the object, and its conditions and events say why"
	reasons := []string{dropped, failingOn, "the finalizer was added by hand, by a script, or by a feature that is no longer enabled"}
	if len(failing) > 0 && marker == "" {
		reasons[0], reasons[1] = failingOn, dropped
	}
	return ev, reasons
}

// noReferrerLine says what the search for referrers read when it found none: "no object refers
// to it" only over every candidate type read in full, with how many objects of which types.
func noReferrerLine(refs *refRead) string {
	if refs == nil {
		return "whether an object refers to it was not established"
	}
	if len(refs.types) == 0 {
		return "no object refers to it: no type the cluster serves can refer to it (none of its API group, no CRD schema naming its kind, no built-in reference field)"
	}
	return fmt.Sprintf("no object refers to it: read %s of %s that could (%s)", count(refs.objects, "object"), count(len(refs.types), "type"), refTypeNames(refs.types))
}

// refTypeNames names the types read, at most maxNamedTypes, with how many more.
func refTypeNames(types []refType) string {
	const maxNamedTypes = 6
	var names []string
	for i, t := range types {
		if i == maxNamedTypes {
			names = append(names, fmt.Sprintf("and %d more", len(types)-i))
			break
		}
		names = append(names, t.res.QualifiedName())
	}
	return strings.Join(names, ", ")
}

// observedGeneration reads status.observedGeneration from the object's body.
func observedGeneration(w ownWord) (int64, bool) {
	v, ok, err := unstructured.NestedInt64(w.obj.Object, "status", "observedGeneration")
	return v, ok && err == nil
}

// conditionFails reports a condition that says something failed: a Ready-like condition that
// is False, or a condition whose type or reason names a failure that is True.
func conditionFails(c Condition) bool {
	switch {
	case c.Status == string(corev1.ConditionFalse) && (c.Type == "Ready" || c.Type == "Available" || c.Type == "Synced" || c.Type == "Reconciled"):
		return true
	case c.Status == string(corev1.ConditionTrue) && failureWord.MatchString(c.Type):
		return true
	}
	return c.Status == string(corev1.ConditionFalse) && failureWord.MatchString(c.Reason)
}

// olderVersionMarker names an annotation or label on the object that records the version of
// the controller that wrote it when that version is not the one the running remover's images
// carry: objects an older version created, which a newer one may leave alone.
func (x *Explainer) olderVersionMarker(ctx context.Context, o subject, c Controller) string {
	ws, err := x.workloads(ctx)
	if err != nil {
		return ""
	}
	i := slices.IndexFunc(ws, func(w workload) bool { return w.ref.String() == c.Object.String() })
	if i < 0 {
		return ""
	}
	var tags []string
	for _, img := range ws[i].images {
		if t := imageTag(img); versionValue.MatchString(t) {
			tags = append(tags, strings.TrimPrefix(t, "v"))
		}
	}
	if len(tags) == 0 {
		return ""
	}
	marks := map[string]string{}
	for k, v := range o.obj.GetLabels() {
		marks["metadata.labels["+k+"]"] = v
	}
	for k, v := range o.obj.GetAnnotations() {
		marks["metadata.annotations["+k+"]"] = v
	}
	keys := slices.Sorted(maps.Keys(marks))
	for _, k := range keys {
		v := marks[k]
		name := k[strings.LastIndex(k, "/")+1:]
		if !versionKey.MatchString(name) || !versionValue.MatchString(v) || slices.Contains(tags, strings.TrimPrefix(v, "v")) {
			continue
		}
		return fmt.Sprintf("the object's %s is %q, a version other than the running remover's (its image tag %s): objects an older version created may be left alone by a newer one", k, v, strings.Join(tags, ", "))
	}
	return ""
}

// imageTag is the tag of an image reference, "" without one.
func imageTag(image string) string {
	if i := strings.Index(image, "@"); i >= 0 {
		image = image[:i]
	}
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		return image[i+1:]
	}
	return ""
}

// stalledRemedies are the way out of a stalled remover, in order: what its logs say about the
// object (the exact command), then removing that one finalizer by hand, with its cost. Steps
// that restore something else (a webhook's backend) keep their place before them.
// note, from what surrounds the object (stallContext), is added to the strip step.
func (x *Explainer) stalledRemedies(o subject, f Finalizer, s *Stall, note string) []Remediation {
	rest := slices.DeleteFunc(slices.Clone(f.Remedies), func(r Remediation) bool {
		return r.LastResort || r.Code == ReasonStripFinalizer || r.Code == ReasonReadControllerLogs
	})
	r := s.Remover
	logs := logsCommand{workload: r, flags: []string{"--all-containers", "--tail=2000"}, grep: o.obj.GetName()}
	read := Remediation{
		Code: ReasonReadControllerLogs,
		Summary: fmt.Sprintf("%s has run Ready for %s without acting on %s: look in its logs for the object (a finalizer it no longer handles is never mentioned; a failure on the object is), and at the object's own conditions and events.",
			r.String(), s.Idle, o.ref().String()),
		Command: x.logsCommand(logs),
		logs:    &logs,
	}
	strip := *f.bypass
	strip.Summary = fmt.Sprintf("Then, unless its logs show a failure you can fix (after which it removes the finalizer itself), remove finalizer %s by hand: its remover has run for %s without acting on the object.%s The patch removes only this entry, never the object's other finalizers, and the API server refuses it if the list changed since it was read.", f.Name, s.Idle, note)
	return append(append(rest, read), strip)
}
