package mcpserver

import (
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	contract "github.com/kubeforensics/suite/internal/report"
)

// schemaOf is a tool's output schema: the report type's schema, inferred as docs/schema
// publishes it (report.Schema), so the server and the published contract never disagree.
func schemaOf(t reflect.Type) (*jsonschema.Schema, error) { return contract.Schema(t) }
