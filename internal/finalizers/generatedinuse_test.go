package finalizers

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/kubeforensics/suite/internal/kinds"
)

// A controller that deletes the storage it made for an object before releasing it waits while
// a running pod mounts that storage: the pods that mount a claim generated for the stuck object
// (named like it, owned by it, labelled with a key naming it) are the blockers, each with the
// step to delete it, and the strip is no longer offered. Completed pods, unrelated claims and
// finalizers whose remover is not known to run are left alone; a failed pod list is UNKNOWN.
func TestGeneratedClaimInUse(t *testing.T) {
	res := kinds.Resource{Group: "data.example.io", Version: "v1", Resource: "datasets", Kind: "Dataset", Namespaced: true}
	obj := &metav1.ObjectMeta{Name: "imagenet", Namespace: "default", UID: "uid-ds", Finalizers: []string{"dataset-finalizer"}}
	o := subject{res: res, obj: obj}
	claim := func(name string, mod func(*corev1.PersistentVolumeClaim)) *corev1.PersistentVolumeClaim {
		c := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "default-" + name}}
		if mod != nil {
			mod(c)
		}
		return c
	}
	pod := func(name, claim string, phase corev1.PodPhase) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec:   corev1.PodSpec{NodeName: "worker-1", Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}},
			Status: corev1.PodStatus{Phase: phase}}
	}
	explanation := func(healthy bool) *Explanation {
		return &Explanation{Finalizers: []Finalizer{{Name: "dataset-finalizer",
			Controllers: []Controller{{Object: ObjectRef{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: "sys", Name: "dataset-controller"}, Found: true, Healthy: healthy}},
			Remedies:    []Remediation{{Code: ReasonReadControllerLogs}, {Code: ReasonStripFinalizer, LastResort: true, Cost: "left behind: whatever that controller would have cleaned up"}}}}}
	}
	for _, tc := range []struct {
		name string
		objs []runtime.Object
		want []string
	}{
		{"a running pod mounts the claim named like it", []runtime.Object{claim("imagenet", nil), pod("train", "imagenet", corev1.PodRunning)}, []string{"pods/train -n default"}},
		{"a pending pod scheduled with the claim owned by it", []runtime.Object{claim("data-0", func(c *corev1.PersistentVolumeClaim) {
			c.OwnerReferences = []metav1.OwnerReference{{APIVersion: "data.example.io/v1", Kind: "Dataset", Name: "imagenet", UID: "uid-ds"}}
		}), pod("train", "data-0", corev1.PodPending)}, []string{"pods/train -n default"}},
		{"the claim is labelled for it", []runtime.Object{claim("cache", func(c *corev1.PersistentVolumeClaim) {
			c.Labels = map[string]string{"data.example.io/s-default-imagenet": "true"}
		}), pod("train", "cache", corev1.PodRunning)}, []string{"pods/train -n default"}},
		{"the pod completed", []runtime.Object{claim("imagenet", nil), pod("train", "imagenet", corev1.PodSucceeded)}, nil},
		{"the pod mounts another claim", []runtime.Object{claim("imagenet-copy", nil), pod("train", "imagenet-copy", corev1.PodRunning)}, nil},
		{"a label names another object", []runtime.Object{claim("cache", func(c *corev1.PersistentVolumeClaim) {
			c.Labels = map[string]string{"data.example.io/s-default-imagenet2": "true"}
		}), pod("train", "cache", corev1.PodRunning)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := fakeExplainer(tc.objs)
			e := explanation(true)
			x.applyGeneratedInUse(context.Background(), o, e)
			f := e.Finalizers[0]
			if len(f.Incomplete) > 0 {
				t.Fatalf("incomplete: %v", f.Incomplete)
			}
			var got []string
			for _, b := range f.Blockers {
				got = append(got, b.Object.String())
				if b.Code != ReasonGeneratedClaimInUse || !strings.Contains(b.Reason, "persistentvolumeclaims/") {
					t.Errorf("blocker %+v", b)
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("blockers %q, want %q", got, tc.want)
			}
			strip := false
			for _, r := range f.Remedies {
				strip = strip || r.Code == ReasonStripFinalizer
			}
			if len(tc.want) == 0 {
				if !strip {
					t.Errorf("no blocker, yet the strip was dropped: %+v", f.Remedies)
				}
				return
			}
			if strip || f.Remedies[0].Code != ReasonDeletePod || !strings.HasSuffix(f.Remedies[0].Command, "-n default delete pod train") ||
				!strings.Contains(f.Remedies[0].Summary, "deployments.apps/dataset-controller -n sys") || !strings.Contains(f.Remedies[0].Summary, "Never strip dataset-finalizer") {
				t.Errorf("remedies %+v", f.Remedies)
			}
		})
	}
	t.Run("the remover does not run", func(t *testing.T) {
		e := explanation(false)
		fakeExplainer([]runtime.Object{claim("imagenet", nil), pod("train", "imagenet", corev1.PodRunning)}).applyGeneratedInUse(context.Background(), o, e)
		if len(e.Finalizers[0].Blockers) > 0 {
			t.Fatalf("blockers %+v for a remover not known to run", e.Finalizers[0].Blockers)
		}
	})
	t.Run("a core object named like the claim", func(t *testing.T) {
		e := explanation(true)
		svc := subject{res: kinds.Resource{Version: "v1", Resource: "services", Kind: "Service", Namespaced: true}, obj: obj}
		fakeExplainer([]runtime.Object{claim("imagenet", nil), pod("train", "imagenet", corev1.PodRunning)}).applyGeneratedInUse(context.Background(), svc, e)
		if len(e.Finalizers[0].Blockers) > 0 {
			t.Fatalf("blockers %+v for a core object", e.Finalizers[0].Blockers)
		}
	})
	t.Run("the pods cannot be listed", func(t *testing.T) {
		x := fakeExplainer([]runtime.Object{claim("imagenet", nil), pod("train", "imagenet", corev1.PodRunning)})
		x.c.Kube.(*kubefake.Clientset).PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, errors.New("forbidden")
		})
		e := explanation(true)
		x.applyGeneratedInUse(context.Background(), o, e)
		if f := e.Finalizers[0]; len(f.Incomplete) == 0 || len(f.Blockers) > 0 {
			t.Fatalf("blockers %+v, incomplete %v: want UNKNOWN", f.Blockers, f.Incomplete)
		}
	})
}

// Two workloads whose roles both name the object's type: the one whose name and arguments also
// name the kind ranks first, whatever the order of their names.
func TestDomainlessRankedByMoreTies(t *testing.T) {
	rules := []rbacv1.PolicyRule{{APIGroups: []string{"data.example.io"}, Resources: []string{"datasets", "runtimes"}, Verbs: []string{"get", "list", "update", "patch"}}}
	kube := append(controllerObjects("sys", "alpha-runtime-controller", rules), controllerObjects("sys", "dataset-controller", rules)...)
	crd := crdObject("data.example.io", "datasets")
	crd.Spec.Names.Kind, crd.Spec.Names.Singular = "Dataset", "dataset"
	x := fakeExplainer(kube, []*apiextensionsv1.CustomResourceDefinition{crd}...)
	o := subject{res: kinds.Resource{Group: "data.example.io", Version: "v1", Resource: "datasets", Kind: "Dataset", Namespaced: true},
		obj: &metav1.ObjectMeta{Name: "imagenet", Namespace: "default", Finalizers: []string{"cleanup-finalizer"}}}
	a, gaps := x.attribute(context.Background(), o, nil)
	a, more := x.judgeDomain(context.Background(), o, "cleanup-finalizer", nil, nil, a)
	if len(gaps)+len(more) > 0 {
		t.Fatalf("gaps: %v %v", gaps, more)
	}
	if len(a.controllers) != 2 || a.controllers[0].Object.Name != "dataset-controller" {
		t.Fatalf("controllers = %+v, want dataset-controller first", a.controllers)
	}
}

func TestStrongerTies(t *testing.T) {
	h, m, l := tie{conf: ConfidenceHigh}, tie{conf: ConfidenceMedium}, tie{conf: ConfidenceLow}
	for _, tc := range []struct {
		a, b []tie
		want bool
	}{
		{[]tie{h}, []tie{m, m, l}, true},
		{[]tie{h, l}, []tie{h}, true},
		{[]tie{h}, []tie{h, l}, false},
		{[]tie{h, l}, []tie{h, m}, false},
		{[]tie{h}, []tie{h}, false},
	} {
		if got := strongerTies(tc.a, tc.b); got != tc.want {
			t.Errorf("strongerTies(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
