package mcpserver_test

import (
	"testing"
)

// An argument that fails the input schema is refused as the documented bad input: an error
// result whose text starts `bad input (exit 3)` and names the argument, without a cluster or
// repository being read.
func TestSchemaFailingArguments(t *testing.T) {
	cs := connect(t, config(emptyKubeconfig(t), t.TempDir()))
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"a number for a string", "why_terminating", map[string]any{"namespace": 5}, `bad input (exit 3): argument "namespace": `},
		{"a string for a boolean", "flux_chain", map[string]any{"allNamespaces": "yes"}, `bad input (exit 3): argument "allNamespaces": `},
		{"an unknown argument", "why_terminating", map[string]any{"objekt": "pvc headlamp"}, `bad input (exit 3): argument "objekt": why_terminating takes no such argument (it takes allNamespaces, context, namespace, object)`},
		{"a required argument missing", "flux_chain_lint", map[string]any{}, `bad input (exit 3): argument "repo" is required`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			refused(t, call(t, cs, tc.tool, tc.args), tc.want)
		})
	}
}
