package finalizers

import (
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/kinds"
)

func TestRuleAllowsUpdate(t *testing.T) {
	rule := func(groups, resources, verbs []string, names ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: groups, Resources: resources, Verbs: verbs, ResourceNames: names}
	}
	for _, tc := range []struct {
		name string
		r    rbacv1.PolicyRule
		want bool
	}{
		{"exact update", rule([]string{"argoproj.io"}, []string{"applications"}, []string{"update"}), true},
		{"patch", rule([]string{"argoproj.io"}, []string{"applications"}, []string{"patch"}), true},
		{"finalizers subresource", rule([]string{"argoproj.io"}, []string{"applications/finalizers"}, []string{"update"}), true},
		{"read only", rule([]string{"argoproj.io"}, []string{"applications"}, []string{"get", "list", "watch"}), false},
		{"other group", rule([]string{"apps"}, []string{"applications"}, []string{"*"}), false},
		{"status only", rule([]string{"argoproj.io"}, []string{"applications/status"}, []string{"update"}), false},
		{"wildcards", rule([]string{"*"}, []string{"*"}, []string{"*"}), true},
		{"other name", rule([]string{"argoproj.io"}, []string{"applications"}, []string{"update"}, "other"), false},
		{"this name", rule([]string{"argoproj.io"}, []string{"applications"}, []string{"update"}, "guestbook"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ruleAllowsUpdate(tc.r, "argoproj.io", "applications", "guestbook"); got != tc.want {
				t.Errorf("ruleAllowsUpdate = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestServiceAccountOf(t *testing.T) {
	for _, tc := range []struct {
		s        rbacv1.Subject
		ns, name string
		ok       bool
	}{
		{rbacv1.Subject{Kind: "ServiceAccount", Namespace: "argocd", Name: "argocd-server"}, "argocd", "argocd-server", true},
		{rbacv1.Subject{Kind: "ServiceAccount", Name: "sa"}, "binding-ns", "sa", true},
		{rbacv1.Subject{Kind: "User", Name: "system:serviceaccount:kafka:strimzi"}, "kafka", "strimzi", true},
		{rbacv1.Subject{Kind: "User", Name: "alice"}, "", "", false},
		{rbacv1.Subject{Kind: "Group", Name: "system:serviceaccounts:kafka"}, "kafka", "*", true},
		{rbacv1.Subject{Kind: "Group", Name: "system:serviceaccounts"}, "*", "*", true},
		{rbacv1.Subject{Kind: "Group", Name: "system:masters"}, "", "", false},
	} {
		ns, name, ok := serviceAccountOf(tc.s, "binding-ns")
		if ns != tc.ns || name != tc.name || ok != tc.ok {
			t.Errorf("serviceAccountOf(%+v) = %q, %q, %v", tc.s, ns, name, ok)
		}
	}
}

// Bindings of the bootstrap policy are kube-controller-manager's own; a RoleBinding counts only
// in its namespace; a rule on everything is broad.
func TestUpdaters(t *testing.T) {
	apps := []rbacv1.PolicyRule{{APIGroups: []string{"argoproj.io"}, Resources: []string{"applications"}, Verbs: []string{"patch"}}}
	all := []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}}
	o := &rbacObjects{
		clusterRoles: map[string][]rbacv1.PolicyRule{"cluster-admin": all, "system:controller:generic-garbage-collector": all},
		roles:        map[string][]rbacv1.PolicyRule{"argocd/app": apps},
		crbs: []rbacv1.ClusterRoleBinding{
			{ObjectMeta: metav1.ObjectMeta{Name: "gc", Labels: map[string]string{bootstrapLabel: "rbac-defaults"}}, RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "system:controller:generic-garbage-collector"},
				Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "kube-system", Name: "generic-garbage-collector"}}},
			{ObjectMeta: metav1.ObjectMeta{Name: "rancher"}, RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "cluster-admin"},
				Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "cattle-system", Name: "rancher"}}},
		},
		rbs: []rbacv1.RoleBinding{{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "argocd"}, RoleRef: rbacv1.RoleRef{Kind: "Role", Name: "app"},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "argocd-application-controller"}}}},
	}
	got := o.updaters("argoproj.io", "applications", "argocd", "guestbook")
	if len(got) != 2 || got[0].name != "argocd-application-controller" || got[0].broad || got[1].name != "rancher" || !got[1].broad {
		t.Fatalf("updaters in argocd = %+v", got)
	}
	if !strings.Contains(got[0].via, "Role app via RoleBinding app -n argocd") {
		t.Errorf("via = %q", got[0].via)
	}
	if other := o.updaters("argoproj.io", "applications", "team-a", "x"); len(other) != 1 || other[0].name != "rancher" {
		t.Errorf("updaters in team-a = %+v", other)
	}
}

func TestNoDomain(t *testing.T) {
	for name, want := range map[string]bool{"foregroundDeleteVirtualMachine": true, "example.com/hold": false, "finalizers.fluxcd.io": false, "kubernetes": true} {
		if noDomain(name) != want {
			t.Errorf("noDomain(%q) = %v", name, !want)
		}
	}
}

// helm-controller's labels win over kustomize-controller's on an object that carries both.
func TestGitOpsOwnerPrefersHelmRelease(t *testing.T) {
	g := gitOpsOwner(map[string]string{
		"kustomize.toolkit.fluxcd.io/name": "apps", "kustomize.toolkit.fluxcd.io/namespace": "flux-system",
		"helm.toolkit.fluxcd.io/name": "redis", "helm.toolkit.fluxcd.io/namespace": "cache",
	})
	if g == nil || g.String() != "HelmRelease cache/redis" {
		t.Errorf("gitOpsOwner = %v", g)
	}
}

// Removing finalizers.fluxcd.io from a source loses its stored artifact, not applied objects.
func TestFluxSourceCost(t *testing.T) {
	k, _ := lookupKnown("finalizers.fluxcd.io", "GitRepository")
	if !strings.Contains(k.lost, "GitRepository's stored artifact") || strings.Contains(k.lost, "objects this Flux object applied") {
		t.Errorf("lost = %q", k.lost)
	}
}

func TestWebhookIntercepts(t *testing.T) {
	cms := kinds.Resource{Version: "v1", Resource: "configmaps", Namespaced: true}
	ns := kinds.Resource{Version: "v1", Resource: "namespaces"}
	rule := func(op admissionv1.OperationType, groups []string, res ...string) webhook {
		return webhook{rules: []admissionv1.RuleWithOperations{{Operations: []admissionv1.OperationType{op}, Rule: admissionv1.Rule{APIGroups: groups, Resources: res}}}}
	}
	core := []string{""}
	for _, tc := range []struct {
		name string
		w    webhook
		op   admissionv1.OperationType
		res  kinds.Resource
		sub  string
		want bool
	}{
		{"exact resource", rule(admissionv1.Delete, core, "configmaps"), admissionv1.Delete, cms, "", true},
		{"other operation", rule(admissionv1.Delete, core, "configmaps"), admissionv1.Update, cms, "", false},
		{"other resource", rule(admissionv1.Delete, core, "configmaps"), admissionv1.Delete, kinds.Resource{Version: "v1", Resource: "secrets"}, "", false},
		{"everything", rule(admissionv1.OperationAll, []string{"*"}, "*/*"), admissionv1.Update, cms, "", true},
		{"everything includes subresources", rule(admissionv1.Update, []string{"*"}, "*/*"), admissionv1.Update, ns, "finalize", true},
		{"star is no subresource", rule(admissionv1.Update, core, "*"), admissionv1.Update, ns, "finalize", false},
		{"resource alone is no subresource", rule(admissionv1.Update, core, "namespaces"), admissionv1.Update, ns, "finalize", false},
		{"named subresource", rule(admissionv1.Update, core, "namespaces/finalize"), admissionv1.Update, ns, "finalize", true},
		{"every subresource of it", rule(admissionv1.Update, core, "namespaces/*"), admissionv1.Update, ns, "finalize", true},
		{"that subresource of all", rule(admissionv1.Update, core, "*/finalize"), admissionv1.Update, ns, "finalize", true},
		{"subresource rule is not the resource", rule(admissionv1.Update, core, "namespaces/finalize"), admissionv1.Update, ns, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.w.intercepts(tc.op, tc.res, tc.sub); got != tc.want {
				t.Errorf("intercepts = %v, want %v", got, tc.want)
			}
		})
	}
}

// Rook's "will not be deleted until all dependents are removed" lists kinds and names; each
// becomes a dependent, and a message that is not about dependents names none.
func TestNamedDependents(t *testing.T) {
	msg := `CephCluster "rook-ceph/rook-ceph" will not be deleted until all dependents are removed: CephBlockPool: [builtin-mgr replicapool], CephFilesystem: [myfs]`
	w := ownWord{
		conditions: []Condition{{Type: "DeletionIsBlocked", Status: "True", Reason: "ObjectHasDependents", Message: msg}},
		events:     []Event{{Type: "Warning", Reason: "ReconcileFailed", Message: "failed to reconcile CephCluster. " + msg}, {Type: "Normal", Reason: "Other", Message: "Pod: [x]"}},
	}
	var got []string
	for _, d := range w.namedDependents() {
		got = append(got, d.kind+"/"+d.name+" from "+d.source)
	}
	want := []string{"CephBlockPool/builtin-mgr from condition DeletionIsBlocked", "CephBlockPool/replicapool from condition DeletionIsBlocked", "CephFilesystem/myfs from condition DeletionIsBlocked"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("dependents = %q, want %q", got, want)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"--context=prod":      "--context=prod",
		"persistentvolumes/a": "persistentvolumes/a",
		`[{"op":"remove"}]`:   `'[{"op":"remove"}]'`,
		"it's":                `'it'\''s'`,
		"a b":                 `'a b'`,
		"":                    "''",
		"x;rm -rf /":          `'x;rm -rf /'`,
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// A condition the namespace controller wrote is marked stale when a fresh sweep disagrees.
func TestVerifyConditionsMarksStale(t *testing.T) {
	x := &Explainer{catalog: kinds.NewCatalog(nil, nil)}
	conds := []Condition{
		{Type: "NamespaceContentRemaining", Status: "True"},
		{Type: "NamespaceFinalizersRemaining", Status: "True"},
		{Type: "NamespaceDeletionDiscoveryFailure", Status: "True"},
		{Type: "NamespaceDeletionContentFailure", Status: "False"},
	}
	x.verifyConditions(conds, 0, 0, false)
	for _, c := range conds[:3] {
		if c.Stale == "" {
			t.Errorf("%s not marked stale", c.Type)
		}
	}
	if conds[3].Stale != "" {
		t.Errorf("a False condition was marked stale")
	}
	fresh := []Condition{{Type: "NamespaceContentRemaining", Status: "True"}, {Type: "NamespaceFinalizersRemaining", Status: "True"}}
	x.verifyConditions(fresh, 2, 1, true)
	if fresh[0].Stale != "" || fresh[1].Stale != "" {
		t.Errorf("conditions a sweep confirms were marked stale: %+v", fresh)
	}
}

// The external-attacher's finalizer carries the driver name with every dot made a dash.
func TestSanitizeDriver(t *testing.T) {
	for in, want := range map[string]string{
		"cinder.csi.openstack.org": "cinder-csi-openstack-org",
		"csi.vsphere.vmware.com":   "csi-vsphere-vmware-com",
		"driver.longhorn.io":       "driver-longhorn-io",
		"ebs.csi.aws.com":          "ebs-csi-aws-com",
	} {
		if got := sanitizeDriver(in); got != want {
			t.Errorf("sanitizeDriver(%q) = %q, want %q", in, got, want)
		}
	}
}
