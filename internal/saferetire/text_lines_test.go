package saferetire

import (
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/report"
)

// A warning of several lines (a chart unavailable at both revisions: errors.Join's two
// messages) is printed as lines under its item, never with a literal `\n`; json keeps it as is.
func TestWarningLines(t *testing.T) {
	r := &Result{Verdict: "SAFE"}
	r.Unchecked = []report.Gap{{Op: report.OpRender, Reason: report.GapBuildFailed, What: "HelmRelease a/b", Error: "could not be rendered: chart not available: x\nchart not available: x\x1b[2J; not judged"}}
	var b strings.Builder
	if err := PrintText(&b, r, output.Palette{}); err != nil {
		t.Fatal(err)
	}
	want := "warning: HelmRelease a/b: could not be rendered: chart not available: x\n  chart not available: x\\x1b[2J; not judged\n"
	if !strings.Contains(b.String(), want) || strings.Contains(b.String(), `x\nchart`) {
		t.Fatalf("got\n%s\nwant it to hold\n%s", b.String(), want)
	}
}
