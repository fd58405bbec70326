package finalizers

import (
	"strings"
	"testing"
)

// A gone owner is named by the spec when a field's stem ends the owner's kind and holds its
// name; a field of another stem, another name, a stem too short to say, or a name only in
// labels (not the spec) does not.
func TestOwnerSpecPath(t *testing.T) {
	owner := ObjectRef{Group: "hosting.example.io", Kind: "HostedCluster", Resource: "hostedclusters", Namespace: "clusters", Name: "demo"}
	for _, tc := range []struct {
		name string
		spec map[string]any
		want string
	}{
		{"stem ends the kind", map[string]any{"clusterName": "demo", "nodeCount": int64(2)}, "spec.clusterName"},
		{"nested reference", map[string]any{"target": map[string]any{"hostedClusterRef": "demo"}}, "spec.target.hostedClusterRef"},
		{"another name", map[string]any{"clusterName": "other"}, ""},
		{"another stem", map[string]any{"release": "demo"}, ""},
		{"stem too short", map[string]any{"hcName": "demo"}, ""},
		{"no spec field", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ownerSpecPath(tc.spec, owner); got != tc.want {
				t.Errorf("ownerSpecPath = %q, want %q", got, tc.want)
			}
		})
	}
}

// Only a gone owner the spec names is marked, and it then survives withoutPassingOwner: the
// object's own cleanup runs against it, whatever its remover may write.
func TestOwnerInSpecKeepsBlocking(t *testing.T) {
	gone := ObjectRef{Group: "hosting.example.io", Kind: "HostedCluster", Resource: "hostedclusters", Namespace: "clusters", Name: "demo"}
	found := []dangling{{ref: gone, owner: true, reason: "its owner no longer exists"}, {ref: ObjectRef{Resource: "nodes", Name: "n"}}}
	markOwnersInSpec(found, map[string]any{"clusterName": "demo"})
	if !found[0].inSpec || found[0].path != "spec.clusterName" || !strings.Contains(found[0].reason, "spec.clusterName names too") {
		t.Fatalf("owner not marked as named by the spec: %+v", found[0])
	}
	if found[1].inSpec {
		t.Errorf("a non-owner reference was marked: %+v", found[1])
	}
	if got := withoutPassingOwner(found, false); len(got) != 2 {
		t.Errorf("the owner the spec names was dropped: %+v", got)
	}
	unnamed := []dangling{{ref: gone, owner: true}}
	markOwnersInSpec(unnamed, map[string]any{"clusterName": "other"})
	if got := withoutPassingOwner(unnamed, false); len(got) != 0 {
		t.Errorf("an owner the spec does not name was kept: %+v", got)
	}
}
