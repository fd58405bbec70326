package finalizers

import (
	"context"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/report"
)

// Only objects owned by nothing whose labels carry a key in the finalizer's domain are named:
// a key of another domain, a parent domain's bare key, or an owned object is not.
func TestLabelledIn(t *testing.T) {
	objs := []labelledObject{
		{ref: "apiservices.apiregistration.k8s.io/v1.upload.example.io", meta: metav1.ObjectMeta{Labels: map[string]string{"operator.example.io/createVersion": "v1"}}},
		{ref: "clusterrolebindings.rbac.authorization.k8s.io/bare", meta: metav1.ObjectMeta{Labels: map[string]string{"operator.example.io": ""}}},
		{ref: "clusterrolebindings.rbac.authorization.k8s.io/parent-only", meta: metav1.ObjectMeta{Labels: map[string]string{"example.io": ""}}},
		{ref: "clusterrolebindings.rbac.authorization.k8s.io/other", meta: metav1.ObjectMeta{Labels: map[string]string{"app.kubernetes.io/name": "operator"}}},
		{ref: "clusterrolebindings.rbac.authorization.k8s.io/owned", meta: metav1.ObjectMeta{Labels: map[string]string{"operator.example.io/createVersion": "v1"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "example.io/v1", Kind: "Install", Name: "i", UID: "u"}}}},
	}
	got := strings.Join(labelledIn(objs, "operator.example.io"), ", ")
	want := "apiservices.apiregistration.k8s.io/v1.upload.example.io, clusterrolebindings.rbac.authorization.k8s.io/bare"
	if got != want {
		t.Errorf("labelledIn = %q, want %q", got, want)
	}
}

// With no remover found, the strip's cost names what the product left cluster-wide in the
// finalizer's domain; with a remover found, or no strip offered, it stays as it was.
func TestLeftLabelled(t *testing.T) {
	labels := map[string]string{"operator.example.io/createVersion": "v1"}
	kube := []runtime.Object{
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "example-apiserver", Labels: labels}},
		&admissionv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "example-validate", Labels: labels}},
	}
	svc := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": "v1.upload.example.io", "labels": map[string]any{"operator.example.io/createVersion": "v1"}}}}
	generic := "left behind: whatever the controller would have cleaned up outside the cluster"
	for _, tc := range []struct {
		name    string
		found   bool
		code    string
		want    []string
		wantNot bool
	}{
		{"no remover", false, string(ReasonStripFinalizer), []string{"apiservices.apiregistration.k8s.io/v1.upload.example.io",
			"clusterrolebindings.rbac.authorization.k8s.io/example-apiserver", "validatingwebhookconfigurations.admissionregistration.k8s.io/example-validate"}, false},
		{"a remover runs", true, string(ReasonStripFinalizer), nil, true},
		{"no strip offered", false, string(ReasonReinstallController), nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := fakeExplainerWith(kube, nil, nil, svc)
			e := &Explanation{Finalizers: []Finalizer{{Name: "operator.example.io",
				Controllers: []Controller{{Found: tc.found}},
				Remedies:    []Remediation{{Code: report.Reason(tc.code), Cost: generic, LastResort: true}}}}}
			x.leftLabelled(context.Background(), e)
			cost := e.Finalizers[0].Remedies[0].Cost
			if tc.wantNot && cost != generic {
				t.Errorf("cost changed to %q, want it as it was", cost)
			}
			for _, w := range tc.want {
				if !strings.Contains(cost, w) {
					t.Errorf("cost %q does not name %s", cost, w)
				}
			}
		})
	}
}

// With no remover found but workloads of the domain still running (listed apart), what is
// labelled in the domain may be theirs: the strip's cost does not name it.
func TestLeftLabelledSkipsWhatARunningProductMayOwn(t *testing.T) {
	labels := map[string]string{"operator.example.io/createVersion": "v1"}
	x := fakeExplainerWith([]runtime.Object{&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "example-agent", Labels: labels}}}, nil, nil)
	generic := "left behind: whatever the controller would have cleaned up outside the cluster"
	e := &Explanation{Finalizers: []Finalizer{{Name: "operator.example.io",
		Controllers: []Controller{{Found: false}}, Unrelated: []Controller{{Found: true, Confidence: ConfidenceHigh}},
		Remedies: []Remediation{{Code: ReasonStripFinalizer, Cost: generic, LastResort: true}}}}}
	x.leftLabelled(context.Background(), e)
	if cost := e.Finalizers[0].Remedies[0].Cost; cost != generic {
		t.Errorf("cost changed to %q", cost)
	}
}

// A product's finalizer in a domain of Kubernetes itself (`kubernetes.io/pvc-to-delete`): the
// cluster's own RBAC labelled `kubernetes.io/bootstrapping` is Kubernetes', never named as what
// the product leaves behind. Modelled on CassKop's namespace deleted with its operator
// (https://github.com/Orange-OpenSource/casskop/issues/159), whose strip's cost named
// clusterrolebindings/cluster-admin.
func TestLeftLabelledNeverNamesKubernetesOwnObjects(t *testing.T) {
	own := map[string]string{"kubernetes.io/bootstrapping": "rbac-defaults"}
	x := fakeExplainerWith([]runtime.Object{&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "cluster-admin", Labels: own}}}, nil, nil)
	generic := "left behind: whatever the controller would have cleaned up outside the cluster"
	e := &Explanation{Finalizers: []Finalizer{{Name: "kubernetes.io/pvc-to-delete",
		Controllers: []Controller{{Found: false}},
		Remedies:    []Remediation{{Code: ReasonStripFinalizer, Cost: generic, LastResort: true}}}}}
	x.leftLabelled(context.Background(), e)
	if cost := e.Finalizers[0].Remedies[0].Cost; cost != generic {
		t.Errorf("cost changed to %q", cost)
	}
}
