package finalizers

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The id another system issued, recorded as the object's own status.id, is what a strip leaves
// behind there; the same value in the spec, under a nested field, or a value that is no opaque
// id is not named.
func TestRecordedOpaqueID(t *testing.T) {
	for _, tc := range []struct {
		name string
		obj  map[string]any
		want string
	}{
		{"status.id hex", map[string]any{"status": map[string]any{"id": "620b9d3c1bc5b8429d6d2d7a"}}, "external resource 620b9d3c1bc5b8429d6d2d7a (status.id)"},
		{"status.id uuid", map[string]any{"status": map[string]any{"id": "6f2f8e3c-4b7a-4d2e-9a1f-0c8b5e7d3a21"}}, "external resource 6f2f8e3c-4b7a-4d2e-9a1f-0c8b5e7d3a21 (status.id)"},
		{"status.externalID", map[string]any{"status": map[string]any{"externalID": "9f1c2a7b3d4e5f60"}}, "external resource 9f1c2a7b3d4e5f60 (status.externalID)"},
		{"spec.id", map[string]any{"spec": map[string]any{"id": "5058f1af8388633f609cadb75a75dc9d"}}, ""},
		{"nested", map[string]any{"status": map[string]any{"project": map[string]any{"id": "620b9d3c1bc5b8429d6d2d7a"}}}, ""},
		{"short", map[string]any{"status": map[string]any{"id": "42"}}, ""},
		{"a word", map[string]any{"status": map[string]any{"id": "my-project"}}, ""},
		{"a name", map[string]any{"status": map[string]any{"name": "620b9d3c1bc5b8429d6d2d7a"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(recordedResources(&unstructured.Unstructured{Object: tc.obj}), "; ")
			if got != tc.want {
				t.Errorf("recordedResources = %q, want %q", got, tc.want)
			}
		})
	}
}
