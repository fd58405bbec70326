package whyterminating_test

import (
	"strings"

	"github.com/kubeforensics/suite/internal/finalizers"
)

// explains checks that the finalizer's explanation names each of what somewhere an operator
// reads it: a blocker (the object or its reason), a step (its summary, command or cost), or the
// stalled verdict's evidence and likely reasons.
func (d *diagnosis) explains(f *finalizers.Finalizer, what ...string) {
	d.t.Helper()
	var text []string
	for _, b := range append(append([]finalizers.Blocker{}, f.Blockers...), f.Waiting...) {
		text = append(text, b.Object.String(), b.Reason)
	}
	for _, r := range f.Remedies {
		text = append(text, r.Summary, r.Command, r.Cost)
	}
	if f.Stalled != nil {
		text = append(text, f.Stalled.Evidence...)
		text = append(text, f.Stalled.LikelyReasons...)
	}
	all := strings.Join(text, "\n")
	for _, w := range what {
		if !strings.Contains(all, w) {
			d.t.Errorf("finalizer %s: %s is named nowhere in its explanation", f.Name, w)
		}
	}
}
