// Package envelope is the answer of one MCP tool call: a plugin's Result as its report
// envelope (structured content, every string escaped) beside the plugin's text output, bounded
// in size; or a refusal, named by its exit code as the suite names it.
package envelope

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/output"
)

// Report is one plugin Result as a tool returns it: the envelope (marshalled as the
// structured content, whose schema is the tool's output schema), its verdict and exit code,
// and the plugin's own text printer for the same value.
type Report struct {
	Value    any
	Verdict  string
	ExitCode int
	Text     func(io.Writer, output.Palette) error
}

// Result turns a Report into the tool's answer: the text the plugin prints (escaped by
// its printer), then the envelope as JSON, with the envelope again as structured content.
// Every string of the envelope is escaped as the text printers escape a field, so control,
// bidi and zero-width characters written into the cluster or a repository never reach a
// client raw. A result larger than limit bytes is refused, naming its verdict.
func Result(rep Report, limit int) (*mcp.CallToolResult, any, error) {
	envelope, err := escapedJSON(rep.Value)
	if err != nil {
		return nil, nil, err
	}
	var text bytes.Buffer
	if err := rep.Text(&text, output.Palette{}); err != nil {
		return nil, nil, fmt.Errorf("printing the result: %w", err)
	}
	printed := output.Clean(text.String(), output.Palette{})
	if size := len(printed) + 2*len(envelope); size > limit {
		return Error(exitcode.UsageErrorf("the result (verdict %s, exit %d) is %d bytes, over this server's limit of %d (--max-result-bytes): narrow the request (one namespace, one object, one Kustomization)",
			rep.Verdict, rep.ExitCode, size, limit)), nil, nil
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: printed},
		&mcp.TextContent{Text: string(envelope)},
	}}
	return res, json.RawMessage(envelope), nil
}

// Error is a refused or failed call: the error's exit code named the way the suite
// names it, and its message escaped as the command line prints errors.
func Error(err error) *mcp.CallToolResult {
	code := exitcode.Of(err)
	what := map[exitcode.Code]string{exitcode.Usage: "bad input", exitcode.Unknown: "UNKNOWN", exitcode.Finding: "finding"}[code]
	if what == "" {
		what = code.String()
	}
	msg := fmt.Sprintf("%s (exit %d): %s", what, int(code), err.Error())
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: output.Clean(msg, output.Palette{})}}}
}

// escapedJSON marshals v and escapes every string in it, keys included, with output.Sanitize.
func escapedJSON(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding the result: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("decoding the result: %w", err)
	}
	out, err := json.Marshal(escapeStrings(tree))
	if err != nil {
		return nil, fmt.Errorf("encoding the result: %w", err)
	}
	return out, nil
}

func escapeStrings(v any) any {
	switch t := v.(type) {
	case string:
		return output.Sanitize(t)
	case []any:
		for i := range t {
			t[i] = escapeStrings(t[i])
		}
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[output.Sanitize(k)] = escapeStrings(e)
		}
		return m
	}
	return v
}
