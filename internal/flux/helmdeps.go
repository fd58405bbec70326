package flux

// The root causes of HelmReleases that wait on other HelmReleases (spec.dependsOn).
// helm-controller holds a HelmRelease back (Ready=False, reason DependencyNotReady) while a
// dependency does not exist, or is not Ready at its current generation, or fails its readyExpr.
// The walk mirrors the Kustomizations' one: the dependency that is not Ready for its own reason
// is the cause, the HelmReleases waiting on it are what it holds back, and the Kustomizations
// whose health check fails on those are its tiers.

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// Reasons of a HelmRelease cause that its own Ready condition does not give.
const (
	// ReasonDependencyUnread: a HelmRelease waits on one the chain could not read (forbidden,
	// or in a namespace not read); whether that one exists or is Ready is UNKNOWN.
	ReasonDependencyUnread = "DependencyUnread"
	// ReasonGenerationNotObserved: a HelmRelease is Ready=True but its status.observedGeneration
	// is behind its generation; helm-controller's dependency check wants both, so its dependents
	// wait.
	ReasonGenerationNotObserved = "GenerationNotObserved"
	// ReasonNoStatus: a HelmRelease has no Ready condition yet.
	ReasonNoStatus = "NoStatus"
)

// helmEntry is one HelmRelease read, with what the walk needs beyond what the chain reports.
type helmEntry struct {
	HelmRelease
	// appliedBy is the Kustomization (namespace/name) of the chain that applies it; "" when
	// none does.
	appliedBy            string
	generation, observed int64
}

// helmIndex is every HelmRelease read, by namespace/name, and why one that was not read is
// absent (Objects.helmReleaseAbsent).
type helmIndex struct {
	byID   map[string]*helmEntry
	absent func(id string) (missing bool, why string, warned bool)
}

// id is the HelmRelease's namespace/name.
func (hr *HelmRelease) id() string { return hr.Namespace + "/" + hr.Name }

// readyExpr is hr's readyExpr on dependency dep, or nil.
func (hr *HelmRelease) readyExpr(dep string) *ReadyExpr {
	i := slices.IndexFunc(hr.ReadyExprs, func(r ReadyExpr) bool { return r.Dependency == dep })
	if i < 0 {
		return nil
	}
	return &hr.ReadyExprs[i]
}

// addHelmReleaseWaits walks up from every waiting HelmRelease a Kustomization of the chain
// applies, recording what holds it back, and returns a StaleWait finding for each one it found
// nothing behind.
func (cs *causes) addHelmReleaseWaits(ids []string) []Finding {
	var stale []Finding
	for _, id := range ids {
		for i := range cs.nodes[id].HelmReleases {
			hr := &cs.nodes[id].HelmReleases[i]
			if !hr.waiting() || hr.Suspend || len(cs.helmWalk(hr.id())) > 0 {
				continue
			}
			stale = append(stale, Finding{Kind: FindingStaleWait, Kustomization: id,
				Message: fmt.Sprintf("its HelmRelease %s waits on dependencies that are ready now; helm-controller retries every --requeue-dependency (30s by default)", hr.id())})
		}
	}
	return stale
}

// helmWalk returns the keys of the causes that hold the waiting HelmRelease id back, walking
// each HelmRelease once per analysis; a dependency whose walk is under way closes a cycle.
func (cs *causes) helmWalk(id string) []string {
	if keys, ok := cs.helmHeld[id]; ok {
		return keys
	}
	e := cs.helm.byID[id]
	cs.walks++
	cs.helmWalking[id] = true
	defer delete(cs.helmWalking, id)
	own := helmReleaseKey(e.Namespace, e.Name)
	var keys []string
	if cs.byKey[own] != nil {
		keys = append(keys, own) // a readyExpr that is false or does not evaluate
	}
	waitsOn := ParseFailure(e.Ready.Message)
	var cycle []string
	for _, dep := range e.DependsOn {
		if re := e.readyExpr(dep); re != nil {
			// A false or unevaluated readyExpr is the waiter's own cause already; one that holds
			// replaces the built-in check, unless helm-controller's AdditiveCELDependencyCheck
			// gate adds it: then its message names dep.
			if re.Ready == nil || !*re.Ready || waitsOn.Dependency != dep || waitsOn.ReadyExpr {
				continue
			}
		}
		if cs.helmWalking[dep] {
			cycle = append(cycle, dep)
			continue
		}
		keys = append(keys, cs.helmBlocks(e, dep)...)
	}
	if len(keys) == 0 && len(cycle) > 0 {
		cs.helmOwn(e, ReasonDependencyCycle, "its dependsOn leads back to itself through "+helmReleaseRefs(cycle)+": helm-controller waits on them forever")
		keys = append(keys, own)
	}
	keys = slices.Compact(slices.Sorted(slices.Values(keys)))
	for _, k := range keys {
		if rc := cs.byKey[k]; k != own && !slices.Contains(rc.HeldBack, id) {
			rc.HeldBack = append(rc.HeldBack, id)
		}
	}
	cs.helmHeld[id] = keys
	return keys
}

// helmBlocks returns the keys of the causes that dependency dep of the waiting e holds it back
// with: dep's own when it was not read or is not Ready for its own reason, and what holds dep
// back when it waits too.
func (cs *causes) helmBlocks(e *helmEntry, dep string) []string {
	d, ok := cs.helm.byID[dep]
	if !ok {
		return []string{cs.helmAbsent(e, dep)}
	}
	switch {
	case d.waiting() && !d.Suspend:
		return cs.helmWalk(dep)
	case d.Ready != nil && d.Ready.Status == string(metav1.ConditionTrue) && d.generation == d.observed:
		return nil // helm-controller's check passes: a stale wait, unless another dependency holds it
	}
	return cs.helmNotReady(d)
}

// helmAbsent records dep, a HelmRelease the waiting e depends on that was not read, as one cause
// for every HelmRelease that waits on it: NotFound when the server says it does not exist,
// DependencyUnread (UNKNOWN) when the chain could not tell. It returns its key.
func (cs *causes) helmAbsent(e *helmEntry, dep string) string {
	ns, name := splitID(dep)
	key := helmReleaseKey(ns, name)
	if cs.byKey[key] != nil {
		return key
	}
	ref := helmReleaseRef(ns, name)
	missing, why, warned := cs.helm.absent(dep)
	rc := &RootCause{Object: ref, Reason: ReasonNotFound,
		Message: "does not exist: helm-controller holds back every HelmRelease whose dependsOn names it until it does"}
	if !missing {
		rc.Reason, rc.Message = ReasonDependencyUnread, "the chain could not read it: "+why
	}
	if !missing && !warned {
		// a read that failed is incomplete already; one the chain did not make is not
		rc.unread = append(rc.unread, report.Gap{Op: report.OpGet, Subject: gvrID(HelmReleaseGVR, ns, name), Reason: report.GapNotRead, What: "reading " + ref + ", which " + helmReleaseRef(e.Namespace, e.Name) + " depends on", Error: why})
	}
	if cs.nodes[dep] != nil {
		rc.Explanation = append(rc.Explanation, "a Kustomization of that name exists ("+kustomizationRef(dep)+"), but a HelmRelease's dependsOn names HelmReleases only: it never matches")
	}
	cs.byKey[key] = rc
	return key
}

// helmOwn records reason and message as the waiting e's own cause (the first reason found
// heads it, later ones are explanation) and returns its key.
func (cs *causes) helmOwn(e *helmEntry, reason, message string) string {
	key := helmReleaseKey(e.Namespace, e.Name)
	rc, ok := cs.byKey[key]
	if !ok {
		rc = &RootCause{Object: helmReleaseRef(e.Namespace, e.Name), AppliedBy: e.appliedBy, HelmReleases: []HelmRelease{e.HelmRelease}}
		cs.byKey[key] = rc
	}
	switch {
	case rc.Reason == "":
		rc.Reason, rc.Message = reason, message
	case rc.Message != message && !slices.Contains(rc.Explanation, message):
		rc.Explanation = append(rc.Explanation, message)
	}
	return key
}

// helmNotReadyHere records d, a HelmRelease that is not Ready for its own reason, as a cause and
// returns its key.
func (cs *causes) helmNotReadyHere(d *helmEntry) string {
	key := helmReleaseKey(d.Namespace, d.Name)
	if cs.byKey[key] != nil {
		return key
	}
	rc := &RootCause{Object: helmReleaseRef(d.Namespace, d.Name), AppliedBy: d.appliedBy, Progress: d.Progress}
	if d.Deleting || d.OutlivesTier || d.Release != nil || d.Progress != nil {
		// its Ready message is the cause's; what its own line adds is a finalizer to explain or
		// a timeout longer than its tier's
		rc.HelmReleases = []HelmRelease{d.HelmRelease}
	}
	switch {
	case d.Ready == nil:
		rc.Reason, rc.Message = ReasonNoStatus, "helm-controller has not written its Ready condition"
	case d.Ready.Status == string(metav1.ConditionTrue):
		rc.Reason = ReasonGenerationNotObserved
		rc.Message = fmt.Sprintf("Ready=True, but status.observedGeneration %d is behind generation %d: helm-controller's dependency check wants both, so what depends on it waits", d.observed, d.generation)
	default:
		rc.Reason, rc.Message = d.Ready.Reason, d.Ready.Message
	}
	if d.Progress != nil && d.Progress.Overdue {
		rc.Explanation = append(rc.Explanation, fmt.Sprintf("running a release action since %s, longer than its timeout (%s): helm-controller should have given up", d.Progress.Since, d.Progress.Timeout))
	}
	if d.Suspend {
		rc.Explanation = append(rc.Explanation, "it is suspended (spec.suspend): helm-controller does not reconcile it until it is resumed")
	}
	if d.Deleting {
		rc.Explanation = append(rc.Explanation, "deletion requested: helm-controller uninstalls it, and what depends on it waits on a release that is going away")
	}
	cs.byKey[key] = rc
	return key
}

// addUnclaimedHelmReleases records as a cause of its own every HelmRelease a Kustomization of
// the chain applies that is not Ready (no Ready condition, when its Kustomization has one) and
// that nothing else accounts for: not a cause already,
// not held back by one, not listed under its Kustomization's own cause, not deleting (a
// Terminating finding) and not waiting (walked, else a StaleWait finding; a suspended one is
// not walked: helm-controller does not look at it until it is resumed). A Kustomization that does not
// wait for its HelmReleases is Ready whatever they do, and the chain said HEALTHY.
func (cs *causes) addUnclaimedHelmReleases(ids []string) {
	for _, id := range ids {
		for _, hr := range cs.nodes[id].HelmReleases {
			// A HelmRelease with no status yet is not Ready either, unless nothing has status:
			// a chain a repository declares, not one read from a cluster.
			if (hr.Ready == nil && cs.nodes[id].Ready == nil) || (hr.Ready != nil && hr.Ready.Status == string(metav1.ConditionTrue)) ||
				hr.Deleting || (hr.waiting() && !hr.Suspend) ||
				cs.byKey[helmReleaseKey(hr.Namespace, hr.Name)] != nil || cs.byKey[id] != nil {
				continue
			}
			cs.helmNotReady(cs.helm.byID[hr.id()])
		}
	}
}

// helmHolds returns the keys of the causes that account for HelmRelease id: its own, and those
// its wait walked up to.
func (cs *causes) helmHolds(id string) []string {
	keys := append(slices.Clone(cs.helmHeld[id]), cs.helmSource[id]...)
	ns, name := splitID(id)
	if k := helmReleaseKey(ns, name); cs.byKey[k] != nil && !slices.Contains(keys, k) {
		keys = append(keys, k)
	}
	return keys
}

// helmReleaseAppliers maps each HelmRelease a Kustomization of the chain applies (namespace/name)
// to that Kustomization.
func (c *Chain) helmReleaseAppliers() map[string]string {
	out := map[string]string{}
	for _, n := range c.Kustomizations {
		for i := range n.HelmReleases {
			out[n.HelmReleases[i].id()] = n.ID
		}
	}
	return out
}

// helmReleaseRefs renders HelmRelease ids fully qualified, comma separated.
func helmReleaseRefs(ids []string) string {
	refs := make([]string, len(ids))
	for i, id := range ids {
		ns, name := splitID(id)
		refs[i] = helmReleaseRef(ns, name)
	}
	return joinList(refs)
}
