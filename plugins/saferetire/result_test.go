package saferetire

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/retire"
)

// TestResultIncomplete checks the one incomplete-reads shape: the gate's failed reads are listed
// under "incomplete" as {what, reason}, and they make the verdict UNKNOWN (exit 2).
func TestResultIncomplete(t *testing.T) {
	r := &Result{Mode: "live", Report: retire.Report{Incomplete: []string{"reading persistentvolumeclaims/data -n apps: forbidden"}}}
	r.finish(nil)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `"incomplete":[{"what":"reading persistentvolumeclaims/data -n apps","reason":"forbidden"}]`
	if !strings.Contains(string(b), want) || strings.Count(string(b), `"incomplete":[`) != 1 {
		t.Errorf("json %s\nwant it to hold %s once", b, want)
	}
	if r.Verdict != "UNKNOWN" || r.ExitCode != 2 {
		t.Errorf("verdict %s exit %d, want UNKNOWN 2", r.Verdict, r.ExitCode)
	}
}
