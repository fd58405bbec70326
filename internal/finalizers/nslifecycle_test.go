package finalizers

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/kinds"
)

// The namespace controller's sweep is not a metadata finalizer's work once it is over (the
// namespace's spec.finalizers empty); while it runs, and on any other object, the word stays.
func TestWithoutNamespaceLifecycle(t *testing.T) {
	ns := kinds.Resource{Version: "v1", Resource: "namespaces", Kind: "Namespace"}
	cms := kinds.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}
	word := func(specFinalizers ...any) ownWord {
		return ownWord{
			obj:        &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"finalizers": specFinalizers}}},
			conditions: []Condition{{Type: "NamespaceContentRemaining", Status: "False"}, {Type: "Ready", Status: "True"}},
			writes:     map[string]time.Time{"kube-controller-manager": time.Now(), "kube-controller-manager (status)": time.Now(), "my-operator": time.Now()},
		}
	}
	got := withoutNamespaceLifecycle(subject{res: ns}, word())
	if len(got.conditions) != 1 || got.conditions[0].Type != "Ready" || len(got.writes) != 1 || got.writes["my-operator"].IsZero() {
		t.Errorf("swept namespace: conditions %+v, writes %v; want Ready and my-operator only", got.conditions, got.writes)
	}
	if got := withoutNamespaceLifecycle(subject{res: ns}, word("kubernetes")); len(got.conditions) != 2 || len(got.writes) != 3 {
		t.Errorf("a namespace still being swept keeps its word: %+v %v", got.conditions, got.writes)
	}
	if got := withoutNamespaceLifecycle(subject{res: cms}, word()); len(got.conditions) != 2 || len(got.writes) != 3 {
		t.Errorf("another object keeps its word: %+v %v", got.conditions, got.writes)
	}
}
