package finalizers

import (
	"context"
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
)

// serverWords name a component that answers requests (an API server, an admission webhook
// server), not a reconciler, as a whole dash-separated word of its name or component label.
var serverWords = []string{"api", "apiserver", "webhook", "webhooks"}

// servesRequests says why a workload is a server of requests rather than a reconciler: a Service
// that selects its pods answers an admission webhook, a conversion webhook or an APIService of
// a group tied to the domain, or its name or component label says so (serverWords), without a
// word of reconcilerWords beside. Empty when neither holds.
func (x *Explainer) servesRequests(ctx context.Context, domain string, w workload, idx *productIndex) string {
	for _, s := range idx.served {
		if s.svc.namespace != w.ref.Namespace {
			continue
		}
		if c, _ := groupTie(domain, s.group); c == ConfidenceNone || !x.selects(ctx, s.svc, w) {
			continue
		}
		return fmt.Sprintf("it serves %s through %s", s.via, s.svc)
	}
	for _, s := range []string{w.ref.Name, w.labels["app.kubernetes.io/component"], w.labels["component"]} {
		parts := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == '-' || r == '_' || r == '.' })
		if slices.ContainsFunc(parts, func(p string) bool { return slices.Contains(reconcilerWords, p) }) {
			continue
		}
		for _, part := range parts {
			if slices.Contains(serverWords, part) {
				return fmt.Sprintf("its name or component label %q says it serves requests (%s)", s, part)
			}
		}
	}
	return ""
}

// reconcilerWords in a name say a reconciler as plainly as serverWords say a server
// (`gateway-api-controller`, where `api` is part of what it reconciles): such a name says
// nothing either way.
var reconcilerWords = []string{"controller", "manager", "operator", "reconciler"}

// reconcilingTie is what shows a workload reconciles objects of the type rather than only
// answering requests about them: its roles name the type's status or finalizers subresource for
// update (a controller reports on what it reconciles, or manages its finalizers), it may take a
// Lease (a controller elects a leader), or its arguments ask for leader election. Empty when none.
func reconcilingTie(rb *rbacObjects, w workload, group, resource string) string {
	var out string
	rb.boundRules(w.ref.Namespace, w.serviceAccount, func(rules []rbacv1.PolicyRule, via string) {
		for _, r := range rules {
			if out != "" || !anyOf(r.Verbs, "update", "patch", "create", "*") {
				continue
			}
			switch {
			case anyOf(r.APIGroups, group, "*") && anyOf(r.Resources, resource+"/status", resource+"/finalizers", "*", "*/status", "*/finalizers"):
				out = "its roles let it update the status or finalizers of " + resource + " (" + via + ")"
			case anyOf(r.APIGroups, "coordination.k8s.io", "*") && anyOf(r.Resources, "leases", "*"):
				out = "its roles let it take a Lease, as a controller electing a leader does (" + via + ")"
			}
		}
	})
	if out != "" {
		return out
	}
	for _, a := range w.args {
		if strings.Contains(a, "leader-elect") {
			return "its arguments ask for leader election (" + a + ")"
		}
	}
	return ""
}

// apartServers lists apart the tied candidates that serve requests (servesRequests) and that
// nothing ties to reconciling the object's type (reconcilingTie): an API server may write every
// object of its product on a client's request, and an admission webhook server adds finalizers,
// but neither removes one. Unlike a UI (apartServingPeople), such a server is set apart even
// alone: then no controller of the domain runs. A candidate whose workload is not found, or
// that the finalizer's own name names (path: after its domain, or whole for one without a
// domain), stays. For a finalizer without a domain, domain is the object's API group.
// tiedTo says what the candidates are tied to ("the finalizer's domain", "the object's type").
func (x *Explainer) apartServers(ctx context.Context, tied []Controller, byRef map[string]workload, path map[string]bool, domain, group, resource, what, tiedTo string, idx *productIndex, rb *rbacObjects) (kept, apart []Controller) {
	for _, c := range tied {
		w, ok := byRef[c.Object.String()]
		if !ok || !c.Found || path[c.Object.String()] {
			kept = append(kept, c)
			continue
		}
		why := x.servesRequests(ctx, domain, w, idx)
		if why == "" || reconcilingTie(rb, w, group, resource) != "" {
			kept = append(kept, c)
			continue
		}
		c.Note = fmt.Sprintf("tied to %s and may update %s, but it serves requests, not a reconciler: %s, and nothing ties it to reconciling %s (no right on its status or finalizers, no Lease, no leader election): it may write objects on a client's request, and removes no finalizer", tiedTo, what, why, what)
		apart = append(apart, c)
	}
	return kept, apart
}

// mutatingServers are the lines naming the workloads behind a mutating admission webhook for the
// object's API group: such a webhook may add a finalizer when the object is written, and never
// removes one, whether or not the workload may update the object.
func (x *Explainer) mutatingServers(ctx context.Context, group string, ws []workload, idx *productIndex) []string {
	var out []string
	for _, s := range idx.served {
		if s.group != group || !strings.HasPrefix(s.via, "the admission webhook mutatingwebhookconfigurations.") {
			continue
		}
		for _, w := range ws {
			if w.ref.Namespace == s.svc.namespace && x.selects(ctx, s.svc, w) {
				line := fmt.Sprintf("%s serves %s for %s: an admission webhook may add a finalizer when the object is written, and never removes one", w.ref.String(), s.via, group)
				if !slices.Contains(out, line) {
					out = append(out, line)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// serversOnlyNote is the verdict when every tied candidate serves requests: no controller of the
// domain runs, only servers that merely could write the object.
func serversOnlyNote(domain, what string, servers []Controller) Controller {
	var names []string
	for _, s := range servers {
		names = append(names, s.Object.String())
	}
	return Controller{Note: fmt.Sprintf("no controller of the finalizer's domain %s runs: of the product, only servers of requests may update %s (%s), and nothing ties them to reconciling it; the controller that removes the finalizer is not installed here",
		domain, what, strings.Join(names, ", "))}
}

// serversOnlyDomainlessNote is serversOnlyNote for a finalizer without a domain: every candidate
// tied to the object's type serves requests, so no controller of the finalizer runs.
func serversOnlyDomainlessNote(name, what string, servers []Controller) Controller {
	var names []string
	for _, s := range servers {
		names = append(names, s.Object.String())
	}
	return Controller{Note: fmt.Sprintf("no controller of finalizer %s runs: of the workloads tied to %s, only servers of requests may update it (%s), and nothing ties them to reconciling it; the controller that removes the finalizer is not installed here",
		name, what, strings.Join(names, ", "))}
}
