package finalizers

import (
	"encoding/json"
	"reflect"
	"testing"
)

// A reference written as {type: <Kind>, name, namespace?} under a field whose name says nothing
// of the kind (`target`) refers to the object; a `type` of another kind, or one beside a
// `kind`, does not make it one.
func TestMatchRefsTypeNamesKind(t *testing.T) {
	role := refTarget{group: "iam.example.io", kind: "Role", plural: "roles", namespace: "default", name: "role-1"}
	for _, tc := range []struct {
		name  string
		spec  string
		refNS string
		want  []string
	}{
		{"type names the kind, namespace given", `{"policy":{"name":"p1","namespace":"default"},"target":{"type":"Role","name":"role-1","namespace":"default"}}`, "other", []string{"spec.target"}},
		{"type names the kind, case aside, no namespace, same namespace", `{"target":{"type":"role","name":"role-1"}}`, "default", []string{"spec.target"}},
		{"type names the kind, no namespace, other namespace", `{"target":{"type":"Role","name":"role-1"}}`, "other", nil},
		{"type names the kind, other namespace given", `{"target":{"type":"Role","name":"role-1","namespace":"other"}}`, "default", nil},
		{"type names another kind", `{"target":{"type":"User","name":"role-1","namespace":"default"}}`, "default", nil},
		{"type names the kind, another name", `{"target":{"type":"Role","name":"role-2","namespace":"default"}}`, "default", nil},
		{"kind of another kind beside type", `{"target":{"kind":"User","type":"Role","name":"role-1"}}`, "default", nil},
		{"list of typed targets", `{"targets":[{"type":"Group","name":"role-1"},{"type":"Role","name":"role-1"}]}`, "default", []string{"spec.targets[1]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var spec any
			if err := json.Unmarshal([]byte(tc.spec), &spec); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range matchRefs(spec, "spec", role, tc.refNS) {
				got = append(got, m.path)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("matchRefs = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestTypeNamesKind(t *testing.T) {
	for _, tc := range []struct {
		m    map[string]any
		kind string
		want bool
	}{
		{map[string]any{"type": "Role", "name": "r"}, "Role", true},
		{map[string]any{"type": "ClusterIP"}, "Service", false},
		{map[string]any{"type": "Role", "kind": "Role"}, "Role", false},
		{map[string]any{"type": 3}, "Role", false},
		{map[string]any{"type": ""}, "", false},
	} {
		if got := typeNamesKind(tc.m, tc.kind); got != tc.want {
			t.Errorf("typeNamesKind(%v, %q) = %v, want %v", tc.m, tc.kind, got, tc.want)
		}
	}
}
