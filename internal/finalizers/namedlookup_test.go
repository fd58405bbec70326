package finalizers

import (
	"context"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// lookUpNamed finds the named objects that exist, in order, records a refused read as a gap
// in the caller's words, and stops at maxNameLookups reads with one gap naming the first name
// left unread.
func TestLookUpNamed(t *testing.T) {
	policies := kinds.Resource{Group: "gw.example.io", Version: "v1alpha1", Resource: "securitypolicies", Kind: "SecurityPolicy", Namespaced: true}
	secrets := kinds.Resource{Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true}
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	exists := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "gw.example.io/v1alpha1", Kind: "SecurityPolicy"}, ObjectMeta: metav1.ObjectMeta{Name: "httpbin", Namespace: "default"}}
	meta := metadatafake.NewSimpleMetadataClient(scheme, []runtime.Object{exists}...)
	meta.PrependReactor("get", "secrets", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "creds", nil)
	})
	x := New(&cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(), Metadata: meta}, kinds.NewCatalog([]kinds.Resource{policies, secrets}, nil))
	many := func(l namedLookup) string { return "objects in the object's own " + l.source }
	policy := func(name string) namedLookup {
		return namedLookup{res: policies, ns: "default", name: name, word: "SecurityPolicy", source: "status.linked_by_policies"}
	}

	t.Run("found, gone and refused", func(t *testing.T) {
		secret := namedLookup{res: secrets, ns: "default", name: "creds", word: "Secret", source: "condition Ready"}
		out, gaps := x.lookUpNamed(context.Background(), []namedLookup{policy("gone"), secret, policy("httpbin")}, many, "listed by")
		if len(out) != 1 || out[0].res.Resource != "securitypolicies" || out[0].namespace != "default" || out[0].name != "httpbin" || out[0].source != "status.linked_by_policies" {
			t.Errorf("found = %+v, want only securitypolicies httpbin -n default", out)
		}
		if len(gaps) != 1 || gaps[0].Reason != report.GapForbidden || gaps[0].Subject.Name != "creds" || gaps[0].Subject.Resource != "secrets" ||
			gaps[0].What != "resolving Secret creds listed by the object's own condition Ready" {
			t.Errorf("gaps = %+v, want the refused Secret creds", gaps)
		}
	})

	t.Run("bounded", func(t *testing.T) {
		var lookups []namedLookup
		for i := range maxNameLookups + 3 {
			lookups = append(lookups, policy(fmt.Sprintf("p%02d", i)))
		}
		lookups[maxNameLookups-1] = policy("httpbin")
		out, gaps := x.lookUpNamed(context.Background(), lookups, many, "listed by")
		if len(out) != 1 || out[0].name != "httpbin" {
			t.Errorf("found = %+v, want httpbin, the last name within the bound", out)
		}
		want := fmt.Sprintf("more objects in the object's own status.linked_by_policies than are looked up (bound of %d): SecurityPolicy p%02d and on were not resolved", maxNameLookups, maxNameLookups)
		if len(gaps) != 1 || gaps[0].Reason != report.GapTooLarge || gaps[0].What != want || gaps[0].Subject.Name != fmt.Sprintf("p%02d", maxNameLookups) {
			t.Errorf("gaps = %+v, want one bound gap: %s", gaps, want)
		}
	})
}
