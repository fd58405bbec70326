package finalizers

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/kinds"
)

func TestObjectNamedWorkloads(t *testing.T) {
	ws := []workload{
		{ref: ObjectRef{Namespace: "sys", Name: "ns-reconciler-team-a"}, serviceAccount: "ns-reconciler-team-a"},
		{ref: ObjectRef{Namespace: "sys", Name: "web"}, serviceAccount: "web-sa", owners: []metav1.OwnerReference{{UID: "obj-uid"}}},
		{ref: ObjectRef{Namespace: "sys", Name: "operator"}, serviceAccount: "operator-sa"},
	}
	for _, tc := range []struct {
		name   string
		fields map[string]any
		want   string
	}{
		{"status names the reconciler", map[string]any{"status": map[string]any{"reconciler": "ns-reconciler-team-a"}}, "sys/ns-reconciler-team-a"},
		{"spec names the controller's account", map[string]any{"spec": map[string]any{"controllerRef": map[string]any{"name": "operator-sa"}}}, "sys/operator"},
		{"a key that says nothing of a reconciler", map[string]any{"status": map[string]any{"deployment": "ns-reconciler-team-a"}}, ""},
		{"a child the object owns", map[string]any{"status": map[string]any{"managedDeployment": "web"}}, ""},
		{"metadata is not read", map[string]any{"metadata": map[string]any{"labels": map[string]any{"controller": "operator"}}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := &unstructured.Unstructured{Object: tc.fields}
			obj.SetUID("obj-uid")
			got := ""
			for _, n := range objectNamedWorkloads(obj, ws) {
				got += n.w.ref.Namespace + "/" + n.w.ref.Name
			}
			if got != tc.want {
				t.Fatalf("objectNamedWorkloads = %q, want %q", got, tc.want)
			}
		})
	}
}

// The object's own status names its reconciler, which runs but whose service account may no
// longer update the object (its RoleBinding was in the object's namespace, deleted with the
// namespace's content: config-sync#1191); a cluster-admin manager of the same product may. The
// named reconciler is the remover, the manager is listed apart, and the strip comes first while
// the namespace is being deleted; otherwise restoring the right comes first.
func TestApplyObjectTiesRightsLost(t *testing.T) {
	manager := controllerObjects("sys", "reconciler-manager", []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}})
	reconciler := controllerObjects("sys", "ns-reconciler-team-a", nil)[0]
	res := kinds.Resource{Group: "example.dev", Version: "v1", Resource: "reposyncs", Kind: "RepoSync", Namespaced: true}
	for _, going := range []bool{true, false} {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}
		if going {
			ns.DeletionTimestamp = &metav1.Time{Time: time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)}
			ns.Finalizers = []string{"kubernetes"}
		}
		x := fakeExplainer(append([]runtime.Object{reconciler, ns}, manager...), crdObject("example.dev", "reposyncs"))
		obj := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"reconciler": "ns-reconciler-team-a"}}}
		obj.SetName("repo-sync")
		obj.SetNamespace("team-a")
		obj.SetFinalizers([]string{"example.dev/reconciler"})
		o := subject{res: res, obj: obj}
		a, _ := x.attribute(context.Background(), o, nil)
		strip := x.stripStep(o, "example.dev/reconciler", known{lost: "nothing"})
		e := &Explanation{Finalizers: []Finalizer{{Name: "example.dev/reconciler", Controllers: a.controllers, Remedies: []Remediation{{Code: ReasonReadControllerLogs}}, bypass: &strip}}}
		x.applyObjectTies(context.Background(), o, e, ownWord{obj: obj})
		f := e.Finalizers[0]
		if len(f.Controllers) != 1 || f.Controllers[0].Object.Name != "ns-reconciler-team-a" || !f.Controllers[0].Healthy || f.Controllers[0].Confidence != ConfidenceHigh || !f.Orphaned {
			t.Fatalf("going %v: controllers %+v orphaned %v, want the named reconciler alone", going, f.Controllers, f.Orphaned)
		}
		if len(f.Unrelated) != 1 || f.Unrelated[0].Object.Name != "reconciler-manager" {
			t.Fatalf("going %v: unrelated %+v, want the manager", going, f.Unrelated)
		}
		first := f.Remedies[0]
		if going != (first.Code == ReasonStripFinalizer && !first.LastResort) || !strings.Contains(first.Summary, "serviceaccounts/ns-reconciler-team-a -n sys") {
			t.Fatalf("going %v: first step %+v", going, first)
		}
	}
}

// A candidate that reports events on the object comes first, whatever the others' rights.
func TestApplyObjectTiesEventAuthor(t *testing.T) {
	pods := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"update"}}
	x := fakeExplainer(append(controllerObjects("sys", "a-manager", []rbacv1.PolicyRule{pods}), controllerObjects("sys", "b-agent", []rbacv1.PolicyRule{pods})...))
	obj := &unstructured.Unstructured{Object: map[string]any{}}
	obj.SetName("p")
	obj.SetNamespace("default")
	o := subject{res: kinds.Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true}, obj: obj}
	a, _ := x.attribute(context.Background(), o, nil)
	strip := x.stripStep(o, "example.dev/f", known{})
	e := &Explanation{Finalizers: []Finalizer{{Name: "example.dev/f", Controllers: a.controllers, bypass: &strip}}}
	if e.Finalizers[0].Controllers[0].Object.Name != "a-manager" {
		t.Fatalf("before: %+v", e.Finalizers[0].Controllers)
	}
	x.applyObjectTies(context.Background(), o, e, ownWord{obj: obj, events: []Event{{Type: "Normal", Reason: "Cleaning", Source: "b-agent"}}})
	c := e.Finalizers[0].Controllers[0]
	if c.Object.Name != "b-agent" || c.Confidence != ConfidenceHigh || !strings.Contains(strings.Join(c.Evidence, "\n"), "reports events on the object") {
		t.Fatalf("after: %+v", e.Finalizers[0].Controllers)
	}
}
