package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubeforensics/suite/internal/exitcode"
)

// ReadError wraps a failed read of `what` with the exit code it deserves: a missing object or
// an invalid request is bad input (3); anything else — forbidden, unauthorized, timed out,
// unreachable, a server error — left the read incomplete, which is UNKNOWN (2).
func ReadError(t Target, what string, err error) error {
	if err == nil {
		return nil
	}
	switch {
	case apierrors.IsNotFound(err):
		return exitcode.UsageErrorf("%s: not found on %s", what, t)
	case apierrors.IsBadRequest(err), apierrors.IsInvalid(err):
		return exitcode.UsageErrorf("%s: %w", what, err)
	}
	return exitcode.WithCode(exitcode.Unknown, &readError{msg: fmt.Sprintf("%s on %s: %s", what, t, Reason(err)), err: err})
}

// readError keeps the failed read's error in the chain (errors.As finds the API status or the
// network error under it) while its message is ReadError's.
type readError struct {
	msg string
	err error
}

func (e *readError) Error() string { return e.msg }
func (e *readError) Unwrap() error { return e.err }

// Reason is a short, human explanation of why a read failed, for warnings and UNKNOWN results.
func Reason(err error) string {
	var netErr net.Error
	switch {
	case apierrors.IsForbidden(err):
		return "forbidden: " + err.Error()
	case apierrors.IsUnauthorized(err):
		return "unauthorized (check the credentials of this context): " + err.Error()
	case errors.Is(err, context.DeadlineExceeded), apierrors.IsTimeout(err), apierrors.IsServerTimeout(err):
		return "timed out (see --request-timeout): " + err.Error()
	case errors.As(err, &netErr) && netErr.Timeout():
		return "timed out (see --request-timeout): " + err.Error()
	case isUnreachable(err):
		return "API server unreachable: " + err.Error()
	}
	return err.Error()
}

func isUnreachable(err error) bool {
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "connection refused") || strings.Contains(msg, "no such host")
}
