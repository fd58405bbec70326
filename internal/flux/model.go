package flux

import (
	"time"

	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/report"
)

// State is the verdict on one Kustomization.
type State string

// The states a Kustomization can be in, from the chain's point of view.
const (
	// Ready: Ready=True.
	Ready State = "Ready"
	// Failing: Ready=False for its own reason, Stalled, or its source is not ready.
	Failing State = "Failing"
	// Waiting: Ready=False with reason DependencyNotReady.
	Waiting State = "Waiting"
	// Progressing: a reconciliation is running or Ready is Unknown.
	Progressing State = "Progressing"
	// Suspended: spec.suspend is true; whatever its last status said is frozen.
	Suspended State = "Suspended"
	// NoStatus: the controller has not written a Ready condition yet.
	NoStatus State = "NoStatus"
	// Terminating: deletion was requested and finalizers hold the object; whatever its status
	// said is from before.
	Terminating State = "Terminating"
)

// Condition is the part of a status condition the chain reports.
type Condition struct {
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// Source is the object a Kustomization builds from.
type Source struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Found     bool   `json:"found"`
	// Unread is set when the source's type could not be listed, so Found proves nothing.
	Unread bool       `json:"unread,omitempty"`
	Ready  *Condition `json:"ready,omitempty"`
	// Revision is the source's current artifact revision, e.g. `main@sha1:0a1b…`.
	Revision string `json:"revision,omitempty"`
}

// HelmRelease is a HelmRelease applied by a Kustomization (found by the labels
// kustomize-controller sets), with what matters when its tier fails.
type HelmRelease struct {
	Namespace string     `json:"namespace"`
	Name      string     `json:"name"`
	Ready     *Condition `json:"ready,omitempty"`
	Timeout   string     `json:"timeout"`
	Suspend   bool       `json:"suspend,omitempty"`
	// OutlivesTier is set when the HelmRelease may run longer than its Kustomization's timeout,
	// so the tier's health check gives up before helm-controller does.
	OutlivesTier bool `json:"outlivesTier,omitempty"`
	// Deleting is set when the HelmRelease has a deletionTimestamp; Terminating explains what
	// holds it (filled by Drill).
	Deleting    bool                    `json:"deleting,omitempty"`
	Terminating *finalizers.Explanation `json:"terminating,omitempty"`
	// DependsOn are the HelmReleases (namespace/name) its spec.dependsOn names.
	DependsOn []string `json:"dependsOn,omitempty"`
	// ReadyExprs are the readyExprs of its dependsOn entries, evaluated when it waits
	// (Ready=False, DependencyNotReady).
	ReadyExprs []ReadyExpr `json:"readyExprs,omitempty"`
	// Stalled, Released, Remediated, TestSuccess and Drifted are helm-controller's other
	// conditions, when written (helmstate.go reads the release's state from them).
	Stalled     *Condition `json:"stalled,omitempty"`
	Released    *Condition `json:"released,omitempty"`
	Remediated  *Condition `json:"remediated,omitempty"`
	TestSuccess *Condition `json:"testSuccess,omitempty"`
	Drifted     *Condition `json:"drifted,omitempty"`
	// LastAction is status.lastAttemptedReleaseAction (install, upgrade); InstallFailures and
	// UpgradeFailures count the failures against the current spec.
	LastAction      string `json:"lastAttemptedReleaseAction,omitempty"`
	InstallFailures int64  `json:"installFailures,omitempty"`
	UpgradeFailures int64  `json:"upgradeFailures,omitempty"`
	// Release is what helm-controller's conditions say of the Helm release beyond Ready
	// (helmstate.go): retries exhausted, locked by a pending-* operation, drift detected, a
	// test failed; nil when they say nothing more.
	Release *ReleaseState `json:"release,omitempty"`
	// Progress is set while helm-controller runs a release action (Ready=Unknown, reason
	// Progressing): when it started and how long its timeout leaves it.
	Progress *Progress `json:"progress,omitempty"`
	// releaseName and storageNamespace name the Helm release (its storage Secrets), for the
	// command that clears a lock.
	releaseName, storageNamespace string
	// remote is set when its own spec.kubeConfig installs the release on another cluster
	// ("kubeConfig Secret namespace/name"): the storage Secrets are there.
	remote string
}

// Progress is a reconciliation under way: since when, and how much of its timeout is left.
type Progress struct {
	// Since is when it started (RFC 3339): the lastTransitionTime of Ready=Unknown, which the
	// controller writes when it starts the action.
	Since   string `json:"since"`
	Timeout string `json:"timeout"`
	// Remaining is what is left of Timeout; Overdue is set when nothing is: the controller
	// should have given up, so it is a failure, not progress.
	Remaining string `json:"remaining"`
	Overdue   bool   `json:"overdue,omitempty"`
	Message   string `json:"message,omitempty"`
}

// Node is one Kustomization in the chain.
type Node struct {
	ID        string   `json:"id"` // namespace/name
	Namespace string   `json:"namespace"`
	Name      string   `json:"name"`
	DependsOn []string `json:"dependsOn,omitempty"`
	// Inherited are the Kustomizations it waits for because what creates it waits for them
	// (a ResourceSet's or a parent Kustomization's dependsOn); they order its tier.
	Inherited []InheritedDep `json:"inheritedDependsOn,omitempty"`
	// Tier is the node's topological tier (0 has no dependencies); -1 when a cycle or a
	// missing dependency leaves it unordered.
	Tier        int        `json:"tier"`
	State       State      `json:"state"`
	Ready       *Condition `json:"ready,omitempty"`
	Reconciling *Condition `json:"reconciling,omitempty"`
	Stalled     *Condition `json:"stalled,omitempty"`
	// KStatus is the object's kstatus (Current, InProgress, Failed, …).
	KStatus string `json:"kstatus"`
	// Path is spec.path, cleaned ("apps", "." for the source root).
	Path          string `json:"path"`
	Wait          bool   `json:"wait"`
	Timeout       string `json:"timeout"`
	Interval      string `json:"interval"`
	RetryInterval string `json:"retryInterval"`
	Suspend       bool   `json:"suspend"`
	Prune         bool   `json:"prune"`
	Source        Source `json:"source"`
	LastApplied   string `json:"lastAppliedRevision,omitempty"`
	// LastAttempted is status.lastAttemptedRevision, the revision kustomize-controller last
	// started to build and apply.
	LastAttempted string `json:"lastAttemptedRevision,omitempty"`
	// Applying is the source revision kustomize-controller is applying now (Reconciling=True,
	// lastAttemptedRevision at the source's revision, ahead of lastAppliedRevision): not a lag.
	Applying    string `json:"applying,omitempty"`
	RevisionLag bool   `json:"revisionLag"`
	// Progress is set while kustomize-controller reconciles it (Ready=Unknown, reason
	// Progressing): when it started and how long its timeout leaves it.
	Progress     *Progress     `json:"progress,omitempty"`
	Generation   int64         `json:"generation"`
	ObservedGen  int64         `json:"observedGeneration"`
	HelmReleases []HelmRelease `json:"helmReleases,omitempty"`
	// Dependents are the Kustomizations whose dependsOn names this one, or that inherit it.
	Dependents []string `json:"dependents,omitempty"`
	// ReadyExprs are the readyExprs of its dependsOn entries, evaluated when it waits.
	ReadyExprs []ReadyExpr `json:"readyExprs,omitempty"`
	// Deleting is set when the Kustomization has a deletionTimestamp; Terminating explains what
	// holds it (filled by Drill).
	Deleting    bool                    `json:"deleting,omitempty"`
	Terminating *finalizers.Explanation `json:"terminating,omitempty"`
	// readySince is when its Ready condition last changed: kustomize-controller sets it
	// Unknown when a reconciliation starts, so of a Ready one it is when the last one ended.
	readySince time.Time
}

// BlockingObject is an object a failing health check named, as it is on the server now.
type BlockingObject struct {
	Item ObjectItem `json:"item"`
	// Object is the fully qualified reference, set when its kind resolved to one resource.
	Object *finalizers.ObjectRef `json:"object,omitempty"`
	Found  bool                  `json:"found"`
	// KStatus and KMessage are computed now, which may differ from what the controller saw.
	KStatus  string `json:"kstatus,omitempty"`
	KMessage string `json:"kstatusMessage,omitempty"`
	// Terminating explains a deletionTimestamp: who holds the object and how to release it.
	Terminating *finalizers.Explanation `json:"terminating,omitempty"`
	// Conditions are the object's conditions that say why it is not healthy, as they are now
	// (a cert-manager Certificate's Issuing=False, a Deployment's Available=False).
	Conditions []ObjectCondition `json:"conditions,omitempty"`
	// Note says why the object could not be examined further (ambiguous kind, read failure).
	Note    string `json:"note,omitempty"`
	Command string `json:"command,omitempty"`
}

// ObjectCondition is one status condition of an object a health check named.
type ObjectCondition struct {
	Type string `json:"type"`
	Condition
}

// RootCause is a Kustomization that fails for its own reason, or an object several fail on (a
// source that produces no artifact, a missing Secret or ServiceAccount), with what it blocks.
type RootCause struct {
	// Kustomization is the failing Kustomization (namespace/name); "" when Object is the cause.
	Kustomization string `json:"kustomization"`
	// Object is the cause when it is not a Kustomization, fully qualified
	// (`gitrepositories.source.toolkit.fluxcd.io/fleet -n flux-system`), and Tiers the
	// Kustomizations that fail on it directly; the rest of BlastRadius waits behind them. A
	// dependsOn cycle is one cause too: Kustomization is its first member, Tiers its members.
	Object string   `json:"object,omitempty"`
	Tiers  []string `json:"tiers,omitempty"`
	// AppliedBy is the Kustomization (namespace/name) that applies Object, when Object is a
	// HelmRelease whose own dependsOn blocks it.
	AppliedBy string `json:"appliedBy,omitempty"`
	// Code classifies the cause as a stable reason code (codes.go, docs/report.md); Reason is
	// the controller's own reason, as it wrote it.
	Code    report.Reason    `json:"code"`
	Reason  string           `json:"reason"`
	Message string           `json:"message,omitempty"`
	Failure Failure          `json:"failure"`
	Objects []BlockingObject `json:"objects,omitempty"`
	// Explanation is prose for the causes a message alone does not make plain (a CR before its
	// CRD, a revision a dependent waits for, a missing source).
	Explanation []string `json:"explanation,omitempty"`
	// HelmReleases are the failing HelmReleases this Kustomization applies (of a HelmRelease
	// cause, that HelmRelease).
	HelmReleases []HelmRelease `json:"helmReleases,omitempty"`
	// HeldBack are the HelmReleases (namespace/name) whose dependsOn waits on this cause,
	// directly or through other waiting HelmReleases: helm-controller does not install or
	// upgrade them until it recovers.
	HeldBack []string `json:"heldBack,omitempty"`
	// Waiters are the objects between this cause and what fails on it (Tiers, HeldBack) that wait
	// on it through a reference, fully qualified: a HelmChart on its HelmRepository, a source on a
	// Secret it names, a ResourceSet on the HelmRelease it applied (objgraph.go).
	Waiters []string `json:"waiters,omitempty"`
	// BlastRadius lists every Kustomization downstream of this one (of an Object: its Tiers and
	// everything downstream of them), frozen until it recovers.
	BlastRadius []string `json:"blastRadius"`
	// Progress is set on the entries of Chain.Progressing: the object is reconciling within its
	// timeout, and what waits on it waits for a reason that ends by itself.
	Progress *Progress `json:"progress,omitempty"`
	Commands []string  `json:"commands,omitempty"`
	// unread are the reads this cause rests on that failed (a HelmRelease dependency not read):
	// they make the result UNKNOWN.
	unread []report.Gap
}

// FindingKind names a kind of finding.
type FindingKind string

// The findings the chain reports besides root causes.
const (
	FindingCycle             FindingKind = "Cycle"
	FindingMissingDependency FindingKind = "MissingDependency"
	FindingSuspended         FindingKind = "Suspended"
	FindingRevisionLag       FindingKind = "RevisionLag"
	FindingGenerationLag     FindingKind = "GenerationLag"
	FindingMissingSource     FindingKind = "MissingSource"
	FindingStaleWait         FindingKind = "StaleWait"
	FindingTerminating       FindingKind = "Terminating"
	// FindingHelmDrift: a Ready HelmRelease whose cluster state drifted from the release
	// (helm-controller's drift detection in warn mode does not correct it).
	FindingHelmDrift FindingKind = "HelmReleaseDrift"
)

// Finding is a problem in the chain that is not itself a failing reconciliation.
type Finding struct {
	Kind FindingKind `json:"kind"`
	// Code is Kind as a stable kebab-case reason code (codes.go, docs/report.md).
	Code          report.Reason `json:"code"`
	Kustomization string        `json:"kustomization"`
	Message       string        `json:"message"`
}

// Chain is the analysed dependency graph of a set of Kustomizations.
type Chain struct {
	// Tiers lists node ids per topological tier, tier 0 first; each tier sorted.
	Tiers [][]string `json:"tiers"`
	// Unordered lists nodes a cycle or missing dependency keeps out of every tier.
	Unordered      []string    `json:"unordered,omitempty"`
	Kustomizations []*Node     `json:"kustomizations"`
	RootCauses     []RootCause `json:"rootCauses"`
	// Progressing are the objects reconciling within their timeout (a release upgrading, a
	// Kustomization applying a revision), with what waits on them: not failures.
	Progressing []RootCause `json:"progressing,omitempty"`
	Findings    []Finding   `json:"findings"`
	// Unaffected lists the Kustomizations no root cause reaches.
	Unaffected []string `json:"unaffected"`
	// Unevaluated are what the analysis could not decide (a readyExpr that did not evaluate):
	// a command carries them into its result's incomplete reads, so the verdict is UNKNOWN.
	Unevaluated []report.Gap `json:"-"`
}

// Node returns the node with the given id, or nil.
func (c *Chain) Node(id string) *Node {
	for _, n := range c.Kustomizations {
		if n.ID == id {
			return n
		}
	}
	return nil
}

// Healthy reports whether every Kustomization is Ready at its source's revision, or waits on
// a reconciliation in progress (Progressing), and nothing was found.
func (c *Chain) Healthy() bool {
	return len(c.RootCauses) == 0 && len(c.Findings) == 0 && c.allReady()
}

func (c *Chain) allReady() bool {
	moving := map[string]bool{}
	for _, p := range c.Progressing {
		for _, id := range append(append([]string{p.Kustomization, p.AppliedBy}, p.Tiers...), p.BlastRadius...) {
			moving[id] = true
		}
	}
	for _, n := range c.Kustomizations {
		if n.State != Ready && !moving[n.ID] {
			return false
		}
	}
	return true
}
