// Command schemagen writes docs/schema/: one JSON Schema per report kind, inferred from the
// plugin's Result type by internal/schemas (the generator whose schemas the MCP server declares
// as its tools' output schemas), with the kind and apiVersion pinned. `make docs` runs it;
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

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/kubeforensics/suite/hack/release/gendir"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/schemas"
)

// kinds lists every report kind under the contract (docs/report.md).
func kinds() []schemas.Kind { return schemas.Kinds() }

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
func render(ks []schemas.Kind) (map[string][]byte, error) {
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

// schemaFile is one kind's schema (schemas.Kind.Schema, which the MCP server declares too),
// written with sorted keys and indented so a change diffs line by line.
func schemaFile(k schemas.Kind) ([]byte, error) {
	s, err := k.Schema()
	if err != nil {
		return nil, err
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
