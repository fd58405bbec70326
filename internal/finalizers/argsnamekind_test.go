package finalizers

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/kinds"
)

func TestArgsNameKind(t *testing.T) {
	own := ownCRD{names: []string{"addon", "addons"}}
	for _, tc := range []struct {
		name string
		args []string
		want bool
	}{
		{"a flag names the plural", []string{"kubermatic-controller-manager", "-kubernetes-addons-path=/opt/addons/kubernetes"}, true},
		{"a list value names the kind", []string{"--kinds=cluster,addon"}, true},
		{"nothing names it", []string{"kubermatic-api", "-address=0.0.0.0:8080", "-oidc-url=https://example.com/dex"}, false},
		{"a longer word is not the kind", []string{"--addonsets=true"}, false},
		{"no arguments", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := len(argsNameKind(workload{args: tc.args}, "Addon", own)) > 0; got != tc.want {
				t.Fatalf("argsNameKind(%q) = %v, want %v", tc.args, got, tc.want)
			}
		})
	}
}

// A domainless finalizer on a custom kind, three workloads of one product that may update
// everything (kubermatic#4619): the one whose arguments name the kind is the controller, the
// API server and the other controller manager are unrelated, and the finalizer is not reported
// as having no controller.
func TestDomainlessFinalizerTiedByArgumentsNamingTheKind(t *testing.T) {
	all := []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}}
	var kube []runtime.Object
	for _, w := range []struct{ name, args string }{
		{"controller-manager", "-kubernetes-addons-path=/opt/addons/kubernetes"},
		{"kubermatic-api", "-address=0.0.0.0:8080"},
		{"master-controller-manager", "-worker-count=20"},
	} {
		objs := controllerObjects("kubermatic", w.name, all)
		d := objs[0].(*appsv1.Deployment)
		d.Spec.Template.Spec.Containers[0].Args = []string{w.args}
		kube = append(kube, objs...)
	}
	crd := crdObject("kubermatic.k8s.io", "addons")
	crd.Spec.Names.Kind, crd.Spec.Names.Singular = "Addon", "addon"
	x := fakeExplainer(kube, []*apiextensionsv1.CustomResourceDefinition{crd}...)
	o := subject{res: kinds.Resource{Group: "kubermatic.k8s.io", Version: "v1", Resource: "addons", Kind: "Addon", Namespaced: true},
		obj: &metav1.ObjectMeta{Name: "canal", Namespace: "cluster-x", Finalizers: []string{"cleanup-manifests"}}}
	a, gaps := x.attribute(context.Background(), o, nil)
	a, more := x.judgeDomain(context.Background(), o, "cleanup-manifests", nil, nil, a)
	if len(gaps)+len(more) > 0 {
		t.Fatalf("gaps: %v %v", gaps, more)
	}
	if a.dead || len(a.controllers) != 1 || a.controllers[0].Object.Name != "controller-manager" {
		t.Fatalf("controllers = %+v (dead %v)", a.controllers, a.dead)
	}
	if len(a.unrelated) != 2 {
		t.Fatalf("unrelated = %+v", a.unrelated)
	}
}
