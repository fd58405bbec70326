package finalizers

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/kinds"
)

// A stalled remover that added its finalizer (managedFields) to a custom resource whose status
// nobody ever wrote, and which records nothing made outside, gets the strip first, its cost
// saying nothing recorded is left and naming spec.name to look for; any status, condition, status
// write or recorded id, another adder, a blocker already found, or a core object changes nothing.
func TestApplyNeverRecorded(t *testing.T) {
	remover := ObjectRef{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: "default", Name: "db-operator"}
	author := metav1.ManagedFieldsEntry{Manager: "kubectl-client-side-apply", Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:name":{}}}`)}}
	adder := metav1.ManagedFieldsEntry{Manager: "db-operator", Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:finalizers":{".":{},"v:\"finalizer.database.example.io\"":{}}}}`)}}
	statusWrite := metav1.ManagedFieldsEntry{Manager: "db-operator", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status", FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:id":{}}}`)}}
	obj := func(status map[string]any, mf ...metav1.ManagedFieldsEntry) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"name": "orders", "region": "sfo2"}}}
		if status != nil {
			u.Object["status"] = status
		}
		u.SetManagedFields(mf)
		return u
	}
	for _, tc := range []struct {
		name       string
		res        kinds.Resource
		w          ownWord
		evidence   string
		blocked    bool
		wantStrip1 bool
	}{
		{"never written, the remover added it", testPolicy, ownWord{obj: obj(nil, author, adder)}, "it added the finalizer: managedFields", false, true},
		{"an empty status is never written too", testPolicy, ownWord{obj: obj(map[string]any{}, author, adder)}, "it added the finalizer: managedFields", false, true},
		{"a status with an id", testPolicy, ownWord{obj: obj(map[string]any{"id": "7c1e"}, author, adder)}, "it added the finalizer: managedFields", false, false},
		{"a status write without a status now", testPolicy, ownWord{obj: obj(nil, author, adder, statusWrite)}, "it added the finalizer: managedFields", false, false},
		{"a condition", testPolicy, ownWord{obj: obj(nil, author, adder), conditions: []Condition{{Type: "Ready", Status: "False"}}}, "it added the finalizer: managedFields", false, false},
		{"the remover did not add it", testPolicy, ownWord{obj: obj(nil, author, adder)}, "runs as serviceaccounts/x", false, false},
		{"a blocker already holds it", testPolicy, ownWord{obj: obj(nil, author, adder)}, "it added the finalizer: managedFields", true, false},
		{"no managedFields read", testPolicy, ownWord{obj: obj(nil)}, "it added the finalizer: managedFields", false, false},
		{"a core object", kinds.Resource{Version: "v1", Resource: "secrets", Kind: "Secret"}, ownWord{obj: obj(nil, author, adder)}, "it added the finalizer: managedFields", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			strip := Remediation{Code: ReasonStripFinalizer, Summary: "strip", Cost: "left behind: whatever the controller would have cleaned up outside the cluster", LastResort: true}
			f := Finalizer{Name: "finalizer.database.example.io", bypass: &strip,
				Controllers: []Controller{{Object: remover, Found: true, Healthy: true, Evidence: []string{tc.evidence}}},
				Stalled:     &Stall{Remover: remover, Evidence: []string{"no work on the object"}},
				Remedies:    []Remediation{{Code: ReasonReadControllerLogs, Summary: "read its logs"}, strip}}
			if tc.blocked {
				f.Blockers = []Blocker{{Code: ReasonMissingObject}}
			}
			e := &Explanation{Finalizers: []Finalizer{f}}
			applyNeverRecorded(subject{res: tc.res, obj: &metav1.ObjectMeta{Name: "orders"}}, e, tc.w)
			got := e.Finalizers[0]
			first := got.Remedies[0]
			if !tc.wantStrip1 {
				if first.Code != ReasonReadControllerLogs || len(got.Remedies) != 2 {
					t.Fatalf("steps %q changed, want them as they were", remedySummariesOf(got))
				}
				return
			}
			if first.Code != ReasonStripFinalizer || first.LastResort || !strings.Contains(first.Summary, "never wrote the object's status") ||
				!strings.Contains(first.Cost, "nothing the object records") || !strings.Contains(first.Cost, `"orders"`) {
				t.Fatalf("first step %+v, want the strip, no last resort, saying the status was never written and what is left", first)
			}
			if len(got.Remedies) != 2 || got.Remedies[1].Code != ReasonReadControllerLogs {
				t.Fatalf("steps %q, want the strip then the logs, the old strip gone", remedySummariesOf(got))
			}
			if !strings.HasPrefix(got.Stalled.Evidence[0], "its status was never written") {
				t.Errorf("stall evidence %q, want the never-written status first", got.Stalled.Evidence)
			}
		})
	}
}
