// Command schemagen writes docs/schema/: one JSON Schema per report kind, inferred from the
// plugin's Result type by report.Schema (the same inference the MCP server declares as its
// tools' output schemas), with the kind and apiVersion pinned. `make docs` runs it;
// TestSchemasUpToDate fails when the committed files differ from what the types generate, so a
// field added to a Result lands in the schema by re-running it, and TestGoldensMatchSchemas
// validates every JSON golden of the plugins against its kind's schema.
//
//	go run ./hack/release/schemagen [-dir docs/schema]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/kubeforensics/suite/hack/release/gendir"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/plugins/fluxchain"
	"github.com/kubeforensics/suite/plugins/saferetire"
	"github.com/kubeforensics/suite/plugins/whyterminating"
)

// kind is one report kind and the Go type that marshals to it.
type kind struct {
	Name       string
	APIVersion string
	Type       reflect.Type
	// Title is the schema's one-line description.
	Title string
}

// kinds lists every report kind under the contract (docs/report.md).
func kinds() []kind {
	return []kind{
		{"WhyTerminatingResult", whyterminating.APIVersion, reflect.TypeFor[whyterminating.Result](),
			"kubectl why-terminating -o json: what holds each Terminating object and how to release it"},
		{"FluxChainResult", fluxchain.APIVersion, reflect.TypeFor[fluxchain.Result](),
			"kubectl flux-chain -o json: the live Kustomization chain, its root causes and what waits on them"},
		{"FluxChainRepoResult", fluxchain.RepoAPIVersion, reflect.TypeFor[fluxchain.RepoResult](),
			"kubectl flux-chain --repo -o json: the chain a repository declares and its lint findings"},
		{"SafeRetireResult", saferetire.APIVersion, reflect.TypeFor[saferetire.Result](),
			"kubectl safe-retire -o json: what a change would prune, whether it is safe, and the staged plan"},
	}
}

func main() {
	dir := flag.String("dir", filepath.Join("docs", "schema"), "directory to write the schemas into")
	flag.Parse()
	files, err := render(kinds())
	if err == nil {
		err = gendir.Write(*dir, ".json", files)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
}

// render returns the schema files by name, <Kind>.json.
func render(ks []kind) (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, k := range ks {
		b, err := schemaFile(k)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k.Name, err)
		}
		files[k.Name+".json"] = b
	}
	return files, nil
}

// schemaFile is one kind's schema, draft 2020-12, with apiVersion and kind pinned to their
// values, written with sorted keys and indented so a change diffs line by line.
func schemaFile(k kind) ([]byte, error) {
	s, err := report.Schema(k.Type)
	if err != nil {
		return nil, err
	}
	s.Schema = "https://json-schema.org/draft/2020-12/schema"
	s.Title = k.Name
	s.Description = k.Title + ". Generated from the Go types by hack/release/schemagen; see docs/report.md."
	for prop, v := range map[string]string{"apiVersion": k.APIVersion, "kind": k.Name} {
		p := s.Properties[prop]
		if p == nil {
			return nil, fmt.Errorf("the type has no %s field", prop)
		}
		var c any = v
		p.Const = &c
	}
	if ts := s.Properties["timestamp"]; ts != nil {
		ts.Format = "date-time"
	}
	return encode(s)
}

func encode(s *jsonschema.Schema) ([]byte, error) {
	sorted, err := output.SortedJSON(s)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, sorted, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}
