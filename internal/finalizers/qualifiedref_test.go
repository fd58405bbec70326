package finalizers

import (
	"testing"

	"github.com/kubeforensics/suite/internal/kinds"
)

// A WorkPlacement's spec.targetDestinationName names a Destination of its group
// (kratix#382): the qualifier before the kind's whole name does not hide the reference. A
// field whose ending is only part of a kind's name, or lower-case run-on words, names none.
func TestQualifiedReference(t *testing.T) {
	byKind := map[string]kinds.Resource{
		"destination":              {Group: "platform.kratix.io", Resource: "destinations", Kind: "Destination"},
		"promise":                  {Group: "platform.kratix.io", Resource: "promises", Kind: "Promise", Namespaced: true},
		"kubernetesauthenginerole": {Group: "redhatcop.redhat.io", Resource: "kubernetesauthengineroles", Kind: "KubernetesAuthEngineRole", Namespaced: true},
	}
	for _, c := range []struct {
		key  string
		v    any
		want string
	}{
		{"targetDestinationName", "worker-1", "Destination/worker-1"},
		{"sourcePromiseRef", map[string]any{"name": "redis"}, "Promise/redis"},
		{"promiseName", "redis", "Promise/redis"},
		{"vaultRoleName", "reader", ""},
		{"engineRoleName", "reader", ""},
		{"targetdestinationName", "worker-1", ""},
		{"targetDestination", "worker-1", ""},
	} {
		r, ok := fieldReference(c.key, c.v, byKind, "kratix-platform-system", exactKind)
		got := ""
		if ok {
			got = r.res.Kind + "/" + r.name
		}
		if got != c.want {
			t.Errorf("fieldReference(%s) = %q, want %q", c.key, got, c.want)
		}
	}
}
