package finalizers

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/kinds"
)

// Two controllers of one family act on the same group (Tekton Pipelines and Tekton Chains on
// tekton.dev, tektoncd/chains#1755): both are tied with high confidence to chains.tekton.dev,
// and the one that names the domain's most specific label, chains, is the remover, whatever the
// names' alphabetical order.
func TestEqualConfidenceRankedBySpecificity(t *testing.T) {
	taskruns := rbacv1.PolicyRule{APIGroups: []string{"tekton.dev"}, Resources: []string{"taskruns", "taskruns/finalizers"}, Verbs: []string{"get", "list", "update", "patch"}}
	res := kinds.Resource{Group: "tekton.dev", Version: "v1", Resource: "taskruns", Kind: "TaskRun", Namespaced: true}
	o := subject{res: res, obj: &metav1.ObjectMeta{Name: "build", Namespace: "ci", Finalizers: []string{"chains.tekton.dev"}}}
	crds := []*apiextensionsv1.CustomResourceDefinition{crdObject("tekton.dev", "taskruns")}
	for _, tc := range []struct{ pipelines, chains string }{
		{"tekton-pipelines-controller", "tekton-chains-controller"},
		{"a-tekton-pipelines-controller", "z-tekton-chains-controller"},
	} {
		t.Run(tc.chains, func(t *testing.T) {
			kube := append(controllerObjects("tekton-pipelines", tc.pipelines, []rbacv1.PolicyRule{taskruns}), controllerObjects("tekton-chains", tc.chains, []rbacv1.PolicyRule{taskruns})...)
			x := fakeExplainer(append([]runtime.Object(nil), kube...), crds...)
			a, gaps := x.attribute(context.Background(), o, nil)
			a, more := x.judgeDomain(context.Background(), o, "chains.tekton.dev", nil, nil, a)
			if len(gaps)+len(more) > 0 {
				t.Fatalf("gaps: %v %v", gaps, more)
			}
			if len(a.controllers) != 2 || a.controllers[0].Object.Name != tc.chains || a.controllers[0].Confidence != a.controllers[1].Confidence {
				t.Fatalf("controllers = %+v", a.controllers)
			}
		})
	}
}
