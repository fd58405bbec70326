package finalizers

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// deployment is a Deployment running pods labelled app=name, ready replicas of one.
func deployment(ns, name string, ready int32, containers ...corev1.Container) *appsv1.Deployment {
	one := int32(1)
	labels := map[string]string{"app": name}
	if len(containers) == 0 {
		containers = []corev1.Container{{Name: "c", Image: "registry.example/" + name + ":v1"}}
	}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Generation: 1},
		Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: containers}}},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 1, ReadyReplicas: ready, AvailableReplicas: ready, UpdatedReplicas: 1}}
	if ready > 0 {
		d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue}}
	}
	return d
}

func service(ns, name, app string) *corev1.Service {
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	if app != "" {
		s.Spec.Selector = map[string]string{"app": app}
	}
	return s
}

// A running remover that works through an in-cluster Service its configuration names (in its
// args, its env, or a ConfigMap its env reads) is stalled for want of that Service when the
// Service is gone or every workload behind it has no ready replica: bringing it back is the
// fix. A Service that answers, one the remover serves itself, or one without a workload behind
// it is no evidence.
func TestRemoverDependencies(t *testing.T) {
	const ns = "bm-system"
	fromConfigMap := corev1.Container{Name: "manager", Image: "registry.example/bmo:v1",
		EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "bmo-endpoints"}}}}}
	endpoints := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bmo-endpoints", Namespace: ns},
		Data: map[string]string{"PROVISIONER_ENDPOINT": "https://provisioner." + ns + ".svc:6385/v1/"}}
	fromArgs := func(host string) corev1.Container {
		return corev1.Container{Name: "manager", Image: "registry.example/bmo:v1", Args: []string{"--endpoint=https://" + host + ":443"}}
	}
	for _, tc := range []struct {
		name string
		objs []runtime.Object
		want string // the first fix's code and the object it brings back; "" for none
	}{
		{"backend down, named in a ConfigMap", []runtime.Object{deployment(ns, "bmo", 1, fromConfigMap), endpoints, service(ns, "provisioner", "provisioner"), deployment(ns, "provisioner", 0)},
			"restore-controller deployments.apps/provisioner -n bm-system"},
		{"backend down, named in args", []runtime.Object{deployment(ns, "bmo", 1, fromArgs("provisioner."+ns+".svc")), service(ns, "provisioner", "provisioner"), deployment(ns, "provisioner", 0)},
			"restore-controller deployments.apps/provisioner -n bm-system"},
		{"service gone", []runtime.Object{deployment(ns, "bmo", 1, fromConfigMap), endpoints},
			"restore-missing-object services/provisioner -n bm-system"},
		{"backend ready", []runtime.Object{deployment(ns, "bmo", 1, fromConfigMap), endpoints, service(ns, "provisioner", "provisioner"), deployment(ns, "provisioner", 1)}, ""},
		{"the remover serves it", []runtime.Object{deployment(ns, "bmo", 1, fromArgs("bmo."+ns+".svc")), service(ns, "bmo", "bmo")}, ""},
		{"endpoints kept by hand", []runtime.Object{deployment(ns, "bmo", 1, fromConfigMap), endpoints, service(ns, "provisioner", "")}, ""},
		{"no Service named", []runtime.Object{deployment(ns, "bmo", 1, fromArgs("provisioner.example.com"))}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := fakeExplainer(tc.objs)
			ws, err := x.workloads(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var remover Controller
			for _, w := range ws {
				if w.ref.Name == "bmo" {
					remover = *w.controller()
				}
			}
			ev, reasons, fixes, gaps := x.removerDependencies(context.Background(), remover)
			if len(gaps) > 0 {
				t.Fatalf("gaps %q", gaps)
			}
			got := ""
			if len(fixes) > 0 {
				got = string(fixes[0].Code)
				for _, w := range []string{"deployments.apps/provisioner -n bm-system", "services/provisioner -n bm-system"} {
					if strings.Contains(fixes[0].Summary, w) {
						got += " " + w
						break
					}
				}
			}
			if got != tc.want {
				t.Fatalf("first fix %q, want %q (evidence %q)", got, tc.want, ev)
			}
			if tc.want != "" && (len(reasons) == 0 || !strings.Contains(reasons[0], "services/provisioner -n bm-system")) {
				t.Errorf("reasons %q do not name the Service it works through", reasons)
			}
		})
	}
}
