package finalizers

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// Which spec fields name a Secret or ConfigMap the controller reads: a field named for the kind
// with a word saying what for, or one whose value names the key to read; not a bare
// `secretName` (as often what the controller writes), nothing under a pod template, nothing
// whose path says it is written.
func TestInputReferencesTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec map[string]any
		want []string // path=ref
	}{
		{"a config Secret by name", map[string]any{"githubConfigSecret": "gh"}, []string{"spec.githubConfigSecret=secrets/gh -n apps"}},
		{"a key reference", map[string]any{"auth": map[string]any{"passwordSecretKeyRef": map[string]any{"name": "pw", "key": "password"}}}, []string{"spec.auth.passwordSecretKeyRef=secrets/pw -n apps"}},
		{"a bare field naming the key to read", map[string]any{"secret": map[string]any{"name": "tok", "key": "token"}}, []string{"spec.secret=secrets/tok -n apps"}},
		{"a ConfigMap in another namespace", map[string]any{"caConfigMapRef": map[string]any{"name": "ca", "namespace": "certs"}}, []string{"spec.caConfigMapRef=configmaps/ca -n certs"}},
		{"a bare secretName", map[string]any{"secretName": "tls"}, nil},
		{"a bare secretRef", map[string]any{"secretRef": map[string]any{"name": "creds"}}, nil},
		{"a Secret the controller writes", map[string]any{"writeConnectionSecretToRef": map[string]any{"name": "conn"}, "target": map[string]any{"credentialsSecret": "out"}}, nil},
		{"a pod template's env", map[string]any{"template": map[string]any{"containers": []any{map[string]any{"env": []any{map[string]any{"valueFrom": map[string]any{"secretKeyRef": map[string]any{"name": "x", "key": "y"}}}}}}}}, nil},
		{"not a name", map[string]any{"apiSecret": "Not A Name"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, r := range inputReferences(tc.spec, "apps") {
				got = append(got, r.path+"="+r.ref().String())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("references %q, want %q", got, tc.want)
			}
		})
	}
}

// A missing config Secret the object's spec names is the blocker of a running remover's
// finalizer, and its owner being deleted is context, not the blocker: the owner's deletion is
// what cascaded to the object. A referent being deleted that the spec names (the server the
// cleanup runs in) stays the blocker; in a namespace being deleted, nothing is claimed.
func TestMissingInputOutranksAnOwnerBeingDeleted(t *testing.T) {
	testSets := kinds.Resource{Group: "policies.example.io", Version: "v1", Resource: "policysets", Kind: "PolicySet", Namespaced: true, Verbs: []string{"get", "list"}}
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	gone := metav1.NewTime(now.Add(-time.Hour))
	set := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "policies.example.io/v1", Kind: "PolicySet"},
		ObjectMeta: metav1.ObjectMeta{Name: "set-1", Namespace: "apps", UID: types.UID("uid-set"), DeletionTimestamp: &gone, Finalizers: []string{"policies.example.io/set"}}}
	present := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: metav1.ObjectMeta{Name: "present", Namespace: "apps"}}
	for _, tc := range []struct {
		name    string
		spec    map[string]any
		nsGone  bool
		want    report.Reason
		blocker string
		context bool
	}{
		{"the config Secret is missing, the owner is being deleted", map[string]any{"configSecret": "absent"}, false, ReasonMissingObject, "secrets/absent -n apps", true},
		{"the config Secret exists", map[string]any{"configSecret": "present"}, false, ReasonReferentTerminating, "policysets.policies.example.io/set-1 -n apps", false},
		{"the spec names the referent being deleted", map[string]any{"configSecret": "absent", "policySet": "set-1"}, false, ReasonReferentTerminating, "policysets.policies.example.io/set-1 -n apps", false},
		{"the namespace is being deleted", map[string]any{"configSecret": "absent"}, true, ReasonReferentTerminating, "policysets.policies.example.io/set-1 -n apps", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "apps"}}
			if tc.nsGone {
				ns.DeletionTimestamp = &gone
			}
			meta := metadatafake.NewSimpleMetadataClient(scheme, []runtime.Object{set, present}...)
			c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(ns), Metadata: meta,
				Dynamic: dynamicfake.NewSimpleDynamicClient(runtime.NewScheme())}
			x := New(c, kinds.NewCatalog([]kinds.Resource{testSets, testBackend}, nil))
			x.now = now
			obj := &metav1.ObjectMeta{Name: "runner-1", Namespace: "apps", DeletionTimestamp: &gone,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "policies.example.io/v1", Kind: "PolicySet", Name: "set-1", UID: set.UID}}}
			o := subject{res: testBackend, obj: obj}
			w := ownWord{obj: &unstructured.Unstructured{Object: map[string]any{"spec": tc.spec}}}
			strip := Remediation{Code: ReasonStripFinalizer, Summary: "strip", LastResort: true}
			e := &Explanation{Finalizers: []Finalizer{{Name: "policies.example.io/registration", bypass: &strip,
				Controllers: []Controller{{Object: ObjectRef{Group: "apps", Resource: "deployments", Namespace: "ops", Name: "policy-controller"}, Found: true, Healthy: true}},
				Remedies:    []Remediation{{Code: ReasonReadControllerLogs, Summary: "logs"}}}}}
			x.applyGoingReferents(context.Background(), o, e, w, gone.Time)
			x.applyMissingInputs(context.Background(), o, e, w)
			f := e.Finalizers[0]
			if len(f.Blockers) != 1 || f.Blockers[0].Code != tc.want || f.Blockers[0].Object.String() != tc.blocker {
				t.Fatalf("blockers %+v, want one %s naming %s", f.Blockers, tc.want, tc.blocker)
			}
			says := strings.Contains(strings.Join(f.Blockers[0].Details, "\n"), "what cascaded to this object")
			if says != tc.context {
				t.Errorf("details %q: name the owner as context %v, want %v", f.Blockers[0].Details, says, tc.context)
			}
			if tc.want == ReasonMissingObject && (f.Remedies[0].Code != ReasonRestoreMissingObject || f.Remedies[len(f.Remedies)-1].Code != ReasonReadControllerLogs) {
				t.Errorf("steps %+v, want creating the Secret first and the logs last", f.Remedies)
			}
		})
	}
}
