package saferetire

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire"
)

// TestResultIncomplete checks the one incomplete-reads shape: the gate's failed reads are listed
// under "incomplete" as report.Gap, once (no field shadows the gate's), and they make the
// verdict UNKNOWN (exit 2).
func TestResultIncomplete(t *testing.T) {
	gap := report.Gap{Op: report.OpGet, Subject: report.ObjectID{Version: "v1", Resource: "persistentvolumeclaims", Namespace: "apps", Name: "data"},
		Reason: report.GapForbidden, What: "reading persistentvolumeclaims/data -n apps", Error: "forbidden"}
	r := &Result{Mode: "live", Report: retire.Report{Incomplete: []report.Gap{gap}}}
	r.finish(nil)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `"incomplete":[{"op":"get","subject":{"version":"v1","resource":"persistentvolumeclaims","namespace":"apps","name":"data"},"reason":"forbidden","what":"reading persistentvolumeclaims/data -n apps","error":"forbidden"}]`
	if !strings.Contains(string(b), want) || strings.Count(string(b), `"incomplete":[`) != 1 {
		t.Errorf("json %s\nwant it to hold %s once", b, want)
	}
	if r.Verdict != "UNKNOWN" || r.ExitCode != 2 {
		t.Errorf("verdict %s exit %d, want UNKNOWN 2", r.Verdict, r.ExitCode)
	}
}

// The summary counts removals by what they risk, and the tiers not judged.
func TestResultSummary(t *testing.T) {
	r := &Result{Mode: "offline", Report: retire.Report{
		Removals: []retire.Removal{
			{Outcome: retire.Pruned, Unsafe: true, Persistent: &retire.Persistence{}},
			{Outcome: retire.Retained, Persistent: &retire.Persistence{}},
			{Outcome: retire.Pruned},
		},
		Unbuilt:    []retire.Unbuilt{{Kustomization: "flux-system/apps", Side: "candidate"}},
		NotCovered: []report.Gap{{Op: report.OpBuild, Reason: report.GapNotRead, What: "tenants/team-a", Error: "ExternalArtifact"}},
	}}
	r.finish(func() time.Time { return time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC) })
	want := Summary{Removals: 3, Unsafe: 1, Persistent: 2, Pruned: 2, Retained: 1, Unknown: 2}
	if r.Summary != want {
		t.Errorf("summary %+v, want %+v", r.Summary, want)
	}
	if r.Timestamp != "2026-12-01T18:00:00Z" || r.Reporter.Name != "safe-retire" || r.APIVersion != "saferetire.kubeforensics.dev/v1beta3" {
		t.Errorf("envelope %s %+v %s", r.Timestamp, r.Reporter, r.APIVersion)
	}
}
