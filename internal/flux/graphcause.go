package flux

// The causes the walk of the object graph (objgraph.go) ends at, recorded among the chain's
// root causes: whatever their kind, the deepest object that is not Ready for its own reason,
// or a referenced object that does not exist or could not be read; what waits on it through
// references is held back behind it (RootCause.Waiters, HeldBack, Tiers), not a peer.

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kubeforensics/suite/internal/report"
)

// graphBelow records the causes below start (a graph key) that start waits on through its
// references, and returns their keys; none when start waits on nothing (it is its own cause,
// or Ready), when skip drops every cause found, or when the chain was built without a graph.
// The objects between start and each cause are its waiters.
func (cs *causes) graphBelow(start string, skip func(link) bool) []string {
	if cs.objs == nil {
		return nil
	}
	var keys []string
	for _, l := range cs.objs.deepest(start) {
		if l.cause == start || (skip != nil && skip(l)) {
			continue
		}
		key := cs.graphCause(l)
		rc := cs.byKey[key]
		for _, p := range l.path {
			if ref := graphRef(p); !slices.Contains(rc.Waiters, ref) {
				rc.Waiters = append(rc.Waiters, ref)
			}
		}
		keys = append(keys, key)
	}
	return keys
}

// graphCause records the cause a walk ended at and returns its key: a HelmRelease or
// Kustomization the chain analyses is recorded as the chain records them (its release state,
// its blast radius); any other object as an Object cause with its own condition, or NotFound,
// or DependencyUnread when it could not be read.
func (cs *causes) graphCause(l link) string {
	kind, id, _ := strings.Cut(l.cause, "/")
	if l.state == refNotReady {
		if e := cs.helm.byID[id]; kind == helmReleaseKind && e != nil {
			return cs.helmNotReadyHere(e)
		}
		if n := cs.nodes[id]; kind == kustomizationKind && n != nil {
			reason, msg := ownReason(n)
			cs.add(n, reason, msg)
			return n.ID
		}
	}
	if cs.byKey[l.cause] != nil {
		return l.cause
	}
	ns, name := splitID(id)
	rc := &RootCause{Object: graphRef(l.cause)}
	switch l.state {
	case refMissing:
		rc.Reason, rc.Message = ReasonNotFound, fmt.Sprintf("%s %s/%s does not exist", kind, ns, name)
	case refUnread:
		rc.Reason, rc.Message = ReasonDependencyUnread, "the chain could not read it: "+l.unread
		if !strings.HasPrefix(l.unread, "reading it failed") {
			// a GET that failed is a warning already; a LIST of its kind that failed, or a
			// namespace not read, is not
			rc.unread = append(rc.unread, report.Gap{Op: report.OpGet, Subject: report.ObjectID{Kind: kind, Namespace: ns, Name: name}, Reason: report.GapNotRead, What: "reading " + rc.Object, Error: l.unread})
		}
	default:
		o := cs.objs.graph[l.cause]
		if c := o.own(); c != nil {
			rc.Reason, rc.Message = c.Reason, c.Message
		} else {
			rc.Reason, rc.Message = ReasonNoStatus, "its controller has not written its Ready condition"
		}
	}
	cs.byKey[l.cause] = rc
	return l.cause
}

// graphRef renders a graph key fully qualified, the way kubectl accepts it back.
func graphRef(key string) string {
	kind, id, _ := strings.Cut(key, "/")
	ns, name := splitID(id)
	gvr, ok := graphResources[kind]
	if !ok {
		gvr = leafKinds[kind]
	}
	resource := gvr.GroupResource().String()
	if resource == "" {
		resource = strings.ToLower(kind)
	}
	return objectRef(resource, ns, name)
}

// unclaimedGraphObjects records the causes that no walk from an object that is not Ready reached:
// the Flux Operator's objects (ResourceSet, FluxInstance) that are not Ready, which nothing the
// chain analyses applies, so no Kustomization's health check leads to them, and what they
// applied would go unread; and every object another one builds from (a source, a HelmChart, an
// ArtifactGenerator) that failed for its own reason (Ready False, or Stalled) while what builds
// from it still says Ready at its last artifact: those wait for the next revision, which will not
// come. An object its controller wrote no Ready condition for, or that is reconciling, is no
// such cause.
func (cs *causes) unclaimedGraphObjects() {
	if cs.objs == nil {
		return
	}
	claimed := map[string]bool{}
	for key, rc := range cs.byKey {
		claimed[rc.Object], claimed[graphRef(key)] = true, true
		for _, w := range rc.Waiters {
			claimed[w] = true
		}
	}
	builders := cs.objs.sourceUsers()
	for _, key := range slices.Sorted(maps.Keys(cs.objs.graph)) {
		o := cs.objs.graph[key]
		switch {
		case claimed[graphRef(key)]:
		case len(builders[key]) > 0 && o.failed():
			var waiters []string
			for _, b := range builders[key] {
				waiters = append(waiters, graphRef(b))
			}
			cs.causesFrom(key, waiters)
		case (o.kind == resourceSetKind || o.kind == fluxInstanceKind) && o.notReady():
			cs.causesFrom(key, []string{graphRef(key)})
		}
	}
}

// causesFrom records the causes below key, or key itself when it waits on nothing below, and
// adds waiters to each cause's waiters (a cause never waits on itself).
func (cs *causes) causesFrom(key string, waiters []string) {
	keys := cs.graphBelow(key, nil)
	if len(keys) == 0 {
		keys = []string{cs.graphCause(link{cause: key, state: refNotReady})}
	}
	for _, k := range keys {
		rc := cs.byKey[k]
		for _, w := range waiters {
			if w != rc.Object && !slices.Contains(rc.Waiters, w) {
				rc.Waiters = append(rc.Waiters, w)
			}
		}
	}
}

// addTier records the Kustomization id as a tier of each cause of keys, and via (an object it
// waits on them through, fully qualified) among their waiters.
func (cs *causes) addTier(keys []string, id, via string) {
	for _, k := range keys {
		rc := cs.byKey[k]
		if !slices.Contains(rc.Tiers, id) {
			rc.Tiers = append(rc.Tiers, id)
		}
		if via != "" && !slices.Contains(rc.Waiters, via) {
			rc.Waiters = append(rc.Waiters, via)
		}
	}
}

// appliedFailing is the walk's skip for Kustomization n: a HelmRelease n applies that fails
// for its own reason is listed under n's own cause (RootCause.HelmReleases), as before the
// graph; what it waits on below is followed.
func (cs *causes) appliedFailing(n *Node) func(link) bool {
	return func(l link) bool {
		kind, id, _ := strings.Cut(l.cause, "/")
		e := cs.helm.byID[id]
		return kind == helmReleaseKind && l.state == refNotReady && len(l.path) == 0 && e != nil && e.appliedBy == n.ID
	}
}

// helmNotReady records what d, a HelmRelease that is not Ready and does not wait on other
// HelmReleases, is held by, and returns the causes' keys: the causes below it in the graph (its
// chart's source, a Secret it needs), or d itself.
func (cs *causes) helmNotReady(d *helmEntry) []string {
	if keys := cs.helmBelow(d); len(keys) > 0 {
		return keys
	}
	return []string{cs.helmNotReadyHere(d)}
}

// helmBelow records the causes below d in the graph, with d held back by each, once per
// analysis.
func (cs *causes) helmBelow(d *helmEntry) []string {
	id := d.id()
	if keys, ok := cs.helmSource[id]; ok {
		return keys
	}
	keys := cs.graphBelow(graphKey(helmReleaseKind, d.Namespace, d.Name), nil)
	for _, k := range keys {
		if rc := cs.byKey[k]; !slices.Contains(rc.HeldBack, id) {
			rc.HeldBack = append(rc.HeldBack, id)
		}
	}
	cs.helmSource[id] = keys
	return keys
}
