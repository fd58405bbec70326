package envelope

import (
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubeforensics/suite/internal/output"
)

// An answer over the limit is refused with its verdict and exit code, never cut.
func TestResultLimit(t *testing.T) {
	rep := Report{Value: map[string]any{"verdict": "STUCK", "objects": strings.Repeat("x", 2000)}, Verdict: "STUCK", ExitCode: 1,
		Text: func(w io.Writer, _ output.Palette) error {
			_, err := io.WriteString(w, "verdict: STUCK (exit 1)\n")
			return err
		}}
	res, out, err := Result(rep, 1000)
	if err != nil || out != nil || !res.IsError {
		t.Fatalf("res %+v out %v err %v", res, out, err)
	}
	msg := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(msg, "verdict STUCK, exit 1") || !strings.Contains(msg, "over this server's limit of 1000") {
		t.Errorf("message %q", msg)
	}
	res, out, err = Result(rep, 10000)
	if err != nil || res.IsError || out == nil || len(res.Content) != 2 {
		t.Fatalf("under the limit: res %+v err %v", res, err)
	}
}

func TestEscapedJSONKeysAndValues(t *testing.T) {
	got, err := escapedJSON(map[string]any{"a\x1bkey": []any{"v\u202e", 3, map[string]any{"n": "line\nbreak"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a\\x1bkey":["v\\u202e",3,{"n":"line\\nbreak"}]}`
	if string(got) != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}
