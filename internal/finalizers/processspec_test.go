package finalizers

import (
	"slices"
	"testing"

	"github.com/kubeforensics/suite/internal/kinds"
)

// A field under a container the object runs names the process's own things (a kernel module to
// load, an image), not an object of the product's API; the same field outside a container is
// still a reference.
func TestSpecReferencesSkipProcessSpecs(t *testing.T) {
	module := kinds.Resource{Group: "modules.example.io", Version: "v1", Resource: "modules", Kind: "Module", Namespaced: true, Verbs: []string{"get", "list"}}
	byKind := map[string]kinds.Resource{"module": module}
	for _, tc := range []struct {
		name string
		spec map[string]any
		want []string
	}{
		{"under a container", map[string]any{"moduleLoader": map[string]any{"container": map[string]any{"modprobe": map[string]any{"moduleName": "i915"}}}}, nil},
		{"under a list of containers", map[string]any{"template": map[string]any{"containers": []any{map[string]any{"name": "c", "moduleRef": map[string]any{"name": "i915"}}}}}, nil},
		{"under init containers", map[string]any{"initContainers": []any{map[string]any{"moduleName": "i915"}}}, nil},
		{"outside any container", map[string]any{"moduleName": "base-drivers"}, []string{"spec.moduleName=modules.modules.example.io/base-drivers -n ns"}},
		{"beside a container", map[string]any{"loader": map[string]any{"moduleName": "base-drivers", "container": map[string]any{"moduleName": "i915"}}}, []string{"spec.loader.moduleName=modules.modules.example.io/base-drivers -n ns"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, r := range specReferences(tc.spec, byKind, "ns") {
				got = append(got, r.path+"="+r.ref().String())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("references %q, want %q", got, tc.want)
			}
		})
	}
	for _, k := range []string{"container", "Containers", "initContainers", "ephemeralContainers"} {
		if !describesProcess(k) {
			t.Errorf("describesProcess(%q) = false, want true", k)
		}
	}
	for _, k := range []string{"template", "spec", "containerRef", "moduleLoader"} {
		if describesProcess(k) {
			t.Errorf("describesProcess(%q) = true, want false", k)
		}
	}
}
