package finalizers

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Read the other way, the part-of rule finds the parts that refer to a stuck whole: the one
// spec field that can hold the whole's name holds the stuck object's name, in its namespace.
func TestPartOfReferrerPath(t *testing.T) {
	x := partOfFixture(t, nil, nil)
	target := refTarget{group: "db.example.io", kind: "Store", plural: "stores", namespace: "app", name: "my-db"}
	made := map[string]any{"postgresRole": "app-6xq2kd"}
	for _, tc := range []struct {
		name   string
		ns     string
		spec   map[string]any
		status map[string]any
		target refTarget
		want   string
	}{
		{"the one field holds the stuck whole's name", "app", map[string]any{"login": "app", "database": "my-db"}, made, target, "spec.database (by inference, confidence low"},
		{"in another namespace", "other", map[string]any{"login": "app", "database": "my-db"}, made, target, ""},
		{"another name", "app", map[string]any{"login": "app", "database": "their-db"}, made, target, ""},
		{"two fields could hold it", "app", map[string]any{"login": "app", "database": "my-db"}, nil, target, ""},
		{"a kind not built on the stuck one", "app", map[string]any{"login": "app", "database": "my-db"}, made, refTarget{group: "db.example.io", kind: "StoreUser", namespace: "app", name: "my-db"}, ""},
		{"another group", "app", map[string]any{"login": "app", "database": "my-db"}, made, refTarget{group: "other.example.io", kind: "Store", namespace: "app", name: "my-db"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: map[string]any{"spec": tc.spec}}
			if tc.status != nil {
				u.Object["status"] = tc.status
			}
			u.SetName("u1")
			u.SetNamespace(tc.ns)
			got := x.partOfReferrerPath(context.Background(), testStoreUsers, u, tc.target)
			if (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
				t.Errorf("path %q, want %q…", got, tc.want)
			}
		})
	}
}
