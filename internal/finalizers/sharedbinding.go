package finalizers

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// ReasonRestoreRemoverBinding is the step that gives a running remover's service account back
// the cluster-wide binding its install made for it (docs/report.md).
const ReasonRestoreRemoverBinding report.Reason = "restore-remover-binding"

// sharedBindingTaken finds the cluster-wide rights a running remover's install gave it and
// another install of the same product took away. A product installed once per namespace from
// one set of manifests applies its cluster-scoped objects under the same names each time: the
// ClusterRoleBinding of the last install names only that install's service account, and every
// earlier install's workload silently loses what the ClusterRole grants, while its namespaced
// Role still lets it update its objects. Its finalizer cleanup fails on what only the ClusterRole
// allowed (cluster-scoped objects it made), and nothing in the object says so.
//
// The rule: a ClusterRoleBinding none of whose subjects is the remover's service account, that
// binds a service account of the same name in another namespace, where a workload of the same
// kind and name as the remover runs as it — the same install, elsewhere. The remover's install
// meant that binding for it too; the first step gives its service account the binding back, and
// says that the next install will take it again unless the product is installed once for the
// cluster or with bindings of its own per namespace.
func (x *Explainer) sharedBindingTaken(ctx context.Context, c Controller) (evidence, reasons []string, fixes []Remediation, gaps []report.Gap) {
	if !c.Found || c.Object.Namespace == "" {
		return nil, nil, nil, nil
	}
	ws, err := x.workloads(ctx)
	if err != nil {
		return nil, nil, nil, []report.Gap{listGap(objectID("apps", "v1", c.Object.Resource, "", ""), "finding the other installs of the remover's product", err)}
	}
	rb, err := x.rbac(ctx)
	if err != nil {
		return nil, nil, nil, []report.Gap{listGap(objectID(rbacv1.GroupName, "v1", "clusterrolebindings", "", ""), "reading the cluster-wide bindings of the remover's install", err)}
	}
	var self *workload
	for i := range ws {
		if ws[i].ref == c.Object {
			self = &ws[i]
		}
	}
	if self == nil {
		return nil, nil, nil, nil
	}
	sa := self.serviceAccount
	if sa == "" {
		sa = "default"
	}
	for _, b := range rb.crbs {
		if b.Labels[bootstrapLabel] != "" || b.RoleRef.Kind != "ClusterRole" {
			continue
		}
		other, ok := takenBy(b, self.ref.Namespace, sa)
		if !ok {
			continue
		}
		twin := sameInstallIn(ws, *self, other, sa)
		if twin == nil {
			continue
		}
		bref := ObjectRef{Group: rbacv1.GroupName, Version: "v1", Resource: "clusterrolebindings", Kind: "ClusterRoleBinding", Name: b.Name}
		grants := ruleSummary(rb.clusterRoles[b.RoleRef.Name])
		evidence = append(evidence, fmt.Sprintf("%s binds ClusterRole %s to %s only, which runs %s — the same workload as the remover, installed in another namespace; the remover's %s is in none of its subjects: each install applied the one cluster-wide binding under the same name, and the last one took it, so the remover lacks what the ClusterRole grants (%s)",
			bref, b.RoleRef.Name, saRef(other, sa), twin.ref, saRef(self.ref.Namespace, sa), grants))
		reasons = append(reasons, fmt.Sprintf("its install's cluster-wide rights went to another install of the same product: %s names %s, not the remover's service account, and its cleanup fails on what only ClusterRole %s allowed", bref, saRef(other, sa), b.RoleRef.Name))
		subject, _ := json.Marshal([]map[string]any{{"op": "add", "path": "/subjects/-", "value": map[string]string{"kind": "ServiceAccount", "name": sa, "namespace": self.ref.Namespace}}})
		fixes = append(fixes, Remediation{
			Code: ReasonRestoreRemoverBinding,
			Summary: fmt.Sprintf("Give %s back the cluster-wide rights its install bound to it: add it to the subjects of %s (ClusterRole %s); %s then completes its cleanup and removes the finalizer itself. The binding is shared by every install of the product: the next install that applies it takes it again — install the product once for the cluster, or with bindings of its own per namespace.",
				saRef(self.ref.Namespace, sa), bref, b.RoleRef.Name, c.Object),
			Command: x.kubectl("", "patch", "clusterrolebindings.rbac.authorization.k8s.io", b.Name, "--type=json", "-p", string(subject)),
			Cost:    fmt.Sprintf("%s gains what ClusterRole %s grants, cluster-wide, as its install meant it to", saRef(self.ref.Namespace, sa), b.RoleRef.Name),
		})
	}
	return evidence, reasons, fixes, nil
}

// takenBy reports whether binding b names a service account called sa in some namespace other
// than ns, and none that stands for the service account sa of ns; it returns that namespace.
func takenBy(b rbacv1.ClusterRoleBinding, ns, sa string) (string, bool) {
	other := ""
	for _, s := range b.Subjects {
		sns, sname, ok := serviceAccountOf(s, "")
		if !ok {
			continue
		}
		if (sns == ns || sns == "*") && (sname == sa || sname == "*") {
			return "", false
		}
		if sname == sa && sns != ns && sns != "*" && other == "" {
			other = sns
		}
	}
	return other, other != ""
}

// sameInstallIn returns the workload of ns with the kind and name of self that runs as sa: the
// same product's install in another namespace.
func sameInstallIn(ws []workload, self workload, ns, sa string) *workload {
	for i := range ws {
		w := ws[i]
		wsa := w.serviceAccount
		if wsa == "" {
			wsa = "default"
		}
		if w.ref.Namespace == ns && w.ref.Resource == self.ref.Resource && w.ref.Name == self.ref.Name && wsa == sa {
			return &ws[i]
		}
	}
	return nil
}

// ruleSummary lists what rules allow, as "verbs on resources" per rule, for the evidence.
func ruleSummary(rules []rbacv1.PolicyRule) string {
	var parts []string
	for _, r := range rules {
		if len(r.Resources) == 0 {
			continue
		}
		res := slices.Clone(r.Resources)
		for i, name := range res {
			if g := strings.Join(r.APIGroups, ","); g != "" {
				res[i] = name + "." + g
			}
		}
		parts = append(parts, strings.Join(r.Verbs, ", ")+" on "+strings.Join(res, ", "))
	}
	if len(parts) == 0 {
		return "no rule"
	}
	return strings.Join(parts, "; ")
}
