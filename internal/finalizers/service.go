package finalizers

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// lbCleanupFinalizer is set on a Service by the service controller while the Service has (or
// had) a cloud load balancer; the controller removes it once that load balancer is deleted.
const lbCleanupFinalizer = "service.kubernetes.io/load-balancer-cleanup"

// loadBalancerCleanup explains the service controller's finalizer. Its remover is defined by
// Kubernetes: the service controller, in the cloud controller manager. RBAC that lets other
// workloads update Services never makes one of them the remover. What stripping the finalizer
// leaves behind follows the Service's real spec and status: a load balancer only when the
// Service reports one (status.loadBalancer.ingress) or is still of type LoadBalancer.
func (x *Explainer) loadBalancerCleanup(ctx context.Context, o subject, f Finalizer, k known) Finalizer {
	svc, err := x.c.Kube.CoreV1().Services(o.obj.GetNamespace()).Get(ctx, o.obj.GetName(), metav1.GetOptions{})
	if err != nil {
		f.Incomplete = append(f.Incomplete, getGap(o.ref().ID(), "reading "+o.ref().String(), err))
		return f
	}
	lb, lost := serviceLoadBalancer(svc)
	k.lost = lost
	ws, err := x.workloads(ctx)
	if err != nil {
		f.Incomplete = append(f.Incomplete, listGap(workloadsID(), "listing workloads to find the cloud controller manager", err))
		return f
	}
	var a attribution
	for _, w := range ws {
		if matchScore(w, k.controllers) >= 2 {
			c := w.controller()
			c.Note = "runs the service controller, which Kubernetes defines as the remover of " + lbCleanupFinalizer
			a.controllers = append(a.controllers, *c)
		}
	}
	sortControllers(a.controllers)
	switch {
	case len(a.controllers) > 0:
		_, a.dead = candidateSummary(a.controllers, "services", false)
		a.summary = "the service controller of the cloud controller manager"
	case !lb:
		// Nothing outside the cluster is known to exist, so no controller has anything to do.
		a.dead = true
		a.controllers = []Controller{{Note: "no cloud controller manager runs as a workload here, and the Service has no load balancer to clean up"}}
		a.summary = a.controllers[0].Note
	default:
		c := Controller{Note: "no cloud-controller-manager workload runs in the cluster: on a managed control plane it runs outside it, where its state cannot be read from here"}
		a.controllers, a.summary = []Controller{c}, c.Note
	}
	f.Controllers, f.Attribution = a.controllers, a.summary
	f.Remedies = x.controllerRemedies(o, f, k, a, "")
	switch {
	case !lb && len(a.controllers) == 1 && !a.controllers[0].Found:
		// Nothing to reinstall: keep only the strip, whose cost says nothing is left behind.
		f.Remedies = slices.DeleteFunc(f.Remedies, func(r Remediation) bool { return !r.LastResort })
	case !a.dead && len(a.controllers) == 1 && !a.controllers[0].Found:
		f.Remedies = []Remediation{{Summary: "Check the cloud controller manager of your provider (its service controller removes the finalizer once the load balancer is deleted): its events on the Service name what fails."}}
	}
	return f
}

// serviceLoadBalancer says whether the Service has a cloud load balancer as far as its spec and
// status show, and what removing the finalizer by hand leaves behind.
func serviceLoadBalancer(svc *corev1.Service) (bool, string) {
	var ingress []string
	for _, in := range svc.Status.LoadBalancer.Ingress {
		if in.IP != "" {
			ingress = append(ingress, in.IP)
		}
		if in.Hostname != "" {
			ingress = append(ingress, in.Hostname)
		}
	}
	switch {
	case len(ingress) > 0:
		return true, fmt.Sprintf("the cloud load balancer at %s keeps running (and billing) with nothing to remove it; delete it in the cloud provider by hand", strings.Join(ingress, ", "))
	case svc.Spec.Type == corev1.ServiceTypeLoadBalancer:
		return true, "the cloud load balancer the service controller may have created keeps running (and billing) with nothing to remove it; the Service reports no address, so find it in the cloud provider by the Service's name"
	}
	return false, fmt.Sprintf("nothing known outside the cluster: the Service is of type %s and reports no load balancer", svc.Spec.Type)
}
