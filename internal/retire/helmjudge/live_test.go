package helmjudge

import (
	"context"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/report"
)

// A reader without cluster-wide list rights gets one line per kind of failure, not one per type.
func TestSweepFailures(t *testing.T) {
	f := func(r, why string, err error) finalizers.ReadFailure {
		return finalizers.ReadFailure{Resource: r, Reason: why, Err: err}
	}
	forbidden := func(r string) error {
		return apierrors.NewForbidden(schema.GroupResource{Resource: r}, "", errors.New("no"))
	}
	two := sweepFailures([]finalizers.ReadFailure{f("secrets", "forbidden: no", forbidden("secrets")), f("pods", "timeout", context.DeadlineExceeded)}, "labelled x")
	many := sweepFailures([]finalizers.ReadFailure{f("a", "forbidden: x", forbidden("a")), f("b", "forbidden: y", forbidden("b")), f("c", "the server is unavailable", errors.New("the server is unavailable"))}, "labelled x")
	if len(two) != 2 || two[0].String() != "listing secrets labelled x: forbidden: no" || two[0].Reason != report.GapForbidden || two[1].Reason != report.GapTimeout ||
		strings.Join(report.GapLines(many), "|") != "listing 1 types labelled x: failed: c|listing 2 types labelled x: forbidden: a, b" {
		t.Fatalf("two %q, many %q", report.GapLines(two), report.GapLines(many))
	}
	// Grouped by the failure's type, never by its wording.
	if many[1].Reason != report.GapForbidden || many[1].Op != report.OpList {
		t.Errorf("many[1] = %+v", many[1])
	}
}
