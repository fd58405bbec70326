package finalizers

import (
	"fmt"
	"strings"
)

// maxLogRemedies bounds the "read its logs" steps when several running workloads qualify.
const maxLogRemedies = 3

// controllerRemedies: bring back a candidate that cannot run, reinstall what is proven gone,
// read the logs of running candidates; strip the finalizer only as a last resort, and only
// when no candidate is running.
func (x *Explainer) controllerRemedies(o subject, f Finalizer, k known, a attribution, owner string) []Remediation {
	ref := o.ref()
	strip := x.stripStep(o, f.Name, k)
	if f.Orphaned {
		// Nothing running may update the object, and no gone installer is known to bring back:
		// removing this one finalizer by hand is the way out, not a bypass of a controller.
		strip.Summary = fmt.Sprintf("Remove finalizer %s by hand: no running workload may update %s, so nothing will ever remove it (orphaned: added by hand, by a script, or by a feature or version of its product that is gone). The patch removes only this entry, and the API server refuses it if the list changed since it was read.", f.Name, ref.QualifiedResource())
		if len(a.switchedOff) > 0 {
			strip.Summary = switchedOffSummary(f.Name, ref.QualifiedResource(), a.switchedOff)
		}
		strip.LastResort = false
		return []Remediation{strip}
	}
	if a.unread {
		// Neither "reinstall" nor "strip" may rest on a list that could not be read.
		return []Remediation{{Code: ReasonRerunWithRights, Summary: "Who removes " + f.Name + " could not be read (see INCOMPLETE): run this again with rights to list Deployments, StatefulSets and DaemonSets and the RBAC objects, or ask someone who has them."}}
	}
	var out, logs []Remediation
	for _, c := range a.controllers {
		switch {
		case c.Found && c.Healthy:
			if len(logs) < maxLogRemedies {
				why := fmt.Sprintf("%s is running (%s ready) and may update %s", c.Object.String(), c.Ready, ref.QualifiedResource())
				if a.guessed {
					why = fmt.Sprintf("%s is running (%s ready) and named like the controller, unconfirmed by RBAC", c.Object.String(), c.Ready)
				}
				logs = append(logs, Remediation{
					Code:    ReasonReadControllerLogs,
					Summary: why + ": read its logs for why it does not finish.",
					Command: x.logsCommand(logsCommand{workload: c.Object, flags: []string{"--tail=100"}}),
					logs:    &logsCommand{workload: c.Object, flags: []string{"--tail=100"}},
				})
			}
		case c.Found:
			out = append(out, Remediation{
				Code:    ReasonRestoreController,
				Summary: fmt.Sprintf("Bring %s back to ready replicas (it has %s); it then removes the finalizer itself.", c.Object.String(), c.Ready),
				Command: x.kubectl(c.Object.Namespace, "describe", c.Object.QualifiedResource(), c.Object.Name),
			})
		case c.Object.Resource == "serviceaccounts":
			out = append(out, Remediation{Code: ReasonReinstallController, Summary: fmt.Sprintf("Reinstall the workload that ran as %s; it then removes the finalizer itself.", c.Object.String())})
		case c.Object.Name != "":
			out = append(out, Remediation{Code: ReasonRestoreController, Summary: fmt.Sprintf("Restore %s; it then removes the finalizer itself.", c.Object.String())})
		case a.readerGone && owner == "":
			out = append(out, Remediation{Code: ReasonReinstallController, Summary: fmt.Sprintf("Reinstall the component of the product of %s that reconciles %s, if it is meant to run here: what runs of the product may not even read %s (see evidence), so the one that removed this finalizer was uninstalled. It then removes the finalizer itself.", a.domain, ref.QualifiedResource(), ref.QualifiedResource())})
		case a.noTie && owner == "" && len(a.unservedBy) > 0:
			out = append(out, Remediation{Code: ReasonReinstallController, Summary: fmt.Sprintf("Bring the types of %s back, if the product is meant to run here, through what is left of it (%s): the cluster no longer serves that API group, so its controller is not installed. Its controller then removes the finalizer itself.", a.domain, strings.Join(a.unservedBy, ", "))})
		case a.noTie && owner == "" && len(a.serversOnly) > 0:
			of := a.domain
			if of == "" {
				of = ref.QualifiedResource() + " that sets " + f.Name
			}
			out = append(out, Remediation{Code: ReasonReinstallController, Summary: fmt.Sprintf("Install or bring back the controller of %s, if it is meant to run here: of its product only servers of requests run (%s), which may write %s on a client's request but do not reconcile it. Its controller then removes the finalizer itself.", of, strings.Join(a.serversOnly, ", "), ref.QualifiedResource())})
		case a.noTie && owner == "" && a.domain == "":
			out = append(out, Remediation{Code: ReasonReinstallController, Summary: fmt.Sprintf("Reinstall the controller of %s that sets %s, if it is meant to run here: no workload the cluster ties to that type is installed, and none of the ones that merely could remove the finalizer is its controller. It then removes the finalizer itself.", ref.QualifiedResource(), f.Name)})
		case a.noTie && owner == "":
			out = append(out, Remediation{Code: ReasonReinstallController, Summary: fmt.Sprintf("Reinstall the product of %s, if it is meant to run here: no workload tied to that domain is installed, and none of the ones that merely could remove the finalizer is its controller. Its controller then removes the finalizer itself.", a.domain)})
		default:
			out = append(out, Remediation{Code: ReasonReinstallController, Summary: reinstallSummary(k, owner)})
		}
	}
	if len(a.controllers) == 0 {
		out = append(out, Remediation{Code: ReasonReinstallController, Summary: reinstallSummary(k, owner)})
	}
	if !a.dead {
		// Something that may act is running: its logs come first, and stripping the finalizer
		// behind its back is not offered.
		return append(out, logs...)
	}
	return append(out, strip)
}

// stripStep is the last-resort removal of one finalizer by hand, with what it leaves behind.
func (x *Explainer) stripStep(o subject, name string, k known) Remediation {
	ref := o.ref()
	return Remediation{
		Code:       ReasonStripFinalizer,
		Summary:    fmt.Sprintf("Only if the controller is gone for good: remove finalizer %s by hand.", name),
		Command:    x.kubectl(ref.Namespace, "patch", ref.QualifiedResource(), ref.Name, "--type=json", "-p", stripPatch(o.obj.GetFinalizers(), name)),
		Cost:       "left behind: " + k.lost,
		LastResort: true,
		request:    updateRequest(o.res, o.obj.GetNamespace(), o.obj.GetLabels()),
	}
}

func reinstallSummary(k known, owner string) string {
	if owner != "" {
		return fmt.Sprintf("Reinstall %s (it installed this type); its controller then removes the finalizer itself.", owner)
	}
	return "Reinstall the controller (" + k.removedBy + "); it then removes the finalizer itself."
}
