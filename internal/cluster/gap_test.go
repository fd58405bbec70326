package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/report"
)

// A gap's reason comes from the error's type, never from its wording.
func TestGapReason(t *testing.T) {
	secrets := schema.GroupResource{Resource: "secrets"}
	for _, tc := range []struct {
		name string
		err  error
		want report.GapReason
	}{
		{"forbidden", apierrors.NewForbidden(secrets, "x", errors.New("RBAC")), report.GapForbidden},
		{"forbidden, wrapped", fmt.Errorf("listing: %w", apierrors.NewForbidden(secrets, "", errors.New("no"))), report.GapForbidden},
		{"unauthorized", apierrors.NewUnauthorized("who"), report.GapUnauthorized},
		{"not found", apierrors.NewNotFound(secrets, "x"), report.GapNotFound},
		{"deadline", fmt.Errorf("get: %w", context.DeadlineExceeded), report.GapTimeout},
		{"server timeout", apierrors.NewServerTimeout(secrets, "list", 1), report.GapTimeout},
		{"refused", &net.OpError{Op: "dial", Err: errors.New("connection refused")}, report.GapUnreachable},
		{"other, worded like forbidden", errors.New("forbidden: but not a status"), report.GapFailed},
		{"none", nil, report.GapFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := GapReason(tc.err); got != tc.want {
				t.Errorf("GapReason(%v) = %s, want %s", tc.err, got, tc.want)
			}
		})
	}
}

func TestGap(t *testing.T) {
	err := apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "", errors.New("no"))
	g := Gap(report.OpList, report.TypeID("secrets"), "listing secrets", err)
	if g.Op != report.OpList || g.Reason != report.GapForbidden || g.Subject.Resource != "secrets" || g.Error != Reason(err) {
		t.Errorf("Gap = %+v", g)
	}
	if g.String() != "listing secrets: "+Reason(err) {
		t.Errorf("String() = %q: the text printers' line must be what it was", g.String())
	}
}
