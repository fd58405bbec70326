package finalizers

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The note a reinstall step gets when objects still refer to the stuck object: the referrers,
// the agreement of one or several, and both ways out.
func TestReferrersNote(t *testing.T) {
	one := referrersNote("x.io/in-use", []string{"jobs.x.io/a -n t (spec.runtimeRef)"}, 1)
	if !strings.Contains(one, "jobs.x.io/a -n t (spec.runtimeRef) still refers to the object") || !strings.Contains(one, "as long as it does — delete or repoint it first, or remove the finalizer by hand") {
		t.Errorf("one referrer: %q", one)
	}
	many := referrersNote("x.io/in-use", []string{"a", "b", "c", "and 2 more"}, 5)
	if !strings.Contains(many, "a, b, c, and 2 more still refer to the object") || !strings.Contains(many, "as long as they do — delete or repoint them first") {
		t.Errorf("several referrers: %q", many)
	}
}

// A finalizer without a reinstall step, or already held by blockers, is left alone without a
// search.
func TestAbsentReferrersLeavesOthersAlone(t *testing.T) {
	x := kubeOnlyExplainer()
	o := subject{res: podsResource, obj: &metav1.ObjectMeta{Name: "p", Namespace: "n"}}
	e := &Explanation{Finalizers: []Finalizer{
		{Name: "a.io/f", Remedies: []Remediation{{Code: ReasonReadControllerLogs, Summary: "logs"}}},
		{Name: "b.io/f", Blockers: []Blocker{{}}, Remedies: []Remediation{{Code: ReasonReinstallController, Summary: "reinstall"}}},
	}}
	x.applyAbsentReferrers(context.Background(), o, e)
	if e.Finalizers[0].Remedies[0].Summary != "logs" || e.Finalizers[1].Remedies[0].Summary != "reinstall" || len(e.Unchecked) != 0 {
		t.Errorf("explanation changed: %+v", e)
	}
}
