package finalizers

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/kinds"
)

// linkNow is the clock of the object-link tests.
var linkNow = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)

// linkPod is a running pod of controllerObjects' workload name in ns.
func linkPod(ns, name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name + "-7d9f8-abcde", Namespace: ns, Labels: map[string]string{"app.kubernetes.io/name": name}}}
}

// linkLease is a Lease held by pod, renewed ago before linkNow, for 15 seconds.
func linkLease(ns, name, pod string, ago time.Duration) *coordinationv1.Lease {
	holder, d := pod+"_0f4c2a9e-5b1d-4c3a-9e7f-1a2b3c4d5e6f", int32(15)
	renew := metav1.NewMicroTime(linkNow.Add(-ago))
	return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &d, RenewTime: &renew}}
}

// rankLinked attributes and judges the finalizer on obj among kube's workloads, then applies the
// object's ties, and returns the finalizer as ranked.
func rankLinked(t *testing.T, kube []runtime.Object, res kinds.Resource, obj *unstructured.Unstructured, conds []Condition, catalog ...kinds.Resource) Finalizer {
	t.Helper()
	x := fakeExplainer(kube, crdObject("dbops.io", "clusters"), crdObject("dbops.io", "backups")).At(linkNow)
	x.catalog = kinds.NewCatalog(catalog, nil)
	o := subject{res: res, obj: obj}
	name := obj.GetFinalizers()[0]
	a, gaps := x.attribute(context.Background(), o, nil)
	a, more := x.judgeDomain(context.Background(), o, name, nil, nil, a)
	if len(gaps)+len(more) > 0 {
		t.Fatalf("gaps: %v %v", gaps, more)
	}
	strip := x.stripStep(o, name, known{lost: "nothing"})
	e := &Explanation{Finalizers: []Finalizer{{Name: name, Controllers: a.controllers, Unrelated: a.unrelated, Remedies: x.controllerRemedies(o, Finalizer{Name: name}, known{lost: "nothing"}, a, ""), bypass: &strip}}}
	x.applyObjectTies(context.Background(), o, e, ownWord{obj: obj, conditions: conds})
	return e.Finalizers[0]
}

// Two controllers of one product may both update the stuck Service and both are tied to the
// finalizer's domain by their roles; nothing of the product's own ties tells them apart, and
// the one first by name came first. What ties one of them to the object itself does: a live
// Lease its pod holds under the domain (leader election of the controller), a Lease in the
// object's namespace, the object's owner a custom resource only its roles name, a condition
// naming it. A stale Lease ties it too, said as stale. A Lease named for nothing of the domain,
// a condition naming a longer name that contains it, or a pod the finalizer's own name names
// beside it changes nothing.
func TestRankByObjectLinks(t *testing.T) {
	services := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"services"}, Verbs: []string{"get", "update", "patch"}}
	backups := rbacv1.PolicyRule{APIGroups: []string{"dbops.io"}, Resources: []string{"backups"}, Verbs: []string{"*"}}
	clusters := rbacv1.PolicyRule{APIGroups: []string{"dbops.io"}, Resources: []string{"clusters"}, Verbs: []string{"*"}}
	svcRes := kinds.Resource{Version: "v1", Resource: "services", Kind: "Service", Namespaced: true}
	clusterRes := kinds.Resource{Group: "dbops.io", Version: "v1", Resource: "clusters", Kind: "Cluster", Namespaced: true}
	base := append(controllerObjects("dbops", "dbops-agent", []rbacv1.PolicyRule{services, backups}), controllerObjects("dbops", "dbops-core", []rbacv1.PolicyRule{services, clusters})...)
	base = append(base, linkPod("dbops", "dbops-agent"), linkPod("dbops", "dbops-core"))
	corePod := "dbops-core-7d9f8-abcde"
	for _, tc := range []struct {
		name      string
		finalizer string
		more      []runtime.Object
		owner     bool
		conds     []Condition
		first     string
		tie       string
	}{
		{"nothing ties either to the object", "dbops.io/cleanup", nil, false, nil, "dbops-agent", ""},
		{"a live Lease under the domain", "dbops.io/cleanup", []runtime.Object{linkLease("dbops", "5f3c1a.dbops.io", corePod, 3*time.Second)}, false, nil, "dbops-core", "renewed 3s ago: it leads"},
		{"a stale Lease under the domain", "dbops.io/cleanup", []runtime.Object{linkLease("dbops", "5f3c1a.dbops.io", corePod, time.Hour)}, false, nil, "dbops-core", "no longer renews it"},
		{"a Lease in the object's namespace", "dbops.io/cleanup", []runtime.Object{linkLease("shop", "leader", corePod, 3*time.Second)}, false, nil, "dbops-core", "in the object's own namespace"},
		{"a Lease named for nothing of the domain", "dbops.io/cleanup", []runtime.Object{linkLease("dbops", "leader-lock", corePod, 3*time.Second)}, false, nil, "dbops-agent", ""},
		{"the owner a custom resource its roles name", "dbops.io/cleanup", nil, true, nil, "dbops-core", "the object's owner clusters.dbops.io/main -n shop is of a type it reconciles"},
		{"a condition names it", "dbops.io/cleanup", nil, false, []Condition{{Type: "Ready", Status: "False", Message: "cleanup waits for deployment/dbops-core."}}, "dbops-core", "names it (deployment/dbops-core)"},
		{"a condition names a longer name", "dbops.io/cleanup", nil, false, []Condition{{Type: "Ready", Status: "False", Message: "handled by dbops-core-webhook"}}, "dbops-agent", ""},
		{"the finalizer's own name names the other", "dbops.io/agent", []runtime.Object{linkLease("dbops", "5f3c1a.dbops.io", corePod, 3*time.Second)}, false, nil, "dbops-agent", ""},
		{"it installed the other", "dbops.io/cleanup", []runtime.Object{linkLease("dbops", "5f3c1a.dbops.io", corePod, 3*time.Second)}, false, nil, "dbops-agent", "installs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := &unstructured.Unstructured{Object: map[string]any{}}
			obj.SetName("main-primary")
			obj.SetNamespace("shop")
			obj.SetUID("svc-uid")
			obj.SetFinalizers([]string{tc.finalizer})
			if tc.owner {
				obj.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "dbops.io/v1", Kind: "Cluster", Name: "main", UID: "cluster-uid"}})
			}
			kube := append(append([]runtime.Object(nil), base...), tc.more...)
			if tc.tie == "installs" {
				kube = managedBy(kube, "dbops-agent", "dbops-core")
			}
			f := rankLinked(t, kube, svcRes, obj, tc.conds, svcRes, clusterRes)
			if len(f.Controllers) != 2 || f.Controllers[0].Object.Name != tc.first {
				t.Fatalf("controllers %+v: want %s first", f.Controllers, tc.first)
			}
			ties := strings.Join(f.Controllers[0].Ties, "\n")
			if tc.tie == "installs" {
				if !strings.Contains(strings.Join(f.Controllers[1].Ties, "\n"), "it leads") {
					t.Fatalf("ties of the installer: %q, want its Lease shown", f.Controllers[1].Ties)
				}
				return
			}
			if tc.tie != "" && !strings.Contains(ties, tc.tie) {
				t.Fatalf("ties of %s: %s, want %q", tc.first, ties, tc.tie)
			}
			if tc.tie == "" && (strings.Contains(ties, "Lease") || strings.Contains(ties, "condition") || strings.Contains(ties, "owner")) {
				t.Fatalf("ties of %s: %s, want no tie to the object", tc.first, ties)
			}
			var logs []string
			for _, r := range f.Remedies {
				if r.Code == ReasonReadControllerLogs {
					logs = append(logs, r.Command)
				}
			}
			if len(logs) == 0 || !strings.Contains(logs[0], "deployments.apps/"+tc.first) {
				t.Fatalf("log steps %q: want %s's first", logs, tc.first)
			}
		})
	}
}

// tokenNames matches whole tokens only, in the forms a message writes a workload or an account.
func TestTokenNames(t *testing.T) {
	w := workload{ref: ObjectRef{Namespace: "ops", Name: "db-operator"}, serviceAccount: "db-operator-sa"}
	checkAll(t, "tokenNames", func(msg string) bool {
		for _, tok := range messageTokens(msg) {
			if _, ok := tokenNames(tok, w); ok {
				return true
			}
		}
		return false
	}, []expect[string, bool]{
		{"reconciled by db-operator.", true},
		{"waiting on ops/db-operator", true},
		{"deployments.apps/db-operator is scaling", true},
		{`User "system:serviceaccount:ops:db-operator-sa" cannot update`, true},
		{"serviceaccount/db-operator-sa forbidden", true},
		{"handled by db-operator-webhook", false},
		{"my-db-operator failed", false},
		{"other/db-operator", false},
		{"the operator failed", false},
	})
}

// reconcilesOwner: an owner the candidate reconciles by its roles, a custom resource of a type
// its product installs, the candidate itself, or a workload of its product; not a workload of
// another product, nor a type only a wildcard grants.
func TestReconcilesOwner(t *testing.T) {
	rb := &rbacObjects{clusterRoles: map[string][]rbacv1.PolicyRule{
		"core": {{APIGroups: []string{"dbops.io"}, Resources: []string{"clusters"}, Verbs: []string{"get"}}},
		"wide": {{APIGroups: []string{"dbops.io"}, Resources: []string{"*"}, Verbs: []string{"*"}}}},
		crbs: []rbacv1.ClusterRoleBinding{
			{ObjectMeta: metav1.ObjectMeta{Name: "core"}, RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "core"}, Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "dbops", Name: "core"}}},
			{ObjectMeta: metav1.ObjectMeta{Name: "wide"}, RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "wide"}, Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "dbops", Name: "wide"}}}}}
	idx := &productIndex{crdGroups: map[string]bool{"dbops.io": true, "other.io": true},
		crdProducts: map[string][]crdProduct{"other.io": {{crd: "customresourcedefinitions.apiextensions.k8s.io/things.other.io", labels: map[string]string{"app.kubernetes.io/part-of": "dbops"}}}}}
	deploy := func(name, sa, partOf string) workload {
		return workload{ref: ObjectRef{Group: "apps", Resource: "deployments", Namespace: "dbops", Name: name}, serviceAccount: sa, labels: map[string]string{"app.kubernetes.io/part-of": partOf}}
	}
	core, wide, db, foreign := deploy("dbops-core", "core", "dbops"), deploy("dbops-wide", "wide", "tools"), deploy("main-db", "db", "dbops"), deploy("web", "web", "shop")
	byRef := map[string]workload{core.ref.String(): core, db.ref.String(): db, foreign.ref.String(): foreign}
	cluster := ObjectRef{Group: "dbops.io", Resource: "clusters", Namespace: "dbops", Name: "main"}
	thing := ObjectRef{Group: "other.io", Resource: "things", Namespace: "dbops", Name: "t"}
	for _, tc := range []struct {
		name  string
		w     workload
		owner ObjectRef
		want  string
	}{
		{"its roles name the owner's type", core, cluster, "of a type it reconciles"},
		{"a wildcard names every type", wide, cluster, ""},
		{"a type its product installs", core, thing, "a type its product installs"},
		{"the candidate itself", core, core.ref, "this workload itself"},
		{"a workload of its product", core, db.ref, "a workload of its product (both carry app.kubernetes.io/part-of=dbops)"},
		{"a workload of another product", core, foreign.ref, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := reconcilesOwner(tc.w, tc.owner, 1, byRef, idx, rb)
			if ok != (tc.want != "") || !strings.Contains(got.evidence, tc.want) {
				t.Fatalf("reconcilesOwner = %+v %v, want %q", got, ok, tc.want)
			}
		})
	}
}

// capTieLines keeps maxTies lines and counts the rest, with those an earlier cap counted.
func TestCapTieLines(t *testing.T) {
	got := capTieLines([]string{"medium: a", "low: b", "high: c", "medium: d", "low: e", "and 2 more"})
	if want := []string{"medium: a", "low: b", "high: c", "medium: d", "and 3 more"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("capTieLines = %q, want %q", got, want)
	}
	if got := capTieLines([]string{"medium: a", "low: b"}); len(got) != 2 {
		t.Fatalf("capTieLines = %q, want both lines", got)
	}
}

// A long condition message is quoted cut at a character, never inside one.
func TestConditionNameTiesQuoteBounded(t *testing.T) {
	w := workload{ref: ObjectRef{Namespace: "ops", Name: "db-operator"}}
	msg := "db-operator: " + strings.Repeat("é", 300)
	got := conditionNameTies([]Condition{{Type: "Ready", Status: "False", Message: msg}}, []workload{w}, "")[w.ref.String()]
	if !strings.Contains(got.evidence, strings.Repeat("é", maxQuotedCondition-len([]rune("db-operator: ")))+"…") || strings.Contains(got.evidence, "\\x") {
		t.Fatalf("evidence %q: want the message cut at %d characters", got.evidence, maxQuotedCondition)
	}
}

// managedBy returns kube with the Deployment name labelled as managed by the workload by.
func managedBy(kube []runtime.Object, name, by string) []runtime.Object {
	out := make([]runtime.Object, 0, len(kube))
	for _, o := range kube {
		if d, ok := o.(*appsv1.Deployment); ok && d.Name == name {
			d = d.DeepCopy()
			d.Labels = map[string]string{"app.kubernetes.io/name": name, "app.kubernetes.io/managed-by": by}
			o = d
		}
		out = append(out, o)
	}
	return out
}
