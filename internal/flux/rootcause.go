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
)

// rootCauses finds the Kustomizations that fail for their own reason: every Failing node,
// and whatever a waiter's walk up its dependsOn ends at. A waiter whose dependencies all look
// ready is reported as a StaleWait finding, not a cause.
func rootCauses(nodes map[string]*Node, topo topology) ([]RootCause, []Finding) {
	causes := map[string]*RootCause{}
	var stale []Finding
	add := func(n *Node, reason, message string) *RootCause {
		if rc, ok := causes[n.ID]; ok {
			return rc
		}
		rc := &RootCause{Kustomization: n.ID, Reason: reason, Message: message}
		causes[n.ID] = rc
		return rc
	}
	for _, id := range slices.Sorted(maps.Keys(nodes)) {
		n := nodes[id]
		switch n.State {
		case Failing:
			reason, msg := ownReason(n)
			add(n, reason, msg)
		case Waiting:
			found := walkUp(n, nodes, topo, map[string]bool{n.ID: true}, add)
			if !found {
				stale = append(stale, Finding{Kind: FindingStaleWait, Kustomization: n.ID,
					Message: fmt.Sprintf("waits on dependencies that are ready now; kustomize-controller retries every %s", n.RetryInterval)})
			}
		}
	}
	out := make([]RootCause, 0, len(causes))
	for _, id := range slices.Sorted(maps.Keys(causes)) {
		rc := causes[id]
		n := nodes[id]
		rc.Failure = ParseFailure(rc.Message)
		rc.BlastRadius = topo.downstream(id)
		if rc.BlastRadius == nil {
			rc.BlastRadius = []string{}
		}
		if n.Source.Found && n.Source.Ready != nil && n.Source.Ready.Status != string(metav1.ConditionTrue) {
			rc.Explanation = append(rc.Explanation, fmt.Sprintf("its source %s %s/%s is not ready: %s: %s",
				n.Source.Kind, n.Source.Namespace, n.Source.Name, n.Source.Ready.Reason, n.Source.Ready.Message))
		}
		for _, hr := range n.HelmReleases {
			if hr.Ready == nil || hr.Ready.Status != string(metav1.ConditionTrue) || hr.OutlivesTier {
				rc.HelmReleases = append(rc.HelmReleases, hr)
			}
		}
		out = append(out, *rc)
	}
	sort.SliceStable(out, func(i, j int) bool {
		ti, tj := tierKey(nodes[out[i].Kustomization].Tier), tierKey(nodes[out[j].Kustomization].Tier)
		return ti < tj || (ti == tj && out[i].Kustomization < out[j].Kustomization)
	})
	return out, stale
}

// tierKey orders unordered nodes (tier -1) after every tier.
func tierKey(t int) int {
	if t < 0 {
		return 1 << 30
	}
	return t
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

// walkUp follows a waiter's dependsOn to the nodes that block it and records them as causes.
// It returns whether any cause was found.
func walkUp(n *Node, nodes map[string]*Node, topo topology, seen map[string]bool, add func(*Node, string, string) *RootCause) bool {
	found := false
	if missing := topo.missing[n.ID]; len(missing) > 0 {
		add(n, ReasonMissingDependency, "depends on "+joinList(missing)+", which does not exist")
		found = true
	}
	waitsRevisionOf := ""
	if n.Ready != nil {
		if f := ParseFailure(n.Ready.Message); f.DependencyRevision {
			waitsRevisionOf = f.Dependency
		}
	}
	for _, dep := range n.DependsOn {
		d, ok := nodes[dep]
		if !ok || seen[dep] {
			continue
		}
		seen[dep] = true
		switch d.State {
		case Ready:
			if dep == waitsRevisionOf {
				rc := add(d, ReasonRevisionLag, fmt.Sprintf("applied %s, its source is at %s", orNone(d.LastApplied), orNone(d.Source.Revision)))
				rc.Explanation = append(rc.Explanation, fmt.Sprintf("%s waits for it to apply revision %s",
					kustomizationRef(n.ID), orNone(d.Source.Revision)))
				found = true
			}
		case Waiting:
			found = walkUp(d, nodes, topo, seen, add) || found
		case Suspended:
			add(d, meta.SuspendedReason, "suspended while not ready; its dependents wait until it is resumed")
			found = true
		case Failing:
			reason, msg := ownReason(d)
			add(d, reason, msg)
			found = true
		default:
			msg := ""
			if d.Reconciling != nil {
				msg = d.Reconciling.Message
			}
			add(d, string(d.State), msg)
			found = true
		}
	}
	if !found && n.Tier < 0 {
		add(n, ReasonDependencyCycle, "its dependsOn leads into a cycle, so it can never become ready")
		found = true
	}
	return found
}

// unaffected lists the nodes that are neither a root cause nor in any blast radius.
func unaffected(c *Chain) []string {
	hit := map[string]bool{}
	for _, rc := range c.RootCauses {
		hit[rc.Kustomization] = true
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
