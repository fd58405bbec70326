package lint_test

import (
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/report"
)

// TestUndecodedIsRecorded: a HelmRelease whose spec does not decode (spec.interval as a number,
// a typo kustomize builds happily) used to drop out of the chain without a word; it is
// recorded, so the result cannot claim it judged the tier.
func TestUndecodedIsRecorded(t *testing.T) {
	p := newPlatform()
	p.replace(t, "apps/headlamp/headlamp.yaml", "interval: 30m", "interval: 30")
	r := load(t, p)
	if len(r.Undecoded) != 1 || r.Undecoded[0].Op != report.OpDecode || r.Undecoded[0].Subject.Kind != "HelmRelease" || r.Undecoded[0].Subject.Name != "headlamp" ||
		!strings.Contains(r.Undecoded[0].String(), "HelmRelease headlamp/headlamp") {
		t.Errorf("undecoded = %q, want the headlamp HelmRelease", r.Undecoded)
	}
	if clean := load(t, newPlatform()); len(clean.Undecoded) != 0 {
		t.Errorf("clean platform: undecoded = %q", clean.Undecoded)
	}
}
