package flux

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Labels kustomize-controller sets on every object it applies.
const (
	ownerNameLabel      = "kustomize.toolkit.fluxcd.io/name"
	ownerNamespaceLabel = "kustomize.toolkit.fluxcd.io/namespace"
)

// Build analyses the objects into a Chain: nodes, tiers, root causes with their blast radius,
// and findings. It reads nothing; Drill adds what the failing objects look like now.
func Build(objs *Objects) *Chain {
	now := objs.Now
	if now.IsZero() {
		now = time.Now()
	}
	nodes := map[string]*Node{}
	byID := make(map[string]*kustomizev1.Kustomization, len(objs.Kustomizations))
	for i := range objs.Kustomizations {
		ks := &objs.Kustomizations[i]
		byID[ks.Namespace+"/"+ks.Name] = ks
	}
	for i := range objs.Kustomizations {
		n := newNode(&objs.Kustomizations[i], objs, byID, now)
		nodes[n.ID] = n
	}
	helm := attachHelmReleases(nodes, objs, now)
	topo := order(nodes)
	c := &Chain{Tiers: topo.tiers, Unordered: topo.unordered}
	if c.Tiers == nil {
		c.Tiers = [][]string{}
	}
	for ti, tier := range topo.tiers {
		for _, id := range tier {
			nodes[id].Tier = ti
		}
	}
	for _, id := range topo.unordered {
		nodes[id].Tier = -1
	}
	for _, id := range slices.Sorted(maps.Keys(nodes)) {
		nodes[id].Dependents = topo.children[id]
		c.Kustomizations = append(c.Kustomizations, nodes[id])
	}
	var (
		stale []Finding
		all   []RootCause
	)
	all, stale = rootCauses(nodes, topo, helm, objs)
	c.RootCauses, c.Progressing = splitProgressing(all)
	c.Findings = append(findings(c, topo), stale...)
	for i := range c.Findings {
		c.Findings[i].Code = findingCode(c.Findings[i].Kind)
	}
	explainMissingKinds(c, objs)
	c.Unaffected = unaffected(c)
	c.Unevaluated = unevaluated(c.Kustomizations, c.RootCauses)
	return c
}

// newNode reads one Kustomization and the state of its source; the readyExprs of a waiting
// one are evaluated against the Kustomizations in byID.
func newNode(ks *kustomizev1.Kustomization, objs *Objects, byID map[string]*kustomizev1.Kustomization, now time.Time) *Node {
	n := &Node{
		ID: ks.Namespace + "/" + ks.Name, Namespace: ks.Namespace, Name: ks.Name,
		DependsOn:   dependencies(ks),
		Inherited:   objs.inherited[ks.Namespace+"/"+ks.Name],
		Ready:       condition(ks.Status.Conditions, meta.ReadyCondition),
		Reconciling: condition(ks.Status.Conditions, meta.ReconcilingCondition),
		Stalled:     condition(ks.Status.Conditions, meta.StalledCondition),
		KStatus:     objs.KStatus[ks.Namespace+"/"+ks.Name],
		Wait:        ks.Spec.Wait, Suspend: ks.Spec.Suspend, Prune: ks.Spec.Prune,
		Timeout:       ks.GetTimeout().String(),
		Path:          cleanPath(ks.Spec.Path),
		Interval:      ks.Spec.Interval.Duration.String(),
		RetryInterval: ks.GetRetryInterval().String(),
		LastApplied:   ks.Status.LastAppliedRevision,
		LastAttempted: ks.Status.LastAttemptedRevision,
		Progress:      progressOf(ks.Status.Conditions, ks.GetTimeout(), now),
		Generation:    ks.Generation, ObservedGen: ks.Status.ObservedGeneration,
		Deleting: ks.DeletionTimestamp != nil,
	}
	ref := ks.Spec.SourceRef
	n.Source = Source{Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name}
	if n.Source.Namespace == "" {
		n.Source.Namespace = ks.Namespace
	}
	if so, ok := objs.Sources[ref.Kind+"/"+n.Source.Namespace+"/"+ref.Name]; ok {
		n.Source.Found, n.Source.Ready, n.Source.Revision = true, so.Ready, so.Revision
	}
	n.Source.Unread = objs.unread[ref.Kind]
	if r := rawCondition(ks.Status.Conditions, meta.ReadyCondition); r != nil {
		n.readySince = r.LastTransitionTime.Time
	}
	behind := n.Source.Revision != "" && n.LastApplied != n.Source.Revision
	// kustomize-controller records the revision it starts to apply as lastAttemptedRevision
	// (internal/controller/kustomization_controller.go:384) and moves lastAppliedRevision only
	// once it applied it: while that reconciliation runs, the gap is the apply, not a lag.
	if behind && inProgress(n.Progress) && n.LastAttempted == n.Source.Revision {
		n.Applying = n.Source.Revision
	}
	n.RevisionLag = behind && n.Applying == ""
	n.State = stateOf(n)
	if n.State == Waiting {
		n.ReadyExprs = evalReadyExprs(ks, ks.Spec.DependsOn, byID, "")
	}
	return n
}

// stateOf classifies a node from its spec and conditions.
func stateOf(n *Node) State {
	switch {
	case n.Deleting:
		return Terminating
	case n.Suspend:
		return Suspended
	case n.Stalled != nil && n.Stalled.Status == string(metav1.ConditionTrue):
		return Failing
	case n.Ready == nil:
		return NoStatus
	case n.Ready.Status == string(metav1.ConditionTrue):
		return Ready
	case n.Ready.Status == string(metav1.ConditionFalse) && n.Ready.Reason == meta.DependencyNotReadyReason:
		return Waiting
	case n.Ready.Status == string(metav1.ConditionFalse):
		return Failing
	}
	return Progressing
}

// attachHelmReleases gives each node the HelmReleases it applied, sorted by id; the readyExprs
// of a waiting one are evaluated against the HelmReleases read, as helm-controller evaluates
// them against the HelmReleases it depends on. It returns every HelmRelease read, applied by a
// node or not, for the walk of their dependsOn.
func attachHelmReleases(nodes map[string]*Node, objs *Objects, now time.Time) *helmIndex {
	hrs := objs.HelmReleases
	byID := make(map[string]*helmv2.HelmRelease, len(hrs))
	for i := range hrs {
		byID[hrs[i].Namespace+"/"+hrs[i].Name] = &hrs[i]
	}
	index := &helmIndex{byID: make(map[string]*helmEntry, len(hrs)), absent: objs.helmReleaseAbsent}
	for i := range hrs {
		hr := &hrs[i]
		owner := hr.Labels[ownerNamespaceLabel] + "/" + hr.Labels[ownerNameLabel]
		n, ok := nodes[owner]
		timeout := hr.GetTimeout().Duration
		h := HelmRelease{
			Namespace: hr.Namespace, Name: hr.Name,
			Ready:    condition(hr.Status.Conditions, meta.ReadyCondition),
			Timeout:  timeout.String(),
			Suspend:  hr.Spec.Suspend,
			Deleting: hr.DeletionTimestamp != nil,
			Progress: progressOf(hr.Status.Conditions, timeout, now),
		}
		readHelmState(&h, hr)
		for _, d := range hr.Spec.DependsOn {
			h.DependsOn = append(h.DependsOn, cmp.Or(d.Namespace, hr.Namespace)+"/"+d.Name)
		}
		if h.waiting() {
			h.ReadyExprs = evalReadyExprs(hr, hr.Spec.DependsOn, byID, "the HelmRelease it depends on was not read: it does not exist, or reading it failed")
		}
		entry := &helmEntry{HelmRelease: h, generation: hr.Generation, observed: hr.Status.ObservedGeneration}
		index.byID[hr.Namespace+"/"+hr.Name] = entry
		if !ok {
			continue
		}
		tier, err := time.ParseDuration(n.Timeout)
		entry.OutlivesTier = err == nil && n.Wait && timeout > tier
		entry.appliedBy = owner
		n.HelmReleases = append(n.HelmReleases, entry.HelmRelease)
	}
	for _, n := range nodes {
		sortHelmReleases(n.HelmReleases)
	}
	return index
}

// findings lists cycles, missing dependencies and sources, suspensions and lags, in node order.
func findings(c *Chain, topo topology) []Finding {
	out := []Finding{}
	// One finding per cycle, on its first member: listing the cycle again for each member (and
	// each Kustomization behind it) made the output grow with the square of the input.
	for _, cy := range topo.cycles {
		out = append(out, Finding{Kind: FindingCycle, Kustomization: cy.members[0],
			Message: fmt.Sprintf("dependsOn cycle through %d Kustomization(s) (%s); kustomize-controller waits on them, and on every Kustomization behind them, forever", len(cy.members), joinList(cy.edges))})
	}
	for _, n := range c.Kustomizations {
		for _, dep := range topo.missing[n.ID] {
			out = append(out, Finding{Kind: FindingMissingDependency, Kustomization: n.ID,
				Message: fmt.Sprintf("depends on %s, which does not exist; it will never become ready", kustomizationRef(dep))})
		}
		if !n.Source.Found && !n.Source.Unread && n.Source.Kind != "" {
			out = append(out, Finding{Kind: FindingMissingSource, Kustomization: n.ID,
				Message: fmt.Sprintf("its source %s %s/%s was not found", n.Source.Kind, n.Source.Namespace, n.Source.Name)})
		}
		out = append(out, terminating(n)...)
		if n.Suspend {
			out = append(out, Finding{Kind: FindingSuspended, Kustomization: n.ID,
				Message: suspendedWhere(n) + ": changes in its source are not applied and drift is not corrected (silent drift)"})
		}
		out = append(out, helmDrift(n)...)
		if n.RevisionLag {
			out = append(out, Finding{Kind: FindingRevisionLag, Kustomization: n.ID,
				Message: fmt.Sprintf("applied revision %s, but its source is at %s", orNone(n.LastApplied), n.Source.Revision)})
		}
		// A reconciliation under way observes the new generation when it ends
		// (kustomization_controller.go finalizeStatus): until then the lag is the work itself.
		if n.ObservedGen != n.Generation && !n.Deleting && !inProgress(n.Progress) {
			out = append(out, Finding{Kind: FindingGenerationLag, Kustomization: n.ID,
				Message: fmt.Sprintf("observedGeneration %d behind generation %d: the controller has not acted on the latest spec", n.ObservedGen, n.Generation)})
		}
	}
	return out
}

// terminating are the findings of a deleting Kustomization and of the deleting HelmReleases
// it applies. A deletion raises metadata.generation, so the deleting node's generation lag is
// the deletion itself and is not reported again.
func terminating(n *Node) []Finding {
	var out []Finding
	if n.Deleting {
		out = append(out, Finding{Kind: FindingTerminating, Kustomization: n.ID,
			Message: "deletion requested; it stays until kustomize-controller removes its finalizer (" + fluxFinalizer + "), its last status is from before"})
	}
	for _, hr := range n.HelmReleases {
		if hr.Deleting {
			out = append(out, Finding{Kind: FindingTerminating, Kustomization: n.ID,
				Message: fmt.Sprintf("its HelmRelease %s/%s: deletion requested; it stays until helm-controller uninstalls the release and removes its finalizer (%s)", hr.Namespace, hr.Name, fluxFinalizer)})
		}
	}
	return out
}

// helmDrift are the findings of the Ready HelmReleases n applies whose cluster state drifted
// (drift detection in warn mode: helm-controller says so and leaves it).
func helmDrift(n *Node) []Finding {
	var out []Finding
	for _, hr := range n.HelmReleases {
		if hr.Release != nil && hr.Release.Kind == ReleaseDriftDetected && hr.Ready != nil && hr.Ready.Status == string(metav1.ConditionTrue) {
			out = append(out, Finding{Kind: FindingHelmDrift, Kustomization: n.ID,
				Message: fmt.Sprintf("its HelmRelease %s/%s is Ready, but %s", hr.Namespace, hr.Name, hr.Release.Message)})
		}
	}
	return out
}

// fluxFinalizer is the finalizer every Flux controller puts on the objects it reconciles.
const fluxFinalizer = "finalizers.fluxcd.io"

// suspendedWhere says what a suspended node stays at: the revision it applied last, when its
// Ready condition says it applied one.
func suspendedWhere(n *Node) string {
	if n.LastApplied != "" && n.Ready != nil && n.Ready.Status == string(metav1.ConditionTrue) {
		return "suspended at " + n.LastApplied
	}
	return "suspended"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// cleanPath is spec.path as kustomize-controller resolves it against the source root:
// "./apps/", "/apps" and "apps" are all "apps"; "" is ".".
func cleanPath(p string) string {
	if c := strings.TrimPrefix(path.Clean("/"+p), "/"); c != "" {
		return c
	}
	return "."
}
