package toolargs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/kubeforensics/suite/internal/exitcode"
)

// Checker checks a call's arguments against a tool's input schema, one argument at a time,
// so that a refusal names the argument that does not hold.
type Checker struct {
	tool     string
	names    []string
	props    map[string]*jsonschema.Resolved
	required []string
}

// NewChecker resolves each property of the input schema (an object of named arguments).
func NewChecker(tool string, in *jsonschema.Schema) (*Checker, error) {
	c := &Checker{tool: tool, props: map[string]*jsonschema.Resolved{}, required: in.Required}
	for name, p := range in.Properties {
		r, err := p.Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("argument %s: %w", name, err)
		}
		c.props[name] = r
		c.names = append(c.names, name)
	}
	slices.Sort(c.names)
	return c, nil
}

// Decode checks raw (the call's arguments; empty is no argument) and decodes it into v.
// Every failure is bad input naming the argument.
func (c *Checker) Decode(raw json.RawMessage, v any) error {
	args := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(raw)) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if err := json.Unmarshal(raw, &args); err != nil {
			return exitcode.UsageErrorf("arguments of %s: not a JSON object of named arguments: %v", c.tool, err)
		}
	}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		r, ok := c.props[k]
		if !ok {
			return exitcode.UsageErrorf("argument %q: %s takes no such argument (it takes %s)", k, c.tool, strings.Join(c.names, ", "))
		}
		var val any
		if err := json.Unmarshal(args[k], &val); err != nil {
			return exitcode.UsageErrorf("argument %q: %v", k, err)
		}
		if err := r.Validate(val); err != nil {
			return exitcode.UsageErrorf("argument %q: %v", k, err)
		}
	}
	for _, k := range c.required {
		if _, ok := args[k]; !ok {
			return exitcode.UsageErrorf("argument %q is required", k)
		}
	}
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return exitcode.UsageErrorf("arguments of %s: %v", c.tool, err)
	}
	return nil
}
