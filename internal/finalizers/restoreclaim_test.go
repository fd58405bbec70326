package finalizers

import (
	"strings"
	"testing"
)

// A missing claim is never offered "create it again (as it was)": a claim created again gets a
// new volume, never the one the cleanup was for (csi-addons/volume-replication-operator#38).
// The strip is the way out when nothing else can complete the cleanup; another missing object
// that can come back keeps its step first.
func TestRestoreClaim(t *testing.T) {
	claim := ObjectRef{Version: "v1", Resource: "persistentvolumeclaims", Kind: "PersistentVolumeClaim", Namespace: "default", Name: "rbd-pvc"}
	secret := ObjectRef{Version: "v1", Resource: "secrets", Kind: "Secret", Namespace: "default", Name: "creds"}
	restore := func(r ObjectRef) Remediation {
		return Remediation{Code: ReasonRestoreMissingObject, Summary: "Create " + r.String() + " again (as it was) if what it belongs to still exists."}
	}
	missing := func(r ObjectRef) Blocker { return Blocker{Object: r, Code: ReasonMissingObject} }
	logs := Remediation{Code: ReasonReadControllerLogs, Summary: "read its logs"}
	strip := Remediation{Code: ReasonStripFinalizer, LastResort: true, Summary: "If it is gone for good, remove it by hand."}
	codes := func(f Finalizer) string {
		var out []string
		for _, r := range f.Remedies {
			out = append(out, string(r.Code))
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct {
		name     string
		blockers []Blocker
		remedies []Remediation
		want     string
		wayOut   bool
	}{
		{"only a claim", []Blocker{missing(claim)}, []Remediation{restore(claim), logs, strip}, "strip-finalizer,read-controller-logs", true},
		{"a secret", []Blocker{missing(secret)}, []Remediation{restore(secret), logs, strip}, "restore-missing-object,read-controller-logs,strip-finalizer", false},
		{"a claim and a secret", []Blocker{missing(claim), missing(secret)}, []Remediation{restore(claim), restore(secret), logs, strip}, "restore-missing-object,read-controller-logs,strip-finalizer", false},
		{"a claim that is only blocked, not missing", []Blocker{{Object: claim, Code: ReasonBlockedByObjects}}, []Remediation{restore(claim), strip}, "restore-missing-object,strip-finalizer", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Finalizer{Name: "replication.storage.openshift.io", Blockers: tc.blockers, Remedies: tc.remedies}
			restoreClaim(&f)
			if got := codes(f); got != tc.want {
				t.Fatalf("steps %s, want %s", got, tc.want)
			}
			if tc.wayOut {
				if f.Remedies[0].LastResort || !strings.Contains(f.Remedies[0].Summary, "a claim created again is bound to a new volume") {
					t.Errorf("strip %+v, want it the way out, saying why", f.Remedies[0])
				}
				if !strings.Contains(strings.Join(f.Blockers[0].Details, ";"), "cannot come back as it was") {
					t.Errorf("blocker details %q", f.Blockers[0].Details)
				}
			}
		})
	}
}
