package chain

import (
	"testing"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
)

// The live chain's scope, as the command line, fleet mode and the MCP tool settle it: every
// namespace with -A, else the one given explicitly, else flux-system; a name needs its
// namespace.
func TestScope(t *testing.T) {
	given := &cluster.Clients{Namespace: "apps", NamespaceExplicit: true}
	context := &cluster.Clients{Namespace: "default"}
	for _, tc := range []struct {
		name string
		c    *cluster.Clients
		all  bool
		want string
	}{
		{"-n", given, false, "apps"},
		{"the context's namespace is not asked for", context, false, DefaultNamespace},
		{"-A wins over -n", given, true, ""},
	} {
		if got := NamespaceOf(tc.c, tc.all); got != tc.want {
			t.Errorf("%s: NamespaceOf = %q, want %q", tc.name, got, tc.want)
		}
	}
	if err := CheckFocus("apps", true); exitcode.Of(err) != exitcode.Usage {
		t.Errorf("a name with -A: %v, want bad input", err)
	}
	for _, ok := range []struct {
		name string
		all  bool
	}{{"apps", false}, {"", true}, {"", false}} {
		if err := CheckFocus(ok.name, ok.all); err != nil {
			t.Errorf("CheckFocus(%q, %v) = %v", ok.name, ok.all, err)
		}
	}
}
