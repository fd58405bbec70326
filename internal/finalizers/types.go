// Package finalizers explains why an object stays Terminating: for each finalizer it names who
// removes it, what that remover waits for, the concrete objects that hold it (the pod that
// mounts a claim, the dependents a foreground deletion waits on, a namespace's remaining
// content, the controller that is gone), their owners up to the workload and the GitOps object
// that manages them, and the remediation with what it costs.
//
// Explanations are built from live reads through cluster.Clients, metadata-only wherever the
// object's body is not needed; a read that fails is recorded as Incomplete, never as "none".
package finalizers

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubeforensics/suite/internal/report"
)

// ObjectRef names one object fully qualified: its resource (`persistentvolumeclaims`,
// `backups.velero.io`), namespace and name, plus the kind for display.
type ObjectRef struct {
	Group     string `json:"group"`
	Version   string `json:"version"`
	Resource  string `json:"resource"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// QualifiedResource is `persistentvolumeclaims` for the core group, `backups.velero.io` otherwise.
func (r ObjectRef) QualifiedResource() string {
	if r.Group == "" {
		return r.Resource
	}
	return r.Resource + "." + r.Group
}

// String renders `persistentvolumeclaims/headlamp -n headlamp` (no namespace part when
// cluster-scoped), the spelling kubectl accepts back.
func (r ObjectRef) String() string {
	s := r.QualifiedResource() + "/" + r.Name
	if r.Namespace != "" {
		s += " -n " + r.Namespace
	}
	return s
}

// GitOpsOwner is the Flux object that applies an object, read from the labels
// kustomize-controller and helm-controller set.
type GitOpsOwner struct {
	Kind      string `json:"kind"` // Kustomization or HelmRelease
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// String renders `Kustomization flux-system/apps`.
func (g GitOpsOwner) String() string { return fmt.Sprintf("%s %s/%s", g.Kind, g.Namespace, g.Name) }

// Blocker is a concrete object that keeps a finalizer in place.
type Blocker struct {
	Object ObjectRef `json:"object"`
	// Code is the kind of blocker as a stable reason code (codes.go, docs/report.md).
	Code report.Reason `json:"code"`
	// Reason says how it blocks, e.g. `mounts the claim as volume "plugins-dir"`.
	Reason string `json:"reason"`
	// Details are facts an operator weighs before acting: phase, age, node, reclaim policy.
	Details []string `json:"details,omitempty"`
	// OwnerChain runs from the blocker's controller up to the top workload (ReplicaSet, Deployment).
	OwnerChain  []ObjectRef  `json:"ownerChain,omitempty"`
	GitOps      *GitOpsOwner `json:"gitOpsOwner,omitempty"`
	Terminating *Explanation `json:"terminating,omitempty"` // the blocker is itself stuck
	// Count stands for many objects of one type summarised in one blocker (namespace content).
	Count int `json:"count,omitempty"`

	// labels are the blocker's own labels, for the admission check of a command on it.
	labels map[string]string
	// webhook names the admission webhook when the blocker is a webhook configuration.
	webhook string
	// service is the Service behind a webhook, conversion webhook or APIService blocker.
	service *serviceRef
	// named is set when the object's own condition names the webhook (namedwebhook.go).
	named *namedFailure
}

// serviceRef names a Service a webhook or APIService calls.
type serviceRef struct{ namespace, name string }

func (s serviceRef) String() string { return "services/" + s.name + " -n " + s.namespace }

// Remediation is one way out, cheapest safe option first.
type Remediation struct {
	// Code is the kind of step as a stable reason code (codes.go), where the step is one of the
	// kinds docs/report.md lists; "" for a note that is no step of its own.
	Code    report.Reason `json:"code,omitempty"`
	Summary string        `json:"summary"`
	// Command is the exact command, always with an explicit --context.
	Command string `json:"command,omitempty"`
	// Cost is what the step loses or risks; "" only when nothing is lost.
	Cost string `json:"cost,omitempty"`
	// LastResort marks steps that bypass the controller (removing a finalizer by hand).
	LastResort bool `json:"lastResort,omitempty"`
	// RejectedBy names the fail-closed admission webhooks that would reject Command as things
	// stand; the steps that restore or remove them come before this one.
	RejectedBy []string `json:"rejectedBy,omitempty"`
	// JudgedBy names the fail-closed admission webhooks that intercept Command and answer: the
	// API server sends them the request, and they may refuse it while the object is in a state
	// they guard.
	JudgedBy []string `json:"judgedBy,omitempty"`

	// request is the API request Command makes, checked against admission webhooks (guard.go).
	request *apiRequest
	// logs is how Command reads a workload's logs, kept so that it can be built again for the
	// workload's leader pod (leaderlogs.go).
	logs *logsCommand
}

// Finalizer explains one finalizer on the object.
type Finalizer struct {
	Name string `json:"name"`
	// Code is the finalizer's verdict as a stable reason code (codes.go, docs/report.md): what
	// keeps it in place, or that nothing does.
	Code      report.Reason `json:"code"`
	RemovedBy string        `json:"removedBy"`
	WaitsFor  string        `json:"waitsFor"`
	Blockers  []Blocker     `json:"blockers,omitempty"`
	// Waiting are objects that are not blocked but wait their turn: under ordered namespace
	// deletion, everything but pods waits until the namespace's pods are gone.
	Waiting []Blocker `json:"waiting,omitempty"`
	// Controllers are the workloads (or service accounts without one) that may remove the
	// finalizer, most likely first; Attribution says what evidence chose them.
	Controllers []Controller `json:"controllers,omitempty"`
	Attribution string       `json:"attribution,omitempty"`
	// Domain is the finalizer's domain (`tailscale.com` of `tailscale.com/finalizer`) when the
	// candidates were ranked by their ties to it; Unrelated are workloads that may update the
	// object but that nothing ties to the domain: they merely could remove it, and are never
	// named as its remover.
	Domain    string       `json:"domain,omitempty"`
	Unrelated []Controller `json:"unrelated,omitempty"`
	// Orphaned is set when no running workload may update the object while the finalizer's
	// product (a workload tied to its domain) is installed: nothing will ever remove it.
	Orphaned bool `json:"orphaned,omitempty"`
	// Paused are the pause markers on the object and its owners that make the remover skip it.
	Paused []PauseMarker `json:"paused,omitempty"`
	// Stalled is set when its remover runs, Ready, but has shown no work on the object for
	// longer than the stall grace period, with nothing else (blocker, referrer, pause marker)
	// to explain it: the evidence, the likely reasons, since when (stalled.go).
	Stalled *Stall `json:"stalled,omitempty"`
	// TypeEvidence is what the object's CustomResourceDefinition says about who installed it:
	// Helm release, ownership labels, owners and whether they still exist.
	TypeEvidence []string      `json:"typeEvidence,omitempty"`
	Remedies     []Remediation `json:"remediation,omitempty"`
	// Incomplete lists reads that failed while explaining this finalizer and that could change
	// its verdict; they make the result UNKNOWN.
	Incomplete []report.Gap `json:"incomplete,omitempty"`
	// Unchecked lists reads that failed but cannot change this finalizer's verdict (a blocker
	// is already proven, or the failure's subject is ruled out by the controller's own status).
	Unchecked []report.Gap `json:"unchecked,omitempty"`

	// bypass is the removal of this one finalizer by hand as its controller's explainer built
	// it, kept for a verdict decided later that offers it (a stalled remover).
	bypass *Remediation
	// refs is what the search for referrers read when it read every candidate type in full and
	// found none (refblockers.go); nil when it did not run or could not read everything.
	refs *refRead
	// uninstalled is set when the steps were put in the order of an uninstalled product (the
	// strip first; typegoing.go), for the object's recorded cleanup to reconsider
	// (uninstalledcleanup.go).
	uninstalled bool
}

// Controller is a workload expected to remove a custom finalizer, with the evidence for it.
// Found false with an Object is a service account that may act but that no workload runs as;
// Found false without one means no candidate exists.
type Controller struct {
	Object  ObjectRef `json:"object"`
	Found   bool      `json:"found"`
	Ready   string    `json:"ready,omitempty"` // "1/1"
	Healthy bool      `json:"healthy"`
	// ScaledToZero is set when the workload asks for no replica at all.
	ScaledToZero bool   `json:"scaledToZero,omitempty"`
	Note         string `json:"note,omitempty"`
	// Evidence lists what ties the workload to the object: its service account and the RBAC
	// role and binding that let it update the object, a Helm release it shares with the CRD,
	// an operator's custom resource that names it.
	Evidence []string `json:"evidence,omitempty"`
	// BroadOnly is set when its rights come only from rules that allow everything
	// (cluster-admin): weak evidence, used only when nothing narrower qualifies.
	BroadOnly bool `json:"broadRightsOnly,omitempty"`
	// Confidence grades its ties to the finalizer's domain (high, medium, low, none) and Ties
	// are that evidence, strongest first; both are empty where no domain was judged (a
	// finalizer without a domain, an attribution a product's own resources decide).
	Confidence Confidence `json:"confidence,omitempty"`
	Ties       []string   `json:"ties,omitempty"`
	// GitOps is the Flux object that manages a candidate that is gone or not ready, with what
	// holds that object back (gitopslink.go); nil when nothing manages it or it is healthy.
	GitOps *GitOpsLink `json:"gitOps,omitempty"`
}

// PauseMarker is a marker on the object or an owner that tells its controller to skip it:
// an annotation or label whose key names a pause, a suspension or a skipped reconcile, or a
// spec field paused/suspend set true.
type PauseMarker struct {
	Object ObjectRef `json:"object"`
	// Field is where the marker is: `metadata.annotations[cluster.x-k8s.io/paused]`,
	// `metadata.labels[...]`, `spec.paused`.
	Field string `json:"field"`
	Value string `json:"value"`
}

// Condition is a status condition of the object as its controller wrote it.
type Condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	// LastTransition is when the condition last changed, when the controller set it (not kept
	// for namespaces, whose conditions are checked against a fresh sweep instead).
	LastTransition *time.Time `json:"lastTransitionTime,omitempty"`
	// Stale is set when a fresh check disagrees with the condition as the controller wrote it.
	Stale string `json:"stale,omitempty"`
}

// Explanation says why one object is (or is not) Terminating.
type Explanation struct {
	Object            ObjectRef  `json:"object"`
	Terminating       bool       `json:"terminating"`
	DeletionTimestamp *time.Time `json:"deletionTimestamp,omitempty"`
	// TerminatingFor is the age of the deletion request, e.g. "3h12m": for a pod, counted from
	// the request (deletionTimestamp minus the grace period it was given).
	TerminatingFor string `json:"terminatingFor,omitempty"`
	// GracePeriodSeconds is the grace period the deletion was requested with, when set.
	GracePeriodSeconds *int64       `json:"gracePeriodSeconds,omitempty"`
	GitOps             *GitOpsOwner `json:"gitOpsOwner,omitempty"`
	Finalizers         []Finalizer  `json:"finalizers,omitempty"`
	// Pending explains an object with a deletionTimestamp and no finalizers left, and
	// PendingCode is what it waits for as a stable reason code (codes.go, docs/report.md).
	Pending     string        `json:"pending,omitempty"`
	PendingCode report.Reason `json:"pendingCode,omitempty"`
	Conditions  []Condition   `json:"conditions,omitempty"`
	// Status is the object's own status message (status.message, status.phase), verbatim.
	Status []string `json:"status,omitempty"`
	// Events are the events recorded about the object since its deletion was requested,
	// newest first.
	Events []Event `json:"events,omitempty"`
	// Deleting is set when the evidence says the deletion progresses on its own (grace period
	// left on a Ready node whose kubelet posts, or a running controller whose work on the
	// object shows recently): not stuck, and no forced step is offered. Progress is that evidence.
	Deleting bool     `json:"deleting,omitempty"`
	Progress []string `json:"progress,omitempty"`
	// ProgressEvidence is the same evidence typed, one model for every finalizer, with the
	// evidence against (Against) that kept a deletion from counting as progressing: a Warning
	// event, a controller that has not observed the deletion, a remover's lease not renewed.
	ProgressEvidence []ProgressEvidence `json:"progressEvidence,omitempty"`
	// Unchecked lists reads about the object itself that failed but cannot change the verdict.
	Unchecked []report.Gap `json:"unchecked,omitempty"`
	// Remedies applies to the object as a whole (used when no finalizer is left).
	Remedies []Remediation `json:"remediation,omitempty"`
}

// Event is one event recorded about an object, as the component that reported it wrote it.
type Event struct {
	Type    string    `json:"type"`
	Reason  string    `json:"reason"`
	Message string    `json:"message"`
	Source  string    `json:"source,omitempty"`
	Count   int32     `json:"count,omitempty"`
	Last    time.Time `json:"lastSeen"`
}

// Stuck reports whether the object is Terminating and nothing shows its deletion progressing.
func (e *Explanation) Stuck() bool { return e.Terminating && !e.Deleting }

// Incomplete reports whether any read behind the explanation, or a nested one, failed.
func (e *Explanation) Incomplete() bool {
	for _, f := range e.Finalizers {
		if len(f.Incomplete) > 0 {
			return true
		}
		for _, b := range f.Blockers {
			if b.Terminating != nil && b.Terminating.Incomplete() {
				return true
			}
		}
	}
	return false
}

// Age renders a duration the way kubectl's AGE column does: 45s, 12m, 3h12m, 11d.
func Age(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		h := int(d.Hours())
		if m := int(d.Minutes()) - 60*h; m > 0 {
			return fmt.Sprintf("%dh%dm", h, m)
		}
		return fmt.Sprintf("%dh", h)
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// quote renders a list of names for prose: "a", "a and b", "a, b and c".
func quote(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
