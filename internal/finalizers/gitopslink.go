package finalizers

import "github.com/kubeforensics/suite/internal/report"

// GitOpsLink is the GitOps object that manages a remover that is gone or not ready (the Flux
// Kustomization or HelmRelease whose labels or inventory name the workload), its state, and,
// when it fails or waits, the root causes that hold it back as flux-chain computes them. The
// explainer leaves it nil; a caller that reads the GitOps objects fills it.
type GitOpsLink struct {
	Kind      string `json:"kind"` // Kustomization or HelmRelease
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Via is the evidence that ties the remover to it: the labels its controller sets, or the
	// Kustomization inventory that lists the remover.
	Via string `json:"via"`
	// State is the object's state as flux-chain judges it (Ready, Failing, Waiting,
	// Progressing, Suspended, NoStatus, Terminating), NotFound when the object the labels
	// name does not exist, or Unknown when it could not be read (Reason says why).
	State  string     `json:"state"`
	Ready  *Condition `json:"ready,omitempty"`
	Reason string     `json:"reason,omitempty"`
	// Unchecked are the reads that failed when the state is Unknown for them (a HelmRelease
	// not among those read while some reads failed); Reason says what they leave unknown. The
	// link is context for a remover, so they do not change the verdict.
	Unchecked []report.Gap `json:"unchecked,omitempty"`
	// Causes are the root causes that hold it back, first the one nearest to it.
	Causes []GitOpsCause `json:"causes,omitempty"`
	// AppliedBy is the link one step up, when the object is itself applied by a Kustomization
	// (a HelmRelease from a Kustomization's path) that is not Ready.
	AppliedBy *GitOpsLink `json:"appliedBy,omitempty"`
}

// GitOpsCause is one root cause flux-chain finds behind a GitOps object that is not Ready.
type GitOpsCause struct {
	// Object is the cause, fully qualified (a Kustomization, a HelmRelease, a source).
	Object string `json:"object"`
	// Code is flux-chain's reason code for it (docs/report.md); Reason and Message are the
	// controller's own words.
	Code        report.Reason `json:"code"`
	Reason      string        `json:"reason,omitempty"`
	Message     string        `json:"message,omitempty"`
	Explanation []string      `json:"explanation,omitempty"`
}

// String renders `Kustomization flux-system/apps`.
func (l GitOpsLink) String() string { return l.Kind + " " + l.Namespace + "/" + l.Name }
