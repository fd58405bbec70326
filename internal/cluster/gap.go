package cluster

import (
	"context"
	"errors"
	"net"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubeforensics/suite/internal/report"
)

// GapReason classifies a failed request for a report.Gap, by the error's type (an API status,
// a network error), as Reason words it for people.
func GapReason(err error) report.GapReason {
	var netErr net.Error
	switch {
	case err == nil:
		return report.GapFailed
	case apierrors.IsForbidden(err):
		return report.GapForbidden
	case apierrors.IsUnauthorized(err):
		return report.GapUnauthorized
	case errors.Is(err, context.DeadlineExceeded), apierrors.IsTimeout(err), apierrors.IsServerTimeout(err),
		errors.As(err, &netErr) && netErr.Timeout():
		return report.GapTimeout
	case isUnreachable(err):
		return report.GapUnreachable
	case apierrors.IsNotFound(err):
		return report.GapNotFound
	}
	return report.GapFailed
}

// Gap is the gap a failed request leaves: op on subject failed with err; what says, for
// people, what is unknown because of it. Error is Reason's wording of err.
func Gap(op report.GapOp, subject report.ObjectID, what string, err error) report.Gap {
	g := report.Gap{Op: op, Subject: subject, Reason: GapReason(err), What: what}
	if err != nil {
		g.Error = Reason(err)
	}
	return g
}
