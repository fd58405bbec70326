package finalizers

import (
	"context"
	"fmt"
	"strings"
)

// reinstallRefused replaces the step that reinstalls a gone remover where it ran when that
// namespace is itself being deleted (an operator deleted together with the namespace it ran
// in): the API server refuses every new object in a namespace being deleted, so the remover
// cannot come back there, and "reinstall it" is a step that fails. The step becomes a note that
// says so (reinstalling it elsewhere helps only if it acts on this namespace from there), and the
// strip says why it is the way out. A namespace that could not be read leaves the step as it is
// and is recorded as unchecked.
func (x *Explainer) reinstallRefused(ctx context.Context, f *Finalizer) {
	for _, c := range f.Controllers {
		if c.Found || c.Object.Resource != "serviceaccounts" || c.Object.Namespace == "" {
			continue
		}
		ns := c.Object.Namespace
		if since, _ := x.namespaceGoing(ctx, ns, &f.Unchecked); since == nil {
			continue
		}
		for i, r := range f.Remedies {
			switch {
			case r.Code == ReasonReinstallController && strings.Contains(r.Summary, c.Object.String()):
				f.Remedies[i] = Remediation{Summary: fmt.Sprintf("The workload that ran as %s cannot be reinstalled where it ran: namespaces/%s is being deleted, and the API server refuses every new object in it. Reinstalling it in another namespace helps only if it acts on this one from there; otherwise removing the finalizer by hand is the way out.", c.Object.String(), ns)}
			case r.Code == ReasonStripFinalizer && !strings.Contains(r.Summary, "namespaces/"+ns):
				f.Remedies[i].Summary = fmt.Sprintf("Remove finalizer %s by hand: its controller ran in namespaces/%s, which is being deleted and refuses it coming back. The patch removes only this entry, and the API server refuses it if the list changed since it was read.", f.Name, ns)
			}
		}
	}
}
