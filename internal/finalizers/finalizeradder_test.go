package finalizers

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/kinds"
)

func managedEntry(manager, subresource, fields string) metav1.ManagedFieldsEntry {
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, Subresource: subresource,
		FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}}
}

// The entry that owns the finalizer's value names its adder; another finalizer's entry, a
// subresource's entry, undecodable fields and the object's author (an entry that owns spec
// fields too: a manifest applied with the finalizer in it) do not.
func TestFinalizerAdders(t *testing.T) {
	fin := "cnrm.cloud.example.com/finalizer"
	mf := []metav1.ManagedFieldsEntry{
		managedEntry("cnrm-controller-manager", "", `{"f:metadata":{"f:finalizers":{".":{},"v:\"cnrm.cloud.example.com/finalizer\"":{}}}}`),
		managedEntry("kubectl-client-side-apply", "", `{"f:metadata":{"f:finalizers":{"v:\"other.example.com/keep\"":{}}},"f:spec":{}}`),
		managedEntry("status-writer", "status", `{"f:metadata":{"f:finalizers":{"v:\"cnrm.cloud.example.com/finalizer\"":{}}}}`),
		managedEntry("broken", "", `not json`),
		managedEntry("argocd-controller", "", `{"f:metadata":{"f:finalizers":{"v:\"cnrm.cloud.example.com/finalizer\"":{}}},"f:spec":{"f:location":{}}}`),
	}
	if got := strings.Join(finalizerAdders(mf, fin), ","); got != "cnrm-controller-manager" {
		t.Errorf("finalizerAdders = %q", got)
	}
	if got := finalizerAdders(mf, "nobody.example.com/x"); len(got) != 0 {
		t.Errorf("finalizerAdders = %q, want none", got)
	}
}

// A field manager answers to a workload's name (less a generated suffix), a label value, its
// image's last segment, a container's name or a command's base name; a prefix of another word
// does not.
func TestAnswersTo(t *testing.T) {
	w := workload{ref: ObjectRef{Group: "apps", Resource: "statefulsets", Name: "cnrm-controller-manager-1a2b3c", Namespace: "cnrm-system"},
		labels: map[string]string{"cnrm.example.com/component": "cnrm-controller-manager"}, images: []string{"gcr.io/x/cnrm/controller:1.0"},
		processes: []string{"manager", "manager"}}
	for _, tc := range []struct {
		m    string
		want bool
	}{
		{"cnrm-controller-manager", true}, {"controller", true}, {"manager", true}, {"cnrm", false}, {"cnrm-deletiondefender", false},
	} {
		if _, got := answersTo(tc.m, w); got != tc.want {
			t.Errorf("answersTo(%q) = %v, want %v", tc.m, got, tc.want)
		}
	}
}

// The workload that added the finalizer is gone when no workload answers to a field manager that
// names the finalizer's domain: the running candidate, another component that writes as itself,
// is listed apart, and reinstalling comes before the strip. A manager that names nothing of the
// domain (a bare binary name), or one a running workload answers to, changes nothing; a candidate
// that answers to it is put first.
func TestFinalizerAdderInTheRanking(t *testing.T) {
	fin := "cnrm.cloud.example.com/finalizer"
	res := kinds.Resource{Group: "storage.cnrm.cloud.example.com", Version: "v1", Resource: "buckets", Kind: "Bucket", Namespaced: true}
	rules := []rbacv1.PolicyRule{{APIGroups: []string{"storage.cnrm.cloud.example.com"}, Resources: []string{"*"}, Verbs: []string{"get", "list", "watch", "update", "patch"}}}
	defender := controllerObjects("cnrm-system", "cnrm-deletiondefender", rules)
	recorder := controllerObjects("cnrm-system", "cnrm-recorder", rules)
	entry := func(m string) []metav1.ManagedFieldsEntry {
		return []metav1.ManagedFieldsEntry{managedEntry(m, "", `{"f:metadata":{"f:finalizers":{".":{},"v:\"cnrm.cloud.example.com/finalizer\"":{}}}}`)}
	}
	for _, tc := range []struct {
		name    string
		kube    []runtime.Object
		manager string
		first   string // the first controller's name; "" for the adder-gone verdict
	}{
		{"the adder is gone", defender, "cnrm-controller-manager", ""},
		{"a bare binary name proves nothing", defender, "manager", "cnrm-deletiondefender"},
		{"a running workload answers to it", append(append([]runtime.Object(nil), defender...), renamed(defender[0], "cnrm-controller-manager")), "cnrm-controller-manager", "cnrm-controller-manager"},
		{"the adder among the candidates comes first", append(append([]runtime.Object(nil), defender...), recorder...), "cnrm-recorder", "cnrm-recorder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := fakeExplainer(tc.kube, crdObject("storage.cnrm.cloud.example.com", "buckets"))
			meta := &metav1.ObjectMeta{Name: "b1", Namespace: "team", Finalizers: []string{fin}, ManagedFields: entry(tc.manager)}
			o := subject{res: res, obj: meta}
			e := &Explanation{Finalizers: []Finalizer{x.knownOrCustom(context.Background(), o, fin)}}
			full := &unstructured.Unstructured{Object: map[string]any{}}
			full.SetManagedFields(meta.ManagedFields)
			x.applyFinalizerAdder(context.Background(), e, ownWord{obj: full})
			f := e.Finalizers[0]
			if tc.first != "" {
				if !f.Controllers[0].Found || f.Controllers[0].Object.Name != tc.first {
					t.Fatalf("controllers = %+v", f.Controllers)
				}
				if r := f.Remedies[0]; r.Code == ReasonReadControllerLogs && !strings.Contains(r.Command, "/"+tc.first+" ") {
					t.Errorf("first step reads %q, want the logs of %s", r.Command, tc.first)
				}
				return
			}
			if f.Controllers[0].Found || finalizerReason(f) != ReasonControllerAbsent || !strings.Contains(f.Attribution, "field manager cnrm-controller-manager") {
				t.Fatalf("controllers = %+v, reason %s", f.Controllers, finalizerReason(f))
			}
			if len(f.Unrelated) != 1 || f.Unrelated[0].Object.Name != "cnrm-deletiondefender" {
				t.Errorf("unrelated = %+v", f.Unrelated)
			}
			codes := remedyCodes(f.Remedies)
			if len(codes) != 2 || codes[0] != ReasonReinstallController || codes[1] != ReasonStripFinalizer || !f.Remedies[1].LastResort {
				t.Errorf("remedies = %q", codes)
			}
		})
	}
}

// renamed is a copy of a controllerObjects Deployment under another name, same account.
func renamed(obj runtime.Object, name string) runtime.Object {
	d := obj.(*appsv1.Deployment).DeepCopy()
	d.Name = name
	return d
}
