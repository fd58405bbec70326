package fluxchain

import (
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/report"
)

// A warning of several lines is printed as lines under its item, never with a literal `\n`.
func TestWarningLines(t *testing.T) {
	res := &Result{}
	res.Unchecked = []report.Gap{{Op: report.OpGet, Reason: report.GapFailed, What: "reading pods -n a", Error: "failed\nsecond line\x1b[2J"}}
	var b strings.Builder
	if err := PrintText(&b, res, output.Palette{}); err != nil {
		t.Fatal(err)
	}
	want := "└── reading pods -n a: failed\n      second line\\x1b[2J\n"
	if !strings.Contains(b.String(), want) {
		t.Fatalf("got\n%s\nwant it to hold\n%s", b.String(), want)
	}
}
