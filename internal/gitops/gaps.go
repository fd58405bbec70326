package gitops

import (
	"errors"

	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/report"
)

// GapID is the tier's Kustomization, or the ResourceSet that renders it, as a gap's subject.
func (t *Tier) GapID() report.ObjectID {
	return OwnerID(t.Owner, t.Kustomization.Namespace, t.Kustomization.Name)
}

// OwnerID names what prunes a tier as a gap's subject: a Flux Kustomization when owner is "",
// else the Flux Operator object of that kind (a ResourceSet).
func OwnerID(owner, namespace, name string) report.ObjectID {
	if owner != "" {
		return report.ObjectID{Group: "fluxcd.controlplane.io", Kind: owner, Namespace: namespace, Name: name}
	}
	return report.ObjectID{Group: "kustomize.toolkit.fluxcd.io", Kind: "Kustomization", Namespace: namespace, Name: name}
}

// NotCoveredGap is the build of a tier not covered (NotCovered says why: its source is not
// the repository's) as a gap: a build not made, because its source is outside what is read.
// Its line is "namespace/name: why".
func (t *Tier) NotCoveredGap() report.Gap {
	return report.Gap{Op: report.OpBuild, Subject: t.GapID(), Reason: report.GapNotRead, What: t.ID(), Error: t.NotCovered}
}

// undecodedGaps are the Kustomizations of a build that did not decode (err joins one error
// each, as kbuild.KustomizationsWithFiles returns them), each named as its gap's subject when
// kbuild says which it is. A gap's line is the error's message.
func undecodedGaps(err error) []report.Gap {
	if err == nil {
		return nil
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	var out []report.Gap
	for _, e := range errs {
		var d *kbuild.DecodeError
		if !errors.As(e, &d) {
			out = append(out, report.Gap{Op: report.OpDecode, Reason: report.GapDecodeError, What: e.Error()})
			continue
		}
		out = append(out, report.Gap{Op: report.OpDecode, Reason: report.GapDecodeError, What: "Kustomization " + d.Namespace + "/" + d.Name, Error: d.Err.Error(),
			Subject: report.ObjectID{Group: "kustomize.toolkit.fluxcd.io", Kind: "Kustomization", Namespace: d.Namespace, Name: d.Name}})
	}
	return out
}
