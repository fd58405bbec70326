package whyterminating

import (
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/report"
)

// A Flux link that is UNKNOWN for reads that failed draws its reason and then each failed read,
// from the typed gaps, on the one line the reason had when it carried them as text.
func TestGitOpsLinkDrawsItsUncheckedReads(t *testing.T) {
	l := &finalizers.GitOpsLink{Kind: "HelmRelease", Namespace: "ops", Name: "op", Via: "labels", State: "Unknown",
		Reason: "not among the HelmReleases read, and some reads failed",
		Unchecked: []report.Gap{
			{Op: report.OpList, Reason: report.GapForbidden, What: "listing helmreleases.helm.toolkit.fluxcd.io", Error: "forbidden"},
			{Op: report.OpGet, Reason: report.GapTooLarge, What: "more than 16 pages"},
		}}
	root := &output.Node{}
	addGitOpsLink(root, l, output.Palette{})
	var b strings.Builder
	if err := root.Render(&b, output.Palette{}); err != nil {
		t.Fatal(err)
	}
	want := "not among the HelmReleases read, and some reads failed: listing helmreleases.helm.toolkit.fluxcd.io: forbidden; more than 16 pages"
	if !strings.Contains(b.String(), want) {
		t.Errorf("text\n%s\nwant the line %q", b.String(), want)
	}
}
