// Package retire decides what a GitOps change retires and how to retire it safely. Gate
// builds a repository at a base and a candidate revision (through internal/gitops) and, per Flux
// Kustomization, names every object the candidate drops, whether Flux would prune it, keep it
// (an opt-out) or hand it to another Kustomization, whether it holds persistent state, and the
// staged plan — protect, drain, remove, delete by hand — with exact commands.
//
// The decisions (Diff, Judge, Persistence, AssessWedge, Planner) are pure. The live gate reads
// the cluster only through the Cluster interface (LiveCluster over a real API server), so the
// whole gate runs in tests against a cluster of their own; FindOrphans reads a real one.
package retire

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire/helmjudge"
	"github.com/kubeforensics/suite/internal/retire/inventory"
)

// The annotations kustomize-controller honours on a live object before pruning it.
const (
	PruneAnnotation     = "kustomize.toolkit.fluxcd.io/prune"
	ReconcileAnnotation = "kustomize.toolkit.fluxcd.io/reconcile"
	SSAAnnotation       = "kustomize.toolkit.fluxcd.io/ssa"
	// Disabled is the value of the prune and reconcile annotations that opts an object out.
	Disabled = "disabled"
)

// Ref identifies one object the way a Flux inventory does (inventory.Ref).
type Ref = inventory.Ref

// RefOf is the identity of a built or live object.
func RefOf(u *unstructured.Unstructured) Ref { return inventory.RefOf(u) }

// ParseID reads a Flux inventory id (inventory.ParseID).
func ParseID(id string) (Ref, error) { return inventory.ParseID(id) }

// Kustomization is the part of a Flux Kustomization a retirement depends on.
type Kustomization struct {
	// Kind is "" for a Flux Kustomization and "ResourceSet" for a Flux Operator ResourceSet,
	// which deletes what it no longer renders (prune always on) unless the object opts out with
	// fluxcd.controlplane.io/prune: disabled.
	Kind      string `json:"kind,omitempty"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Path      string `json:"path"`
	Prune     bool   `json:"prune"`
	Wait      bool   `json:"wait"`
	// HealthChecks is set when spec.healthChecks names objects (they are waited on like wait).
	HealthChecks bool   `json:"healthChecks,omitempty"`
	Timeout      string `json:"timeout,omitempty"`
	// DeletionPolicy is spec.deletionPolicy ("" is MirrorPrune): what deleting the
	// Kustomization does to what it applied.
	DeletionPolicy string `json:"deletionPolicy,omitempty"`
	// Suspend is spec.suspend: a suspended Kustomization deletes nothing when deleted.
	Suspend bool `json:"suspend,omitempty"`
	// Cluster names the cluster it applies to when that is not the controller's own: its
	// spec.kubeConfig ("kubeConfig Secret namespace/name"); "" for the controller's cluster.
	// Objects of the same id applied to two clusters are two objects, never a move.
	Cluster string `json:"cluster,omitempty"`
}

// ID is `namespace/name` for a Kustomization and `ResourceSet/namespace/name` for a
// ResourceSet, so a ResourceSet and a Kustomization of the same name are never one unit.
func (k Kustomization) ID() string {
	if k.Kind != "" {
		return k.Kind + "/" + k.Namespace + "/" + k.Name
	}
	return k.Namespace + "/" + k.Name
}

// Outcome is what Flux does with an object the candidate no longer declares.
type Outcome string

// The outcomes of a removal.
const (
	// Pruned: kustomize-controller deletes the object.
	Pruned Outcome = "Pruned"
	// Retained: an opt-out keeps the object; Flux drops it from its inventory and leaves it.
	Retained Outcome = "Retained"
	// Moved: another Kustomization declares it in the candidate.
	Moved Outcome = "Moved"
	// NotManaged: the object is in no live inventory, so Flux prunes nothing (live mode only).
	NotManaged Outcome = "NotManaged"
	// Upgraded: both revisions declare the HelmRelease and the candidate changes what its chart
	// renders: helm-controller upgrades the release, and Helm deletes every object of the old
	// manifest that the new one no longer has (except those it keeps).
	Upgraded Outcome = "Upgraded"
)

// Persistence says why an object holds state that a deletion loses.
type Persistence struct {
	// Detail is what the deletion takes with it, e.g. "cascades to the 12 objects in it".
	Detail string `json:"detail"`
	// Count is the number of objects the deletion cascades to (namespace content, custom
	// resources of a CRD); -1 when unknown.
	Count int `json:"count,omitempty"`
}

// Live is what the cluster says about a removed object, filled by the live gate.
type Live struct {
	Exists      bool     `json:"exists"`
	Terminating bool     `json:"terminating,omitempty"`
	Finalizers  []string `json:"finalizers,omitempty"`
	// Annotations and Labels are the live object's opt-outs: the ones Flux actually reads,
	// and only those.
	Annotations map[string]string `json:"annotations,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	// Consumers are the pods that mount a claim (they hold kubernetes.io/pvc-protection).
	Consumers []finalizers.Blocker `json:"consumers,omitempty"`
	// Cost is what deleting the object loses (the bound volume's reclaim policy).
	Cost string `json:"cost,omitempty"`
	// Count is the live cascade count (namespace content, custom resources); -1 when unread.
	Count int `json:"count,omitempty"`
	// Helm is what a removed HelmRelease's release owns, listed live.
	Helm *helmjudge.Live `json:"helm,omitempty"`
	// Templates is a StatefulSet's volumeClaimTemplates and retention policy, as read live, ""
	// when it has none; Claims are the claims it made from them, each deleted with it
	// (WithOwner, whenDeleted: Delete) or left orphaned.
	Templates  string             `json:"templates,omitempty"`
	Claims     []helmjudge.Object `json:"claims,omitempty"`
	Incomplete []report.Gap       `json:"incomplete,omitempty"`

	// object is a live custom resource as the API server holds it (its CRD's defaults
	// applied), and crd its CustomResourceDefinition: what customState reads; never printed.
	object, crd *unstructured.Unstructured
}

// Wedge says that a prune which cannot finish would hold a Kustomization's health check and
// freeze the Kustomizations downstream of it.
type Wedge struct {
	Kustomization string   `json:"kustomization"`
	Timeout       string   `json:"timeout,omitempty"`
	Frozen        []string `json:"frozen"`
	Why           string   `json:"why"`
}

// Removal is one object a Kustomization's candidate no longer declares.
type Removal struct {
	Object        Ref    `json:"object"`
	ID            string `json:"id"`
	Kustomization string `json:"kustomization"`
	// Cluster is set when the object lives on another cluster than the one its Kustomization
	// lives on: that Kustomization's spec.kubeConfig ("kubeConfig Secret namespace/name"), or,
	// for an object a Helm upgrade deletes, its HelmRelease's own (HelmDrop.Cluster).
	// Commands on the object are not aimed at this run's cluster (Planner), and a live run
	// does not read it there.
	Cluster string `json:"cluster,omitempty"`
	// File is the manifest that declared the object at base, relative to the repository root.
	File string `json:"file,omitempty"`
	// Line is the 1-based line of the object's `kind:` in File at base, 0 when not located.
	Line    int     `json:"line,omitempty"`
	Outcome Outcome `json:"outcome"`
	// OptOut names what keeps a retained object, e.g. `kustomize.toolkit.fluxcd.io/prune: disabled`.
	OptOut string `json:"optOut,omitempty"`
	// MovedTo is the Kustomization that declares the object in the candidate.
	MovedTo string `json:"movedTo,omitempty"`
	// InInventory is set when the live inventory lists the object (live mode).
	InInventory bool `json:"inInventory,omitempty"`
	// KustomizationDeleted is set when the candidate deletes the Kustomization itself (its
	// manifest, usually with its path): the object goes with it, as its deletionPolicy says.
	KustomizationDeleted bool         `json:"kustomizationDeleted,omitempty"`
	Persistent           *Persistence `json:"persistent,omitempty"`
	Live                 *Live        `json:"live,omitempty"`
	Wedge                *Wedge       `json:"wedge,omitempty"`
	// Helm is what deleting a HelmRelease does to its Helm release.
	Helm *helmjudge.Uninstall `json:"helm,omitempty"`
	// HelmDrop is set when Helm, not Flux, deletes the object: its release's new manifest
	// drops it, or the release is reinstalled.
	HelmDrop *helmjudge.Drop `json:"helmDrop,omitempty"`
	// DeclaredConsumers are workloads in the candidate build that still mount a removed claim.
	DeclaredConsumers []Ref `json:"declaredConsumers,omitempty"`
	Unsafe            bool  `json:"unsafe"`
	// Reason is the code of the verdict (reason.go): the first of ReasonCodes, else the
	// outcome's, e.g. prune-persistent, retained-opt-out.
	Reason Reason `json:"reason,omitempty"`
	// Reasons say why the removal is unsafe or what to watch for; ReasonCodes are their
	// codes, one for each, in the same order.
	Reasons     []string `json:"reasons,omitempty"`
	ReasonCodes []Reason `json:"reasonCodes,omitempty"`
	Plan        []Stage  `json:"plan,omitempty"`

	// base is the object as built at base; nil when only the live inventory lists it.
	base *unstructured.Unstructured
	// render is a removed HelmRelease's render at base (Request.Helm), nil when none;
	// renderGap says why it has none.
	render    *helmrender.Render
	renderGap string
	// cascadeUnseen says what deleting a moved Flux Kustomization or ResourceSet deletes that
	// is not judged here (cascadeOf), "" when nothing.
	cascadeUnseen string
	// stateKept names the deletion policy that keeps what a custom resource's operator made,
	// and stateUnknown why nothing shows what the operator does with it (customState); ""
	// when neither.
	stateKept, stateUnknown string
}

// Base returns the object as built at base, or nil when only the live inventory lists it.
func (r *Removal) Base() *unstructured.Unstructured { return r.base }

// Stage is one step of a retirement plan and the check that ends it.
type Stage struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
	// Do is what to change (in git, or on the cluster for stage 4).
	Do       []string `json:"do"`
	Commands []string `json:"commands,omitempty"`
	// Check is the command whose output ends the stage, and Expect what it must show.
	Check  string `json:"check,omitempty"`
	Expect string `json:"expect,omitempty"`
	// Cost is what the stage loses, "" when nothing.
	Cost string `json:"cost,omitempty"`
	// Done is set for stages the change already carries (a retained removal has been protected).
	Done bool `json:"done,omitempty"`
}
