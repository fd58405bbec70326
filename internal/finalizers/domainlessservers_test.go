package finalizers

import (
	"context"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/kinds"
)

// A finalizer without a domain is weighed by the candidates' ties to the object's type, and a
// product's API server whose roles name the type is tied like its controller: it is still a
// server of requests, never the remover. Beside a controller it is listed apart; alone, no
// controller of the finalizer runs and the first step installs it. One the finalizer names
// whole, or with a right on the type's status, stays.
func TestJudgeDomainlessSetsRequestServersApart(t *testing.T) {
	stages := rbacv1.PolicyRule{APIGroups: []string{"example.dev"}, Resources: []string{"stages"}, Verbs: []string{"get", "list", "update", "patch"}}
	status := rbacv1.PolicyRule{APIGroups: []string{"example.dev"}, Resources: []string{"stages/status"}, Verbs: []string{"update"}}
	res := kinds.Resource{Group: "example.dev", Version: "v1", Resource: "stages", Kind: "Stage", Namespaced: true}
	for _, tc := range []struct {
		name      string
		finalizer string
		kube      [][]rbacv1.PolicyRule
		names     []string
		remover   string
		unrelated string
	}{
		{"the API server alone", "stage-cleanup", [][]rbacv1.PolicyRule{{stages}}, []string{"example-api"}, "", "example-api"},
		{"the API server beside the controller", "stage-cleanup", [][]rbacv1.PolicyRule{{stages}, {stages}}, []string{"example-api", "example-controller"}, "example-controller", "example-api"},
		{"the API server with a right on status", "stage-cleanup", [][]rbacv1.PolicyRule{{stages, status}}, []string{"example-api"}, "example-api", ""},
		{"a webhook server the finalizer names", "example-webhook", [][]rbacv1.PolicyRule{{stages}}, []string{"example-webhook"}, "example-webhook", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var kube []runtime.Object
			for i, n := range tc.names {
				kube = append(kube, controllerObjects("example", n, tc.kube[i])...)
			}
			x := fakeExplainer(kube, crdObject("example.dev", "stages"))
			o := subject{res: res, obj: &metav1.ObjectMeta{Name: "uat", Namespace: "demo", Finalizers: []string{tc.finalizer}}}
			a, gaps := x.attribute(context.Background(), o, nil)
			a, more := x.judgeDomain(context.Background(), o, tc.finalizer, nil, nil, a)
			if len(gaps)+len(more) > 0 {
				t.Fatalf("gaps: %v %v", gaps, more)
			}
			first := a.controllers[0]
			switch {
			case tc.remover == "" && (first.Found || !a.dead || !a.noTie || len(a.serversOnly) != 1 || !strings.Contains(first.Note, "no controller of finalizer "+tc.finalizer+" runs")):
				t.Fatalf("controllers %+v, serversOnly %v: want no controller of the finalizer", a.controllers, a.serversOnly)
			case tc.remover != "" && (!first.Found || first.Object.Name != tc.remover):
				t.Fatalf("controllers %+v: want %s first", a.controllers, tc.remover)
			}
			found := false
			for _, u := range a.unrelated {
				found = found || (u.Object.Name == tc.unrelated && strings.Contains(u.Note, "tied to the object's type") && strings.Contains(u.Note, "serves requests"))
			}
			if found != (tc.unrelated != "") {
				t.Fatalf("unrelated %+v: want %q apart as a server", a.unrelated, tc.unrelated)
			}
			if tc.remover != "" {
				return
			}
			steps := x.controllerRemedies(o, Finalizer{Name: tc.finalizer}, known{lost: "nothing"}, a, "")
			if len(steps) != 2 || steps[0].Code != ReasonReinstallController || !strings.Contains(steps[0].Summary, "controller of stages.example.dev that sets "+tc.finalizer) || steps[1].Code != ReasonStripFinalizer {
				t.Fatalf("steps %+v: want the controller installed, then the strip", steps)
			}
		})
	}
}
