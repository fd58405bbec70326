package flux

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Reasons the chain gives a root cause when its Ready condition has none of its own.
const (
	ReasonMissingDependency = "MissingDependency"
	ReasonDependencyCycle   = "DependencyCycle"
	ReasonRevisionLag       = "RevisionLag"
	ReasonSourceNotReady    = "SourceNotReady"
	// ReasonReadyExprFalse: a dependsOn readyExpr evaluates to false on the objects now.
	ReasonReadyExprFalse = "ReadyExprFalse"
	// ReasonReadyExprUnevaluated: a dependsOn readyExpr cannot be evaluated (the verdict is
	// UNKNOWN).
	ReasonReadyExprUnevaluated = "ReadyExprUnevaluated"
	// ReasonNotFound: a source the chain did not find, or a Secret or ServiceAccount
	// kustomize-controller reported not found.
	ReasonNotFound = "NotFound"
)

// causes collects the root causes of one analysis, one per Kustomization, shared object or
// dependsOn cycle.
type causes struct {
	nodes map[string]*Node
	topo  topology
	byKey map[string]*RootCause
	// cycleOf maps each member of a dependsOn cycle to its cycle in topo.cycles.
	cycleOf map[string]int
	// waits caches what each waiter's message says it waits on: every walk up from a waiter
	// behind it reads it again.
	waits map[string]Failure
	// walked memoises walkUp per waiter: a line of waiters behind one cause is walked once, not
	// once more from each waiter behind it (which made the analysis quadratic). walks counts
	// the walks done (of Kustomizations and of HelmReleases), so a test can hold the analysis
	// to linear.
	walked map[string]bool
	walks  int
	// walking holds the waiters whose walk is under way: a dependency among them closes a
	// cycle, and is not walked again.
	walking map[string]bool
	// helm is every HelmRelease read; helmHeld memoises helmWalk (the keys of the causes that
	// hold each waiting HelmRelease back) and helmWalking holds the walks under way.
	helm        *helmIndex
	helmHeld    map[string][]string
	helmWalking map[string]bool
	// objs holds the object graph the walk down from a failing object follows (graphcause.go);
	// nil when the analysis has none. helmSource memoises helmBelow: the causes below each
	// HelmRelease in the graph.
	objs       *Objects
	helmSource map[string][]string
}

// newCauses prepares the collection of one analysis' root causes.
func newCauses(nodes map[string]*Node, topo topology, helm *helmIndex) *causes {
	cs := &causes{nodes: nodes, topo: topo, byKey: map[string]*RootCause{}, cycleOf: map[string]int{},
		waits: map[string]Failure{}, walked: map[string]bool{}, walking: map[string]bool{},
		helm: helm, helmHeld: map[string][]string{}, helmWalking: map[string]bool{}, helmSource: map[string][]string{}}
	for i, cy := range topo.cycles {
		for _, id := range cy.members {
			cs.cycleOf[id] = i
		}
	}
	return cs
}

// waitsOn is what n's Ready message says it waits on, parsed once per analysis.
func (cs *causes) waitsOn(n *Node) Failure {
	if n.Ready == nil {
		return Failure{}
	}
	f, ok := cs.waits[n.ID]
	if !ok {
		f = ParseFailure(n.Ready.Message)
		cs.waits[n.ID] = f
	}
	return f
}

// add records n as a cause with reason and message, unless it already is one.
func (cs *causes) add(n *Node, reason, message string) *RootCause {
	if rc, ok := cs.byKey[n.ID]; ok {
		return rc
	}
	rc := &RootCause{Kustomization: n.ID, Reason: reason, Message: message}
	cs.byKey[n.ID] = rc
	return rc
}

// addFailing records a Failing node: as the shared object it fails on, or for its own reason.
func (cs *causes) addFailing(n *Node) {
	key, object, reason, message := sharedCause(n)
	if key != "" {
		// a source that fails on something deeper (an ExternalArtifact on its generator, a
		// HelmRepository on a Secret it names): n waits on that, through the source
		if keys := cs.graphBelow(key, nil); len(keys) > 0 {
			cs.addTier(keys, n.ID, graphRef(key))
			return
		}
	}
	if key == "" && cs.failsOnHelmReleases(n) {
		return
	}
	if key == "" {
		if keys := cs.graphBelow(graphKey(kustomizationKind, n.Namespace, n.Name), cs.appliedFailing(n)); len(keys) > 0 {
			cs.addTier(keys, n.ID, "")
			return
		}
		reason, msg := ownReason(n)
		cs.add(n, reason, msg)
		return
	}
	rc, ok := cs.byKey[key]
	if !ok {
		rc = &RootCause{Object: object, Reason: reason, Message: message}
		cs.byKey[key] = rc
	}
	if !slices.Contains(rc.Tiers, n.ID) {
		rc.Tiers = append(rc.Tiers, n.ID)
	}
}

// rootCauses finds what fails for its own reason: every Failing node (or the source, Secret or
// ServiceAccount it fails on, once for all the nodes that fail on it), and whatever a waiter's
// walk up its dependsOn ends at. A waiter whose dependencies all look ready is reported as a
// StaleWait finding, not a cause.
func rootCauses(nodes map[string]*Node, topo topology, helm *helmIndex, objs *Objects) ([]RootCause, []Finding) {
	cs := newCauses(nodes, topo, helm)
	cs.objs = objs
	return cs.find()
}

// find is rootCauses on a prepared collection.
func (cs *causes) find() ([]RootCause, []Finding) {
	nodes := cs.nodes
	ids := slices.Sorted(maps.Keys(nodes))
	cs.addHelmReleaseExprs(ids)
	stale := cs.addHelmReleaseWaits(ids)
	for _, id := range ids {
		switch n := nodes[id]; n.State {
		case Failing:
			cs.addFailing(n)
		case Progressing:
			// reconciling: within its timeout an entry of Chain.Progressing, past it a cause
			cs.add(n, string(Progressing), reconcilingMessage(n))
		}
	}
	for _, id := range ids {
		n := nodes[id]
		if n.State == Waiting && !cs.walkUp(n) {
			stale = append(stale, Finding{Kind: FindingStaleWait, Kustomization: n.ID,
				Message: fmt.Sprintf("waits on dependencies that are ready now; kustomize-controller retries every %s", n.RetryInterval)})
		}
	}
	cs.addUnclaimedHelmReleases(ids)
	cs.unclaimedGraphObjects()
	out := make([]RootCause, 0, len(cs.byKey))
	for _, key := range slices.Sorted(maps.Keys(cs.byKey)) {
		rc := cs.finish(cs.byKey[key])
		if inProgress(rc.Progress) {
			rc.Code = causeCode(&rc) // finish learnt its progress after classifying it
		}
		out = append(out, rc)
	}
	sort.SliceStable(out, func(i, j int) bool {
		ti, tj := causeTier(out[i], nodes), causeTier(out[j], nodes)
		return ti < tj || (ti == tj && causeName(out[i]) < causeName(out[j]))
	})
	return out, stale
}

// finish parses a cause's message and fills its blast radius, source and HelmReleases.
func (cs *causes) finish(rc *RootCause) RootCause {
	rc.Failure = ParseFailure(rc.Message)
	rc.Code = causeCode(rc)
	slices.Sort(rc.HeldBack)
	slices.Sort(rc.Waiters)
	if rc.Reason == ReasonDependencyCycle && len(rc.Tiers) > 0 {
		// Every member of a cycle is downstream of every other: its first member's downstream
		// is the whole cycle and what waits behind it.
		rc.BlastRadius = slices.Compact(slices.Sorted(slices.Values(append(cs.topo.downstream(rc.Kustomization), rc.Kustomization))))
		return *rc
	}
	if rc.Object != "" {
		hit := slices.Clone(rc.Tiers)
		for _, id := range rc.Tiers {
			hit = append(hit, cs.topo.downstream(id)...)
		}
		rc.BlastRadius = slices.Compact(slices.Sorted(slices.Values(hit)))
		if rc.BlastRadius == nil {
			rc.BlastRadius = []string{} // a HelmRelease whose Kustomization does not wait for it
		}
		return *rc
	}
	n := cs.nodes[rc.Kustomization]
	if n.State == Progressing && n.Progress != nil {
		rc.Progress = n.Progress
		if n.Progress.Overdue {
			rc.Explanation = append(rc.Explanation, fmt.Sprintf("reconciling since %s, longer than its timeout (%s): kustomize-controller should have given up", n.Progress.Since, n.Progress.Timeout))
		}
	}
	rc.BlastRadius = cs.topo.downstream(rc.Kustomization)
	if rc.BlastRadius == nil {
		rc.BlastRadius = []string{}
	}
	if n.Source.Found && n.Source.Ready != nil && n.Source.Ready.Status != string(metav1.ConditionTrue) {
		rc.Explanation = append(rc.Explanation, fmt.Sprintf("its source %s %s/%s is not ready: %s: %s",
			n.Source.Kind, n.Source.Namespace, n.Source.Name, n.Source.Ready.Reason, n.Source.Ready.Message))
	}
	for _, hr := range n.HelmReleases {
		if hr.Ready == nil || hr.Ready.Status != string(metav1.ConditionTrue) || hr.OutlivesTier || hr.Deleting {
			rc.HelmReleases = append(rc.HelmReleases, hr)
		}
	}
	return *rc
}

// causeTier is where a cause sorts: its Kustomization's tier, or its first tier's, or the tier
// of the Kustomization that applies it; unordered nodes (tier -1) after every tier.
func causeTier(rc RootCause, nodes map[string]*Node) int {
	t := 1 << 30
	for _, id := range append([]string{rc.Kustomization, rc.AppliedBy}, rc.Tiers...) {
		if n := nodes[id]; n != nil && n.Tier >= 0 {
			t = min(t, n.Tier)
		}
	}
	return t
}

// causeName is what a cause is sorted by within a tier.
func causeName(rc RootCause) string {
	if rc.Object != "" {
		return rc.Object
	}
	return rc.Kustomization
}

// ownReason is the reason and message a Failing node gives for itself.
func ownReason(n *Node) (string, string) {
	if n.Stalled != nil && n.Stalled.Status == string(metav1.ConditionTrue) {
		return n.Stalled.Reason, n.Stalled.Message
	}
	if n.Ready != nil {
		return n.Ready.Reason, n.Ready.Message
	}
	return string(n.State), ""
}

// walkUp follows a waiter's dependsOn to what blocks it and records it as a cause. It returns
// whether any cause was found. Each waiter is walked once per analysis; a dependency whose
// walk is under way closes a cycle and is skipped.
func (cs *causes) walkUp(n *Node) bool {
	if i, ok := cs.cycleOf[n.ID]; ok && cs.byKey[cycleKey(cs.topo.cycles[i])] != nil {
		// A walk has been through n's cycle already, and through everything its members wait
		// on: walking the cycle again from each member made the analysis quadratic.
		return true
	}
	if found, ok := cs.walked[n.ID]; ok {
		return found
	}
	cs.walks++
	cs.walking[n.ID] = true
	defer delete(cs.walking, n.ID)
	found := false
	if missing := cs.topo.missing[n.ID]; len(missing) > 0 {
		cs.add(n, ReasonMissingDependency, "depends on "+joinList(missing)+", which does not exist")
		found = true
	}
	waitsOn := cs.waitsOn(n)
	for _, dep := range n.DependsOn {
		d, ok := cs.nodes[dep]
		if !ok || cs.walking[dep] {
			continue
		}
		if re := n.readyExpr(dep); re != nil {
			if cs.readyExprBlocks(n, re) {
				found = true
				continue
			}
			// A readyExpr that holds replaces the built-in check, unless the controller's
			// AdditiveCELDependencyCheck gate adds it: then the message still names dep.
			if waitsOn.Dependency != dep || waitsOn.ReadyExpr {
				continue
			}
		}
		found = cs.blocks(n, d, waitsOn) || found
	}
	if !found && n.Tier < 0 {
		cs.addCycle(n)
		found = true
	}
	cs.walked[n.ID] = found
	return found
}

// addCycle records what keeps n unordered when nothing else blocks it: the dependsOn cycle it
// is a member of — one cause per cycle, on its first member, whichever member a walk ended
// at (a cause per member, each freezing all the others, made the output quadratic) — or, for
// a Kustomization behind a cycle whose members do not wait, n itself.
func (cs *causes) addCycle(n *Node) {
	i, ok := cs.cycleOf[n.ID]
	if !ok {
		cs.add(n, ReasonDependencyCycle, "its dependsOn leads into a cycle, so it can never become ready")
		return
	}
	cy := cs.topo.cycles[i]
	cs.byKey[cycleKey(cy)] = &RootCause{Kustomization: cy.members[0], Tiers: cy.members, Reason: ReasonDependencyCycle,
		Message: fmt.Sprintf("dependsOn cycle through %d Kustomization(s) (its edges are in the Cycle finding): none of them can become ready, nor anything behind them, until an entry is removed", len(cy.members))}
}

// blocks records what dependency d of waiter n blocks it with, and reports whether it does.
func (cs *causes) blocks(n, d *Node, waitsOn Failure) bool {
	switch d.State {
	case Ready:
		if d.ID != waitsOn.Dependency || !waitsOn.DependencyRevision {
			return false
		}
		rc := cs.add(d, ReasonRevisionLag, fmt.Sprintf("applied %s, its source is at %s", orNone(d.LastApplied), orNone(d.Source.Revision)))
		rc.Explanation = append(rc.Explanation, fmt.Sprintf("%s waits for it to apply revision %s",
			kustomizationRef(n.ID), orNone(d.Source.Revision)))
	case Waiting:
		return cs.walkUp(d)
	case Suspended:
		if d.Ready == nil || d.Ready.Status != string(metav1.ConditionTrue) {
			cs.add(d, meta.SuspendedReason, "suspended while not ready; its dependents wait until it is resumed")
			return true
		}
		if !d.RevisionLag && (d.ID != waitsOn.Dependency || !waitsOn.DependencyRevision) {
			return false
		}
		cs.add(d, meta.SuspendedReason, fmt.Sprintf("suspended at %s; dependents wait for %s", orNone(d.LastApplied), orNone(d.Source.Revision)))
	case Failing:
		cs.addFailing(d)
	case Terminating:
		cs.add(d, string(Terminating), "deletion requested; its dependents wait on an object that is going away")
	default:
		cs.add(d, string(d.State), reconcilingMessage(d))
	}
	return true
}

// reconcilingMessage is what n's Reconciling condition says it is doing, if anything.
func reconcilingMessage(n *Node) string {
	if n.Reconciling != nil {
		return n.Reconciling.Message
	}
	return ""
}

// splitProgressing separates the causes that are reconciliations within their timeout (Chain.
// Progressing) from the root causes.
func splitProgressing(all []RootCause) (causes, progressing []RootCause) {
	causes = []RootCause{}
	for _, rc := range all {
		if inProgress(rc.Progress) {
			progressing = append(progressing, rc)
		} else {
			causes = append(causes, rc)
		}
	}
	return causes, progressing
}

// cycleKey is the key of a cycle's cause.
func cycleKey(cy cycle) string { return "cycle/" + cy.members[0] }

// unaffected lists the nodes that are neither a root cause nor in any blast radius, nor apply a
// HelmRelease that is one or that one holds back.
func unaffected(c *Chain) []string {
	hit := map[string]bool{}
	appliedBy := c.helmReleaseAppliers()
	for _, rc := range append(slices.Clone(c.RootCauses), c.Progressing...) {
		hit[rc.Kustomization], hit[rc.AppliedBy] = true, true
		for _, id := range rc.HeldBack {
			hit[appliedBy[id]] = true
		}
		for _, id := range rc.BlastRadius {
			hit[id] = true
		}
	}
	out := []string{}
	for _, n := range c.Kustomizations {
		if !hit[n.ID] {
			out = append(out, n.ID)
		}
	}
	return out
}

// kustomizationRef renders an id fully qualified, the way kubectl accepts it back.
func kustomizationRef(id string) string {
	ns, name, _ := strings.Cut(id, "/")
	return "kustomizations.kustomize.toolkit.fluxcd.io/" + name + " -n " + ns
}

// KustomizationRef is kustomizationRef for printers.
func KustomizationRef(id string) string { return kustomizationRef(id) }

func joinList(items []string) string { return strings.Join(items, ", ") }

func sortHelmReleases(hrs []HelmRelease) {
	sort.Slice(hrs, func(i, j int) bool {
		return hrs[i].Namespace+"/"+hrs[i].Name < hrs[j].Namespace+"/"+hrs[j].Name
	})
}
