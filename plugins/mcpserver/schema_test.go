package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Each tool's output schema, as tools/list gives it to a client, is the published schema of
// its report kind in docs/schema, key for key: const apiVersion and kind, the date-time
// timestamp, title and description included.
func TestOutputSchemasArePublished(t *testing.T) {
	cs := connect(t, config(emptyKubeconfig(t), t.TempDir()))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{
		"why_terminating":  "WhyTerminatingResult",
		"flux_chain":       "FluxChainResult",
		"flux_chain_lint":  "FluxChainRepoResult",
		"safe_retire_plan": "SafeRetireResult",
	}
	if len(res.Tools) != len(kinds) {
		t.Fatalf("%d tools, want %d", len(res.Tools), len(kinds))
	}
	for _, tool := range res.Tools {
		t.Run(tool.Name, func(t *testing.T) {
			kind, ok := kinds[tool.Name]
			if !ok {
				t.Fatalf("tool %s has no published kind", tool.Name)
			}
			raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "schema", kind+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var published, declared any
			if err := json.Unmarshal(raw, &published); err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(tool.OutputSchema)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &declared); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(published, declared); diff != "" {
				t.Errorf("%s's output schema differs from docs/schema/%s.json (-published +declared):\n%s", tool.Name, kind, diff)
			}
		})
	}
}
