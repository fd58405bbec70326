package finalizers

import (
	"testing"

	"github.com/kubeforensics/suite/internal/report"
)

// Every reason code this package declares is a row of docs/report.md's table, and every row
// of why-terminating's is still declared: a code added without its line, or renamed, fails.
func TestReasonsDocumented(t *testing.T) {
	problems, err := report.CheckDocumented(".", "../../docs/report.md", "why-terminating")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

func TestFinalizerReason(t *testing.T) {
	gone := Controller{Object: ObjectRef{Resource: "deployments", Name: "op"}}
	zero := Controller{Object: ObjectRef{Resource: "deployments", Name: "op"}, Found: true, ScaledToZero: true}
	unready := Controller{Object: ObjectRef{Resource: "deployments", Name: "op"}, Found: true}
	running := Controller{Object: ObjectRef{Resource: "deployments", Name: "op"}, Found: true, Healthy: true}
	for _, tc := range []struct {
		name string
		f    Finalizer
		want report.Reason
	}{
		{"a failed read wins", Finalizer{Incomplete: []report.Gap{{Op: report.OpList, Subject: report.TypeID("pods"), Reason: report.GapForbidden, What: "listing pods", Error: "forbidden"}}, Blockers: []Blocker{{}}}, ReasonReadsIncomplete},
		{"blockers", Finalizer{Blockers: []Blocker{{}}, Controllers: []Controller{gone}}, ReasonBlockedByObjects},
		{"controller gone", Finalizer{Controllers: []Controller{gone}}, ReasonControllerAbsent},
		{"the likeliest is scaled to zero, another runs", Finalizer{Controllers: []Controller{zero, running}}, ReasonControllerScaledToZero},
		{"installed, not ready", Finalizer{Controllers: []Controller{unready, gone}}, ReasonControllerUnready},
		{"the likeliest runs", Finalizer{Controllers: []Controller{running, unready}}, ReasonControllerRunning},
		{"waiting", Finalizer{Waiting: []Blocker{{}}}, ReasonWaitingTurn},
		{"nothing blocks", Finalizer{}, ReasonControllerReleasing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := finalizerReason(tc.f); got != tc.want {
				t.Errorf("finalizerReason = %s, want %s", got, tc.want)
			}
		})
	}
}
