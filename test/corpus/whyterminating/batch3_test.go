package whyterminating_test

import (
	"strings"

	"github.com/kubeforensics/suite/internal/finalizers"
)

// stripCosts checks that the step removing the finalizer by hand names, in its summary or
// cost, each of what: what the strip leaves behind, as the object or the cluster records it.
func (d *diagnosis) stripCosts(f *finalizers.Finalizer, what ...string) {
	d.t.Helper()
	for _, r := range f.Remedies {
		if r.Code != stripFinalizer {
			continue
		}
		text := r.Summary + "\n" + r.Cost
		for _, w := range what {
			if !strings.Contains(text, w) {
				d.t.Errorf("finalizer %s: the strip's cost %q does not name %s", f.Name, r.Cost, w)
			}
		}
		return
	}
	d.t.Errorf("finalizer %s: no strip offered, want one whose cost names %q", f.Name, what)
}

// stripNeverCosts checks that the step removing the finalizer by hand names none of what in its
// summary or cost: objects that are not the product's to leave behind.
func (d *diagnosis) stripNeverCosts(f *finalizers.Finalizer, what ...string) {
	d.t.Helper()
	for _, r := range f.Remedies {
		if r.Code != stripFinalizer {
			continue
		}
		for _, w := range what {
			if strings.Contains(r.Summary+"\n"+r.Cost, w) {
				d.t.Errorf("finalizer %s: the strip's cost %q names %s", f.Name, r.Cost, w)
			}
		}
	}
}
