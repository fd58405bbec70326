package finalizers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubeforensics/suite/internal/kinds"
)

// A definition looked up by name is read with one GET per name outside a sweep; in a sweep whose
// shared reads have started it comes from the one full list of CRDs, and only a name that list
// does not hold (or every name, when the list failed) is read alone. Either way a missing
// definition is nil without an error, and a found one is the server's object.
func TestCRDNamed(t *testing.T) {
	for _, tc := range []struct {
		name      string
		sweep     bool
		listFails bool
		wantCalls string
	}{
		{"outside a sweep, one GET per name", false, false, "get anchors.example.org,get gone.example.org"},
		{"in a sweep, the shared list", true, false, "list,get gone.example.org"},
		{"in a sweep whose list failed, one GET per name", true, true, "list,get anchors.example.org,get gone.example.org"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := fakeExplainer(nil, convertedCRD())
			ext := x.c.APIExtensions.(*apiextensionsfake.Clientset)
			if tc.listFails {
				ext.PrependReactor("list", "customresourcedefinitions", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, errors.New("refused")
				})
			}
			x.sharedRead = tc.sweep
			ctx := context.Background()
			for range 2 {
				crd, err := x.crdNamed(ctx, "anchors.example.org")
				if err != nil || crd == nil || crd.Spec.Conversion == nil {
					t.Fatalf("anchors.example.org: %v, %v", crd, err)
				}
				if gone, err := x.crdNamed(ctx, "gone.example.org"); gone != nil || err != nil {
					t.Fatalf("gone.example.org: %v, %v", gone, err)
				}
			}
			var calls []string
			for _, a := range ext.Actions() {
				call := a.GetVerb()
				if g, ok := a.(k8stesting.GetAction); ok {
					call += " " + g.GetName()
				}
				calls = append(calls, call)
			}
			if got := strings.Join(calls, ","); got != tc.wantCalls {
				t.Fatalf("calls %q, want %q", got, tc.wantCalls)
			}
		})
	}
}

// The cluster-wide objects every strip with no remover is checked against are collected once per
// command: a second strip gets the same objects (the same backing array, not a new copy of
// every APIService, webhook configuration and ClusterRoleBinding) and the same gaps.
func TestLabelledOnce(t *testing.T) {
	kube := []runtime.Object{&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "example-apiserver",
		Labels: map[string]string{"operator.example.io/createVersion": "v1"}}}}
	x := fakeExplainer(kube)
	ctx := context.Background()
	first, gaps := x.labelledOnce(ctx)
	again, gapsAgain := x.labelledOnce(ctx)
	if len(first) != 1 || first[0].ref != "clusterrolebindings.rbac.authorization.k8s.io/example-apiserver" || len(gaps) != 0 {
		t.Fatalf("labelledOnce = %+v, gaps %v", first, gaps)
	}
	if len(again) != len(first) || &again[0] != &first[0] || len(gapsAgain) != len(gaps) {
		t.Fatalf("a second call collected again: %p and %p", &first[0], &again[0])
	}
}

// In a sweep the conversion guard judges a strip as outside one, from the definition in the
// sweep's CRD list: the conversion fix first and the definition named, with no GET of it.
func TestConversionGuardInASweep(t *testing.T) {
	res := kinds.Resource{Group: "example.org", Version: "v2", Resource: "anchors", Kind: "Anchor", Namespaced: true}
	for _, sweep := range []bool{false, true} {
		t.Run(fmt.Sprintf("sweep %v", sweep), func(t *testing.T) {
			crd := convertedCRD()
			crd.Status.StoredVersions = []string{"v1", "v2"}
			x := fakeExplainer(nil, crd)
			x.sharedRead = sweep
			strip := Remediation{Code: ReasonStripFinalizer, Command: "kubectl --context=test -n team-a patch anchors.example.org a1", request: updateRequest(res, "team-a", nil)}
			steps, gaps := x.guard(context.Background(), []Remediation{strip})
			if len(gaps) > 0 || len(steps) != 2 || steps[0].Code != ReasonDisableConversion ||
				!strings.Contains(strings.Join(steps[1].RejectedBy, " "), "customresourcedefinitions.apiextensions.k8s.io/anchors.example.org") {
				t.Fatalf("steps %+v, gaps %v", steps, gaps)
			}
			gets := 0
			for _, a := range x.c.APIExtensions.(*apiextensionsfake.Clientset).Actions() {
				if a.GetVerb() == "get" {
					gets++
				}
			}
			if want := map[bool]int{false: 1, true: 0}[sweep]; gets != want {
				t.Fatalf("%d GETs of the definition, want %d", gets, want)
			}
		})
	}
}
