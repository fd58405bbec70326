package finalizers

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// maxLeftLabelled bounds the cluster-wide objects named in one strip's cost.
const maxLeftLabelled = 6

// labelledObject is a cluster-scoped object as leftLabelled reads it: its reference, with the
// labels and owners of its metadata.
type labelledObject struct {
	ref  string
	meta metav1.ObjectMeta
}

// leftLabelled adds to the cost of removing a finalizer no running workload can remove (no
// remover found) the cluster-scoped objects its product deployed and only its finalizer would
// remove: the APIServices, admission webhook configurations and ClusterRoleBindings that carry a
// label in the finalizer's own domain (`operator.cdi.kubevirt.io/createVersion` for the
// finalizer operator.cdi.kubevirt.io) and are owned by nothing. A controller that finalizes
// its resource by deleting what cannot carry an owner reference to it labels those objects so
// as to find them; with the controller gone, they stay, and the strip leaves them. A failed
// list is recorded as unchecked and leaves the cost as it was. A finalizer in a domain of the
// Kubernetes project itself (`kubernetes.io/pvc-to-delete`, which a product may use) is never
// read this way: what carries a label in that domain (`kubernetes.io/bootstrapping` on the
// cluster's own RBAC) is Kubernetes', not the product's.
func (x *Explainer) leftLabelled(ctx context.Context, e *Explanation) {
	var objs []labelledObject
	var gaps []report.Gap
	collected := false
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		domain := finalizerDomain(f.Name)
		if domain == "" || kubernetesOwnDomain(domain) || slices.ContainsFunc(f.Controllers, func(c Controller) bool { return c.Found }) || !hasGenericStrip(f.Remedies) {
			continue
		}
		if slices.ContainsFunc(f.Unrelated, func(c Controller) bool { return c.Found && c.Confidence != ConfidenceNone }) {
			// Workloads of the domain still run (listed apart: another component of the
			// product): what is labelled in it may be theirs, which the strip does not touch.
			continue
		}
		if !collected {
			objs, gaps = x.labelledOnce(ctx)
			collected = true
		}
		f.Unchecked = append(f.Unchecked, gaps...)
		left := labelledIn(objs, domain)
		if len(left) == 0 {
			continue
		}
		what := fmt.Sprintf("what its product deployed cluster-wide, labelled in %s and owned by nothing, stays with nothing to remove it: %s", domain, strings.Join(left, ", "))
		for j := range f.Remedies {
			if r := &f.Remedies[j]; r.Code == ReasonStripFinalizer && strings.HasPrefix(r.Cost, "left behind: ") && !strings.Contains(r.Cost, what) {
				r.Cost = strings.TrimSuffix(r.Cost, ".") + "; " + what
			}
		}
	}
}

// hasGenericStrip reports whether a strip is offered whose cost is still a description
// ("left behind: …") the objects it leaves may be added to.
func hasGenericStrip(rs []Remediation) bool {
	return slices.ContainsFunc(rs, func(r Remediation) bool {
		return r.Code == ReasonStripFinalizer && strings.HasPrefix(r.Cost, "left behind: ")
	})
}

// labelledIn names the objects of objs owned by nothing whose labels carry a key in domain
// (`domain/…`, or domain itself), sorted and bounded.
func labelledIn(objs []labelledObject, domain string) []string {
	var out []string
	for _, o := range objs {
		if len(o.meta.OwnerReferences) > 0 {
			continue
		}
		for k := range o.meta.Labels {
			prefix, _, found := strings.Cut(k, "/")
			if (found && strings.EqualFold(prefix, domain)) || (!found && strings.EqualFold(k, domain)) {
				out = append(out, o.ref)
				break
			}
		}
	}
	sort.Strings(out)
	if len(out) > maxLeftLabelled {
		out = append(out[:maxLeftLabelled], fmt.Sprintf("and %d more", len(out)-maxLeftLabelled))
	}
	return out
}

// clusterWideLabelled reads the cluster-scoped objects a product deploys for its resources
// without owner references (APIServices, webhook configurations, ClusterRoleBindings), from the
// lists the command reads anyway; each failed list is a gap.
func (x *Explainer) clusterWideLabelled(ctx context.Context) ([]labelledObject, []report.Gap) {
	var out []labelledObject
	var gaps []report.Gap
	if svcs, err := x.apiServices(ctx); err != nil {
		gaps = append(gaps, listGap(objectID("apiregistration.k8s.io", "v1", "apiservices", "", ""), "listing APIServices to name what a strip leaves cluster-wide", err))
	} else {
		for _, s := range svcs {
			out = append(out, labelledObject{ref: "apiservices.apiregistration.k8s.io/" + s.GetName(),
				meta: metav1.ObjectMeta{Labels: s.GetLabels(), OwnerReferences: s.GetOwnerReferences()}})
		}
	}
	if wc, err := x.webhookConfigs(ctx); err != nil {
		gaps = append(gaps, listGap(objectID("admissionregistration.k8s.io", "v1", "", "", ""), "listing webhook configurations to name what a strip leaves cluster-wide", err))
	} else {
		for _, v := range wc.validating {
			out = append(out, labelledObject{ref: "validatingwebhookconfigurations.admissionregistration.k8s.io/" + v.Name, meta: v.ObjectMeta})
		}
		for _, m := range wc.mutating {
			out = append(out, labelledObject{ref: "mutatingwebhookconfigurations.admissionregistration.k8s.io/" + m.Name, meta: m.ObjectMeta})
		}
	}
	if rb, err := x.rbac(ctx); err != nil {
		gaps = append(gaps, listGap(rbacID(), "listing ClusterRoleBindings to name what a strip leaves cluster-wide", err))
	} else {
		for _, b := range rb.crbs {
			out = append(out, labelledObject{ref: "clusterrolebindings.rbac.authorization.k8s.io/" + b.Name, meta: b.ObjectMeta})
		}
	}
	return out, gaps
}
