package retire

import (
	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/report"
)

// GapID is the Kustomization (or ResourceSet) as a gap's subject.
func (k Kustomization) GapID() report.ObjectID { return gitops.OwnerID(k.Kind, k.Namespace, k.Name) }

// tierGapID is the Kustomization (or ResourceSet) of a built tier as a gap's subject.
func tierGapID(t *gitops.Tier) report.ObjectID { return t.GapID() }

// notJudged is a change that was not judged, not for a failed read but for what it is (a
// sourceRef switch, a path in neither revision, an uninstall not seen): what names it (the
// Kustomization or HelmRelease), why says why it was not judged.
func notJudged(subject report.ObjectID, reason report.GapReason, what, why string) report.Gap {
	return report.Gap{Op: report.OpJudge, Subject: subject, Reason: reason, What: what, Error: why}
}

// readGap is a request of op on subject that failed with err; what says what is unknown.
func readGap(op report.GapOp, subject report.ObjectID, what string, err error) report.Gap {
	return cluster.Gap(op, subject, what, err)
}

// errGap is like readGap with the error as it was returned (not as cluster.Reason words a
// request's failure): a build's, a decode's or the Helm storage's error.
func errGap(op report.GapOp, subject report.ObjectID, reason report.GapReason, what string, err error) report.Gap {
	return report.Gap{Op: op, Subject: subject, Reason: reason, What: what, Error: err.Error()}
}
