package finalizers

import (
	"context"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubeforensics/suite/internal/kinds"
)

// reinstallIntoGoingType reorders the steps of a finalizer whose product is being, or was,
// uninstalled while nothing of it runs (no remover found, no workload of the product left):
// the object's own type definition (its CRD) is itself being deleted, or nothing of the
// product's install is left but its type definitions and their objects (installLeft: no
// workload, role granted to a service account, webhook, APIService, service account or Service
// of the product). The second is an uninstall, not a controller that stopped: removing the
// finalizer comes first, with its cost, and a reinstall is offered second, only if the product
// is meant to run here. In the first, a reinstall re-creates what is being deleted: the definition is removed only once its objects, this one
// included, are gone, which waits on this finalizer, and an install that creates the definition
// fails while it terminates (a cycle). So removing the finalizer by hand comes first, no longer
// as a last resort, and the reinstall stays, after it, saying what it would need (the
// definition gone first). A live definition with a part of the install left, or a reinstall of
// the type's named installer (its own step), leaves the steps as they are;
// one that could not be read is recorded as unchecked.
func (x *Explainer) reinstallIntoGoingType(ctx context.Context, res kinds.Resource, f *Finalizer) {
	if res.Group == "" || slices.ContainsFunc(f.Controllers, func(c Controller) bool { return c.Found }) || productLeft(*f) {
		return
	}
	ri := slices.IndexFunc(f.Remedies, func(r Remediation) bool { return r.Code == ReasonReinstallController })
	si := slices.IndexFunc(f.Remedies, func(r Remediation) bool { return r.Code == ReasonStripFinalizer })
	if ri < 0 || si < 0 || si < ri || strings.Contains(f.Remedies[ri].Summary, "it installed this type") {
		// A named installer of the type (its owner, gone) is that installer's own step.
		return
	}
	name := res.Resource + "." + res.Group
	crd, err := x.crdMetadata(ctx, name)
	if err != nil {
		if !apierrors.IsNotFound(err) {
			f.Unchecked = append(f.Unchecked, getGap(objectID("apiextensions.k8s.io", "v1", "customresourcedefinitions", "", name), "reading whether the definition of "+res.QualifiedName()+" is being deleted", err))
		}
		return
	}
	strip, reinstall := f.Remedies[si], f.Remedies[ri]
	strip.LastResort = false
	if crd.DeletionTimestamp != nil {
		def := "customresourcedefinitions.apiextensions.k8s.io/" + name
		strip.Summary = fmt.Sprintf("Remove finalizer %s by hand: nothing of its product runs, and %s, the object's own type, is being deleted: the product is being uninstalled, and the definition goes once its objects are gone.",
			f.Name, def)
		reinstall.Summary = fmt.Sprintf("Reinstall the product only after the step above, once %s is gone, and only if it is meant to run here again: an install that creates that definition fails while it is being deleted, and the definition goes only once its objects, this one included, are gone, which waits on this finalizer (a cycle). An install that leaves the definition alone could bring the controller back to remove the finalizer itself, if anything of the product it needs is still there.",
			def)
	} else {
		// A live definition: the product was uninstalled only if nothing else of its install is left.
		u, ok, gaps := x.installLeft(ctx, res, *f)
		f.Unchecked = append(f.Unchecked, gaps...)
		if !ok || len(u.left) > 0 {
			return
		}
		f.TypeEvidence = append(f.TypeEvidence, u.line())
		f.uninstalled = true
		strip.Summary = fmt.Sprintf("Remove finalizer %s by hand: %s. Nothing will come back to remove it; the cost below says what its controller would have done on removal.", f.Name, u.line())
		reinstall.Summary = fmt.Sprintf("Only if the product is meant to run here (it was uninstalled, perhaps on purpose): reinstall it instead, before the step above; its controller then removes finalizer %s itself, with its own cleanup.", f.Name)
	}
	rest := slices.Delete(slices.Clone(f.Remedies), si, si+1)
	rest = slices.Delete(rest, ri, ri+1)
	f.Remedies = append([]Remediation{strip, reinstall}, rest...)
}
