package finalizers

import (
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/kinds"
)

// A condition reason <Kind>NotFound names a kind of the object's own group first, else one
// kubectl would resolve; a word that is no served kind, or a reason without the word, says nothing.
func TestNotFoundReasons(t *testing.T) {
	dest := kinds.Resource{Group: "platform.example.io", Version: "v1", Resource: "destinations", Kind: "Destination"}
	secret := kinds.Resource{Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true}
	own := map[string]kinds.Resource{"destination": dest}
	resolve := func(w string) (kinds.Resource, bool) { return secret, strings.EqualFold(w, "secret") }
	for _, tc := range []struct {
		reason string
		want   string
	}{
		{"DestinationNotFound", "destinations"},
		{"SecretNotFound", "secrets"},
		{"BucketNotFound", ""},
		{"NotFound", ""},
		{"DestinationMissing", ""},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			got := notFoundReasons([]Condition{{Type: "Misscheduled", Status: "True", Reason: tc.reason}}, own, resolve)
			switch {
			case tc.want == "" && len(got) != 0:
				t.Errorf("got %+v, want none", got)
			case tc.want != "" && (len(got) != 1 || got[0].res.Resource != tc.want):
				t.Errorf("got %+v, want %s", got, tc.want)
			}
		})
	}
}

// The missing object of the kind the reason names comes first, said to be named by the object's
// own condition, with its fix first; the other missing object stays, after it.
func TestCorroborateByReason(t *testing.T) {
	promise := ObjectRef{Group: "platform.example.io", Version: "v1", Resource: "promises", Kind: "Promise", Name: "redis"}
	dest := ObjectRef{Group: "platform.example.io", Version: "v1", Resource: "destinations", Kind: "Destination", Name: "worker-1"}
	f := Finalizer{Name: "finalizers.placement.example.io/cleanup",
		Blockers: []Blocker{{Object: promise, Code: ReasonMissingObject, Reason: "spec.promiseName names it"}, {Object: dest, Code: ReasonMissingObject, Reason: "spec.targetDestinationName names it"}},
		Remedies: []Remediation{{Code: ReasonRestoreMissingObject, Summary: "Create " + promise.String() + " again"}, {Code: ReasonRestoreMissingObject, Summary: "Create " + dest.String() + " again"},
			{Code: ReasonStripFinalizer, LastResort: true}}}
	said := []reasonKind{{res: kinds.Resource{Group: "platform.example.io", Resource: "destinations", Kind: "Destination"}, reason: "DestinationNotFound", source: "condition Misscheduled"}}
	corroborateByReason(&f, said)
	if f.Blockers[0].Object != dest || !strings.Contains(f.Blockers[0].Reason, "the object's own condition Misscheduled says so (reason DestinationNotFound)") {
		t.Errorf("blockers = %+v", f.Blockers)
	}
	if f.Blockers[1].Object != promise || strings.Contains(f.Blockers[1].Reason, "says so") {
		t.Errorf("blockers = %+v", f.Blockers)
	}
	if !strings.Contains(f.Remedies[0].Summary, dest.String()) || f.Remedies[2].Code != ReasonStripFinalizer {
		t.Errorf("remedies = %+v", f.Remedies)
	}
}
