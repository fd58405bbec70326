package finalizers

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// reinstallForRecordedCleanup puts the reinstall back before the strip for a finalizer whose
// product was uninstalled (typegoing.go put the strip first) when the object's status records
// something its controller made outside the cluster (a cloud instance, a database, a load
// balancer: recordedResources under status). The finalizer is that cleanup's: its controller,
// back, deletes what it made and then removes the finalizer; a strip leaves it running, and
// billing, with nothing in the cluster to find it by. What the spec only names (a backup's
// bucket, where the object writes) is not made by the controller and does not change the order:
// an uninstalled product's objects that record nothing made outside are stripped first.
func reinstallForRecordedCleanup(e *Explanation, obj *unstructured.Unstructured) {
	if obj == nil {
		return
	}
	var made []string
	for _, r := range recordedResources(obj) {
		if strings.Contains(r, "(status.") {
			made = append(made, r)
		}
	}
	if len(made) == 0 {
		return
	}
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if !f.uninstalled || len(f.Remedies) < 2 || f.Remedies[0].Code != ReasonStripFinalizer || f.Remedies[1].Code != ReasonReinstallController {
			continue
		}
		strip, reinstall := f.Remedies[0], f.Remedies[1]
		reinstall.Summary = fmt.Sprintf("Reinstall the product first, though it was uninstalled, and only long enough for this cleanup if it is not meant to run here: the object's status records what its controller made outside the cluster (%s); the controller deletes that on removal and then removes finalizer %s itself. Uninstall it again only once its objects are gone.",
			strings.Join(made, ", "), f.Name)
		strip.Summary = "If the product is not to be installed again: " + strip.Summary + " What its status records stays outside the cluster (the cost below): delete it there by hand."
		strip.LastResort = true
		f.Remedies = append([]Remediation{reinstall, strip}, slices.Clone(f.Remedies[2:])...)
	}
}
