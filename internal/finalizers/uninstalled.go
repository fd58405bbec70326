package finalizers

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// installLabelKeys are the labels an install writes on every part of a product, its type
// definitions included: a part of the install left anywhere carries one of them with the value
// the definitions carry.
var installLabelKeys = []string{"app.kubernetes.io/part-of", "app.kubernetes.io/instance", "app.kubernetes.io/name", "app"}

// uninstalled is what the cluster shows of a product whose remover is not found: its type
// definitions, and either what is left of the rest of its install or nothing.
type uninstalled struct {
	// defs are the product's CustomResourceDefinitions, fully qualified.
	defs []string
	// groups are the product's API groups.
	groups []string
	// labels are the install labels its definitions carry ("key=value").
	labels []string
	// left names the install parts still there (a workload, a role bound to a service account,
	// a webhook, an APIService, a service account or Service with the install's labels).
	left []string
}

// productGroups are the API groups of the product a finalizer belongs to: those of the
// finalizer's domain (the domain, a parent or a subdomain of it) when it has one, else the
// object's own group (a finalizer without a domain is its type's).
func productGroups(domain string, res kinds.Resource, crdGroups map[string]bool) []string {
	var out []string
	for g := range crdGroups {
		switch {
		case domain == "" && g == res.Group:
			out = append(out, g)
		case domain != "":
			if c, _ := groupTie(domain, g); c == ConfidenceHigh {
				out = append(out, g)
			}
		}
	}
	sort.Strings(out)
	return out
}

// installLeft reads what is left of the install of the product of f besides its type
// definitions: workloads carrying the definitions' install labels, roles naming the product's
// groups that a binding grants to a service account, webhooks, conversion webhooks and
// APIServices answering for those groups, and service accounts, Services, ClusterRoles and
// ClusterRoleBindings carrying the install labels. ok is false when the product has no
// definition in the cluster (nothing to judge). A failed read is returned as a gap: then nothing
// is claimed.
func (x *Explainer) installLeft(ctx context.Context, res kinds.Resource, f Finalizer) (u uninstalled, ok bool, gaps []report.Gap) {
	if res.Group == "" {
		return u, false, nil
	}
	domain := finalizerDomain(f.Name)
	if kubernetesOwnDomain(domain) {
		return u, false, nil
	}
	crds, err := x.crds(ctx)
	if err != nil {
		return u, false, []report.Gap{listGap(typeID(crdsResource, ""), "listing customresourcedefinitions.apiextensions.k8s.io to see what is left of the product of "+f.Name, err)}
	}
	crdGroups := map[string]bool{}
	for _, c := range crds {
		crdGroups[c.Spec.Group] = true
	}
	u.groups = productGroups(domain, res, crdGroups)
	if !slices.Contains(u.groups, res.Group) {
		// The object's type is another product's: what its own definition says is not this one's.
		return u, false, nil
	}
	labels := map[string]bool{}
	for _, c := range crds {
		if !slices.Contains(u.groups, c.Spec.Group) {
			continue
		}
		u.defs = append(u.defs, "customresourcedefinitions.apiextensions.k8s.io/"+c.Name)
		for _, k := range installLabelKeys {
			if v := c.Labels[k]; v != "" && !versionValue.MatchString(v) {
				labels[k+"="+v] = true
			}
		}
	}
	sort.Strings(u.defs)
	for l := range labels {
		u.labels = append(u.labels, l)
	}
	sort.Strings(u.labels)
	idx, err := x.products(ctx)
	if err != nil {
		return u, false, []report.Gap{listGap(typeID(crdsResource, ""), "reading the webhooks and APIServices of "+strings.Join(u.groups, ", "), err)}
	}
	for _, s := range idx.served {
		if slices.Contains(u.groups, s.group) {
			u.left = append(u.left, s.via+" (answers for "+s.group+")")
		}
	}
	rb, err := x.rbac(ctx)
	if err != nil {
		return u, false, []report.Gap{listGap(rbacID(), "reading the roles of "+strings.Join(u.groups, ", "), err)}
	}
	u.left = append(u.left, boundProductRoles(rb, u.groups)...)
	ws, err := x.workloads(ctx)
	if err != nil {
		return u, false, []report.Gap{listGap(workloadsID(), "listing workloads to see what is left of the product of "+f.Name, err)}
	}
	for _, w := range ws {
		if madeByProduct(w.owners, u.groups) {
			// Generated from one of the product's objects (owned by it): its output, not its
			// install, and the garbage collector deletes it with its owner.
			continue
		}
		if l := carriesOne(w.labels, u.labels); l != "" {
			u.left = append(u.left, fmt.Sprintf("%s (%s, %s)", w.ref.String(), l, w.health.Status))
		}
	}
	type parts struct {
		left []string
		gaps []report.Gap
	}
	// Once per label set and command: a sweep meets many objects of one uninstalled product.
	p, _ := cached(x, "installparts/"+strings.Join(u.labels, ","), func() (parts, error) {
		left, gaps := x.labelledInstallParts(ctx, u.labels)
		return parts{left, gaps}, nil
	})
	more, gaps := p.left, p.gaps
	if len(gaps) > 0 {
		return u, false, gaps
	}
	u.left = append(u.left, more...)
	sort.Strings(u.left)
	u.left = slices.Compact(u.left)
	return u, true, nil
}

// boundProductRoles names the roles whose rules name one of groups itself (not through a
// wildcard) and that a binding grants to a service account: a controller's identity left.
func boundProductRoles(rb *rbacObjects, groups []string) []string {
	names := func(rules []rbacv1.PolicyRule) bool {
		return slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool {
			return slices.ContainsFunc(r.APIGroups, func(g string) bool { return slices.Contains(groups, g) })
		})
	}
	toAccount := func(ss []rbacv1.Subject) string {
		for _, s := range ss {
			if s.Kind == rbacv1.ServiceAccountKind {
				return "serviceaccounts/" + s.Name + " -n " + s.Namespace
			}
		}
		return ""
	}
	var out []string
	for _, b := range rb.crbs {
		if sa := toAccount(b.Subjects); sa != "" && b.RoleRef.Kind == "ClusterRole" && names(rb.clusterRoles[b.RoleRef.Name]) {
			out = append(out, fmt.Sprintf("clusterroles.rbac.authorization.k8s.io/%s, granted to %s by clusterrolebindings.rbac.authorization.k8s.io/%s", b.RoleRef.Name, sa, b.Name))
		}
	}
	for _, b := range rb.rbs {
		rules := rb.roles[b.Namespace+"/"+b.RoleRef.Name]
		kind := "roles"
		if b.RoleRef.Kind == "ClusterRole" {
			rules, kind = rb.clusterRoles[b.RoleRef.Name], "clusterroles"
		}
		if sa := toAccount(b.Subjects); sa != "" && names(rules) {
			out = append(out, fmt.Sprintf("%s.rbac.authorization.k8s.io/%s, granted to %s by rolebindings.rbac.authorization.k8s.io/%s -n %s", kind, b.RoleRef.Name, sa, b.Name, b.Namespace))
		}
	}
	return out
}

// madeByProduct reports owner references to an object of one of groups.
func madeByProduct(owners []metav1.OwnerReference, groups []string) bool {
	return slices.ContainsFunc(owners, func(r metav1.OwnerReference) bool {
		g, _, _ := strings.Cut(r.APIVersion, "/")
		return strings.Contains(r.APIVersion, "/") && slices.Contains(groups, g)
	})
}

// carriesOne returns the first of labels ("key=value") that m carries, "" for none.
func carriesOne(m map[string]string, labels []string) string {
	for _, l := range labels {
		k, v, _ := strings.Cut(l, "=")
		if m[k] == v {
			return l
		}
	}
	return ""
}

// labelledInstallParts lists, for each install label, the service accounts and Services in
// every namespace, the ClusterRoles and the ClusterRoleBindings that carry it (one object each
// is enough to say a part is left).
func (x *Explainer) labelledInstallParts(ctx context.Context, labels []string) ([]string, []report.Gap) {
	var out []string
	var gaps []report.Gap
	kube := x.c.Kube
	add := func(what, label string, ms []metav1.ObjectMeta, err error) {
		if err != nil {
			gaps = append(gaps, listGap(objectID("", "", what, "", ""), "listing "+what+" labelled "+label+" to see what is left of the product", err))
			return
		}
		for _, m := range ms {
			if m.DeletionTimestamp != nil {
				continue
			}
			ref := what + "/" + m.Name
			if m.Namespace != "" {
				ref += " -n " + m.Namespace
			}
			out = append(out, ref+" ("+label+")")
		}
	}
	for _, l := range labels {
		opts := metav1.ListOptions{LabelSelector: l, Limit: 1}
		if sas, err := kube.CoreV1().ServiceAccounts("").List(ctx, opts); err != nil {
			add("serviceaccounts", l, nil, err)
		} else {
			add("serviceaccounts", l, metaOf(sas.Items, func(i int) metav1.ObjectMeta { return sas.Items[i].ObjectMeta }), nil)
		}
		if svcs, err := kube.CoreV1().Services("").List(ctx, opts); err != nil {
			add("services", l, nil, err)
		} else {
			add("services", l, metaOf(svcs.Items, func(i int) metav1.ObjectMeta { return svcs.Items[i].ObjectMeta }), nil)
		}
		if crs, err := kube.RbacV1().ClusterRoles().List(ctx, opts); err != nil {
			add("clusterroles.rbac.authorization.k8s.io", l, nil, err)
		} else {
			add("clusterroles.rbac.authorization.k8s.io", l, metaOf(crs.Items, func(i int) metav1.ObjectMeta { return crs.Items[i].ObjectMeta }), nil)
		}
		if crbs, err := kube.RbacV1().ClusterRoleBindings().List(ctx, opts); err != nil {
			add("clusterrolebindings.rbac.authorization.k8s.io", l, nil, err)
		} else {
			add("clusterrolebindings.rbac.authorization.k8s.io", l, metaOf(crbs.Items, func(i int) metav1.ObjectMeta { return crbs.Items[i].ObjectMeta }), nil)
		}
	}
	return out, gaps
}

// metaOf returns the object metadata of every item of a list.
func metaOf[T any](items []T, meta func(int) metav1.ObjectMeta) []metav1.ObjectMeta {
	out := make([]metav1.ObjectMeta, 0, len(items))
	for i := range items {
		out = append(out, meta(i))
	}
	return out
}

// line says what the evidence of an uninstall is: the product's definitions are all
// that is left of its install.
func (u uninstalled) line() string {
	what := "no workload, no role on " + strings.Join(u.groups, ", ") + " granted to a service account, no webhook, conversion webhook or APIService of " + strings.Join(u.groups, ", ")
	if len(u.labels) > 0 {
		what += ", no workload, service account, Service, ClusterRole or ClusterRoleBinding labelled " + strings.Join(u.labels, " or ")
	} else {
		what += " (its definitions carry no install label to look for its other parts by)"
	}
	return fmt.Sprintf("nothing of the product's install is left but its type definitions (%s) and their objects: %s; the product was uninstalled, not stopped (a workload at 0 replicas, a service account or binding, a webhook would be left)",
		strings.Join(u.defs, ", "), what)
}
