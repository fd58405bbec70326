package mcpserver_test

import (
	"context"
	"slices"
	"testing"
)

// Every tool is annotated read-only, non-destructive and idempotent; only the lint, which
// reads a local repository, is closed-world. Each output schema is a report envelope.
func TestToolsAreReadOnly(t *testing.T) {
	cs := connect(t, config(emptyKubeconfig(t), t.TempDir()))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		a := tool.Annotations
		if a == nil || !a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint || !a.IdempotentHint || a.OpenWorldHint == nil {
			t.Errorf("%s: annotations %+v", tool.Name, a)
			continue
		}
		if want := tool.Name != "flux_chain_lint"; *a.OpenWorldHint != want {
			t.Errorf("%s: openWorldHint %v, want %v", tool.Name, *a.OpenWorldHint, want)
		}
		schema, _ := tool.OutputSchema.(map[string]any)
		required, _ := schema["required"].([]any)
		for _, field := range []any{"apiVersion", "kind", "verdict", "exitCode"} {
			if !slices.Contains(required, field) {
				t.Errorf("%s: the output schema does not require %s: %v", tool.Name, field, required)
			}
		}
	}
	if want := []string{"flux_chain", "flux_chain_lint", "safe_retire_plan", "why_terminating"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
}
