// Package helmjudge judges what a GitOps change does through Helm: what deleting a Flux
// HelmRelease uninstalls (JudgeUninstall), which objects an upgrade or a reinstall deletes
// (Renderer.Apply, from renders of both revisions; Upgrades, from the values alone), which
// changes reinstall a release unseen (Retargets), and, live, what a release owns (Reader,
// from helm-controller's storage). internal/retire calls it for the HelmReleases among its
// removals and folds what it returns into its own verdicts and plans; this package never
// imports retire, and speaks of objects as inventory.Ref. The offline rules of Helm and of
// charts whose templates were read are internal/retire/helm's.
package helmjudge

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire/inventory"
)

// The labels helm-controller puts on every object of a release (its origin-labels post-renderer,
// since helm-controller v0.9.0) and the annotations Helm puts on every object of a release's
// manifest.
const (
	NameLabel                  = "helm.toolkit.fluxcd.io/name"
	NamespaceLabel             = "helm.toolkit.fluxcd.io/namespace"
	ReleaseNameAnnotation      = "meta.helm.sh/release-name"
	ReleaseNamespaceAnnotation = "meta.helm.sh/release-namespace"
)

// ReleaseKind is the GroupKind of a Flux HelmRelease.
const ReleaseKind = "HelmRelease.helm.toolkit.fluxcd.io"

// Unit is one Kustomization's objects at both revisions, as the judgement reads them.
type Unit struct {
	// Kustomization is its id (namespace/name, or ResourceSet/namespace/name).
	Kustomization   string
	Base, Candidate []*unstructured.Unstructured
	// Cluster is the cluster the Kustomization applies to when it is not its own (its
	// spec.kubeConfig, retire.Kustomization.Cluster), "" otherwise: the HelmReleases it
	// declares, and their releases, are on that cluster (Remote).
	Cluster string
}

// Kinds says which objects hold persistent state (retire.Kinds).
type Kinds interface {
	Has(ref inventory.Ref) bool
}

// helmReleaseID is the HelmRelease namespace/name as a gap's subject: its kind is HelmRelease,
// not the qualified ReleaseKind.
func helmReleaseID(namespace, name string) report.ObjectID {
	return report.ObjectID{Group: "helm.toolkit.fluxcd.io", Kind: "HelmRelease", Namespace: namespace, Name: name}
}

// idSubject is the object a Flux inventory id names, as a subject; empty (not known) when the
// id names none.
func idSubject(id string) report.ObjectID {
	r, err := inventory.ParseID(id)
	if err != nil {
		return report.ObjectID{}
	}
	return r.GapID()
}

// notJudged is a change that was not judged for what it is (a reinstall, an upgrade not
// rendered): what names it, why says why it was not judged.
func notJudged(subject report.ObjectID, reason report.GapReason, what, why string) report.Gap {
	return report.Gap{Op: report.OpJudge, Subject: subject, Reason: reason, What: what, Error: why}
}
