package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/progress"
)

// DefaultTimeout bounds a gate's run unless --timeout says otherwise: long enough for the
// largest repositories measured (a few minutes), short enough to fail a CI job well within
// GitHub's own 6-hour job limit and before anyone wonders whether it hangs.
const DefaultTimeout = 10 * time.Minute

// errTimedOut is the cause a run's context ends with when its --timeout passes.
var errTimedOut = errors.New("--timeout passed")

// WithTimeout returns ctx bounded by d, with a progress.Tracker that notes what was under way
// when it ended, and the function that releases it.
func WithTimeout(ctx context.Context, d time.Duration) (context.Context, *progress.Tracker, context.CancelFunc) {
	ctx, cancel := context.WithTimeoutCause(ctx, d, errTimedOut)
	ctx, tracker := progress.Track(ctx)
	return ctx, tracker, cancel
}

// TimedOut is the UNKNOWN (exit 2) error of a run whose --timeout d passed, naming what was
// still under way then; nil when it did not pass (the run finished, or a signal stopped it:
// Run reports that).
func TimedOut(ctx context.Context, d time.Duration, t *progress.Tracker) error {
	if context.Cause(ctx) != errTimedOut {
		return nil
	}
	what := "the run"
	if s := t.Describe(); s != "" {
		what = s
	}
	return exitcode.WithCode(exitcode.Unknown, fmt.Errorf("--timeout %s passed while %s: the result is UNKNOWN (raise --timeout, or find what makes it slow)", d, what))
}
