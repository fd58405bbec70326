package finalizers

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestGenerationEvidence(t *testing.T) {
	now := time.Date(2026, 12, 2, 5, 0, 0, 0, time.UTC)
	obj := func(gen, observed int64) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"observedGeneration": observed}}}
		u.SetGeneration(gen)
		return u
	}
	for _, tc := range []struct {
		name      string
		obj       *unstructured.Unstructured
		written   bool
		requested time.Time
		want      ProgressKind
	}{
		{"observed after a write", obj(3, 3), true, now.Add(-time.Minute), ProgressObservedGeneration},
		{"observed, no write since", obj(3, 3), false, now.Add(-time.Minute), ""},
		{"unobserved long after the request", obj(3, 2), false, now.Add(-10 * time.Minute), ProgressGenerationUnobserved},
		{"unobserved, request too recent to judge", obj(3, 2), false, now.Add(-time.Minute), ""},
		{"no observedGeneration", &unstructured.Unstructured{Object: map[string]any{}}, true, now.Add(-10 * time.Minute), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := generationEvidence(tc.obj, tc.written, tc.requested, now)
			if ok != (tc.want != "") || got.Kind != tc.want || got.Against != (tc.want == ProgressGenerationUnobserved) {
				t.Errorf("generationEvidence = %+v, %v; want %q", got, ok, tc.want)
			}
		})
	}
}
