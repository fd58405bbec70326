package finalizers

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// grant is one way a service account may update (or patch) a resource, found by evaluating the
// cluster's RBAC objects the way the RBAC authorizer does.
type grant struct {
	// namespace and name of the service account; name "*" stands for every service account of
	// the namespace (group system:serviceaccounts:NS), namespace "*" for every one of the cluster.
	namespace, name string
	// via names the role and binding: "ClusterRole x via ClusterRoleBinding y".
	via string
	// broad is set when the rule allows every resource of every API group (cluster-admin).
	broad bool
}

// rbacObjects are the cluster's roles and bindings, listed once per command.
type rbacObjects struct {
	clusterRoles map[string][]rbacv1.PolicyRule
	roles        map[string][]rbacv1.PolicyRule // namespace/name
	crbs         []rbacv1.ClusterRoleBinding
	rbs          []rbacv1.RoleBinding
	// crs and rs are the listed roles themselves, which a sweep takes for its own LIST of them.
	crs []rbacv1.ClusterRole
	rs  []rbacv1.Role
}

// bootstrapLabel marks the roles and bindings of Kubernetes' own bootstrap policy: their service
// accounts belong to kube-controller-manager, which removes only the core finalizers.
const bootstrapLabel = "kubernetes.io/bootstrapping"

// rbac lists ClusterRoles, Roles and both kinds of bindings in every namespace, once.
func (x *Explainer) rbac(ctx context.Context) (*rbacObjects, error) {
	return cached(x, "rbac", func() (*rbacObjects, error) {
		api := x.c.Kube.RbacV1()
		o := &rbacObjects{clusterRoles: map[string][]rbacv1.PolicyRule{}, roles: map[string][]rbacv1.PolicyRule{}}
		crs, err := api.ClusterRoles().List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("listing clusterroles.rbac.authorization.k8s.io: %w", err)
		}
		for _, r := range crs.Items {
			o.clusterRoles[r.Name] = r.Rules
		}
		rs, err := api.Roles("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("listing roles.rbac.authorization.k8s.io: %w", err)
		}
		for _, r := range rs.Items {
			o.roles[r.Namespace+"/"+r.Name] = r.Rules
		}
		crbs, err := api.ClusterRoleBindings().List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("listing clusterrolebindings.rbac.authorization.k8s.io: %w", err)
		}
		rbs, err := api.RoleBindings("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("listing rolebindings.rbac.authorization.k8s.io: %w", err)
		}
		o.crbs, o.rbs, o.crs, o.rs = crbs.Items, rbs.Items, crs.Items, rs.Items
		return o, nil
	})
}

// updaters returns every grant that lets a service account update or patch the object (group,
// resource, namespace, name), or its finalizers subresource. Bindings of the bootstrap policy
// are left out: their subjects are kube-controller-manager's own controllers.
func (o *rbacObjects) updaters(group, resource, namespace, name string) []grant {
	var out []grant
	for _, b := range o.crbs {
		if b.Labels[bootstrapLabel] != "" || b.RoleRef.Kind != "ClusterRole" {
			continue
		}
		via := fmt.Sprintf("ClusterRole %s via ClusterRoleBinding %s", b.RoleRef.Name, b.Name)
		out = append(out, grantsOf(o.clusterRoles[b.RoleRef.Name], b.Subjects, "", via, group, resource, name)...)
	}
	if namespace != "" {
		for _, b := range o.rbs {
			if b.Namespace != namespace || b.Labels[bootstrapLabel] != "" {
				continue
			}
			rules, kind := o.clusterRoles[b.RoleRef.Name], "ClusterRole"
			if b.RoleRef.Kind == "Role" {
				rules, kind = o.roles[b.Namespace+"/"+b.RoleRef.Name], "Role"
			}
			via := fmt.Sprintf("%s %s via RoleBinding %s -n %s", kind, b.RoleRef.Name, b.Name, b.Namespace)
			out = append(out, grantsOf(rules, b.Subjects, b.Namespace, via, group, resource, name)...)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].namespace+"/"+out[i].name < out[j].namespace+"/"+out[j].name })
	return out
}

// grantsOf returns a grant per service-account subject when one of rules allows the update.
func grantsOf(rules []rbacv1.PolicyRule, subjects []rbacv1.Subject, bindingNS, via, group, resource, name string) []grant {
	allowed, broad := false, true
	for _, r := range rules {
		if ruleAllowsUpdate(r, group, resource, name) {
			allowed, broad = true, broad && isBroad(r)
		}
	}
	if !allowed {
		return nil
	}
	var out []grant
	for _, s := range subjects {
		if ns, n, ok := serviceAccountOf(s, bindingNS); ok {
			out = append(out, grant{namespace: ns, name: n, via: via, broad: broad || ns == "*"})
		}
	}
	return out
}

// ruleAllowsUpdate evaluates one policy rule for update or patch of the resource (or its
// finalizers subresource) in group, on the object called name.
func ruleAllowsUpdate(r rbacv1.PolicyRule, group, resource, name string) bool {
	if !anyOf(r.Verbs, "update", "patch", "*") || !anyOf(r.APIGroups, group, "*") {
		return false
	}
	if !anyOf(r.Resources, resource, resource+"/finalizers", "*", "*/finalizers") {
		return false
	}
	return len(r.ResourceNames) == 0 || slices.Contains(r.ResourceNames, name)
}

// isBroad reports a rule that covers every resource of every API group: it names no controller.
func isBroad(r rbacv1.PolicyRule) bool {
	return slices.Contains(r.APIGroups, "*") && slices.Contains(r.Resources, "*")
}

func anyOf(list []string, want ...string) bool {
	for _, w := range want {
		if slices.Contains(list, w) {
			return true
		}
	}
	return false
}

// serviceAccountOf maps a binding subject to the service accounts it stands for.
func serviceAccountOf(s rbacv1.Subject, bindingNS string) (namespace, name string, ok bool) {
	switch s.Kind {
	case rbacv1.ServiceAccountKind:
		ns := s.Namespace
		if ns == "" {
			ns = bindingNS
		}
		return ns, s.Name, ns != ""
	case rbacv1.UserKind:
		rest, found := strings.CutPrefix(s.Name, "system:serviceaccount:")
		if ns, n, split := strings.Cut(rest, ":"); found && split {
			return ns, n, true
		}
	case rbacv1.GroupKind:
		if s.Name == "system:serviceaccounts" {
			return "*", "*", true
		}
		if ns, found := strings.CutPrefix(s.Name, "system:serviceaccounts:"); found {
			return ns, "*", true
		}
	}
	return "", "", false
}

// runsAs reports whether a workload's pods run as the service account of g.
func (g grant) runsAs(w workload) bool {
	return (g.namespace == "*" || g.namespace == w.ref.Namespace) && (g.name == "*" || g.name == w.serviceAccount)
}

// account renders the grant's service account for prose.
func (g grant) account() string {
	switch {
	case g.namespace == "*":
		return "every service account"
	case g.name == "*":
		return "every service account of namespace " + g.namespace
	}
	return "serviceaccounts/" + g.name + " -n " + g.namespace
}
