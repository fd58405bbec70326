package output

import (
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/report"
)

func TestAddIncomplete(t *testing.T) {
	root := &Node{}
	if AddIncomplete(root, nil, Palette{}) != nil || len(root.Children) != 0 {
		t.Fatal("no gaps must add no section")
	}
	AddIncomplete(root, []report.Gap{{Op: report.OpList, Subject: report.TypeID("secrets"), Reason: report.GapForbidden, What: "listing secrets", Error: "forbidden\x1b[2J"}}, Palette{})
	var b strings.Builder
	if err := root.Render(&b, Palette{}); err != nil {
		t.Fatal(err)
	}
	want := "INCOMPLETE: these reads or builds failed, so what they would show is unknown (not absent):\n└── listing secrets: forbidden\\x1b[2J\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
