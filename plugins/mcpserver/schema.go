package mcpserver

import (
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/kubeforensics/suite/internal/schemas"
)

// schemaOf is a tool's output schema: the published schema of the report type, made by the
// generator that writes docs/schema (internal/schemas), so the server and the published
// contract never disagree.
func schemaOf(t reflect.Type) (*jsonschema.Schema, error) { return schemas.Of(t) }
