package mcpserver

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/plugins/fluxchain"
	"github.com/kubeforensics/suite/plugins/saferetire"
	"github.com/kubeforensics/suite/plugins/whyterminating"
)

func TestCheckListenAddress(t *testing.T) {
	for _, tc := range []struct {
		addr   string
		remote bool
		ok     bool
	}{
		{"127.0.0.1:8808", false, true},
		{"[::1]:8808", false, true},
		{"localhost:8808", false, true},
		{"127.0.0.2:0", false, true},
		{"0.0.0.0:8808", false, false},
		{":8808", false, false},
		{"10.0.0.5:8808", false, false},
		{"example.com:8808", false, false},
		{"0.0.0.0:8808", true, true},
		{"127.0.0.1", false, false},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			if err := checkListenAddress(tc.addr, tc.remote); (err == nil) != tc.ok {
				t.Errorf("checkListenAddress(%q, %v) = %v", tc.addr, tc.remote, err)
			}
		})
	}
}

// The output schemas are the plugins' Result types, explanations nested in explanations
// included; the JSON the plugins commit as goldens is valid under them.
func TestOutputSchemasAcceptGoldens(t *testing.T) {
	for _, tc := range []struct {
		typ   reflect.Type
		files []string
	}{
		{reflect.TypeFor[whyterminating.Result](), []string{"../whyterminating/testdata/seed-claim.json", "../whyterminating/testdata/argocd-controller-scaled-to-zero.json"}},
		{reflect.TypeFor[fluxchain.Result](), []string{"../fluxchain/testdata/seed.json"}},
		{reflect.TypeFor[fluxchain.RepoResult](), []string{"../fluxchain/testdata/repo-seeded.json"}},
		{reflect.TypeFor[saferetire.Result](), []string{"../saferetire/testdata/seed-offline.json", "../saferetire/testdata/platform-unsafe.json", "../saferetire/testdata/platform-retained-unknown.json"}},
	} {
		t.Run(tc.typ.String(), func(t *testing.T) {
			s, err := schemaOf(tc.typ)
			if err != nil {
				t.Fatal(err)
			}
			r, err := s.Resolve(nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range tc.files {
				raw, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				var v any
				if err := json.Unmarshal(raw, &v); err != nil {
					t.Fatal(err)
				}
				if err := r.Validate(v); err != nil {
					t.Errorf("%s: %v", f, err)
				}
			}
			// A wrong type is refused: the schema is not empty.
			if err := r.Validate(map[string]any{"verdict": 7}); err == nil {
				t.Error("the schema accepts a numeric verdict")
			}
		})
	}
}

// An answer over the limit is refused with its verdict and exit code, never cut.
func TestResultLimit(t *testing.T) {
	rep := report{value: map[string]any{"verdict": "STUCK", "objects": strings.Repeat("x", 2000)}, verdict: "STUCK", exitCode: 1,
		text: func(w io.Writer, _ output.Palette) error {
			_, err := io.WriteString(w, "verdict: STUCK (exit 1)\n")
			return err
		}}
	res, out, err := toolResult(rep, 1000)
	if err != nil || out != nil || !res.IsError {
		t.Fatalf("res %+v out %v err %v", res, out, err)
	}
	msg := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(msg, "verdict STUCK, exit 1") || !strings.Contains(msg, "over this server's limit of 1000") {
		t.Errorf("message %q", msg)
	}
	res, out, err = toolResult(rep, 10000)
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

// The allow-list: without --contexts only the current context (or --context); with it, the
// contexts whose whole name matches.
func TestContextsResolve(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := `apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: u
  user: {}
contexts:
- {name: dev, context: {cluster: c, user: u}}
- {name: prod-eu, context: {cluster: c, user: u}}
- {name: prod-us, context: {cluster: c, user: u}}
- {name: xprod-eu, context: {cluster: c, user: u}}
`
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	flags := func(context string) *genericclioptions.ConfigFlags {
		f := genericclioptions.NewConfigFlags(true)
		f.KubeConfig, f.Context = &kubeconfig, &context
		return f
	}
	for _, tc := range []struct {
		name, context, pattern, call, want string
	}{
		{"default is the current context", "", "", "", "dev"},
		{"the current context by name", "", "", "dev", "dev"},
		{"another context refused", "", "", "prod-eu", ""},
		{"--context sets the default", "prod-us", "", "", "prod-us"},
		{"--context: the current context refused", "prod-us", "", "dev", ""},
		{"pattern matches", "", "prod-.*", "prod-eu", "prod-eu"},
		{"pattern is anchored", "", "prod-.*", "xprod-eu", ""},
		{"default off the pattern refused", "", "prod-.*", "", ""},
		{"alternation is anchored as a whole", "", "dev|prod-eu", "prod-eu", "prod-eu"},
		{"a comma list, as fleet's --contexts", "", "dev,prod-eu", "prod-eu", "prod-eu"},
		{"a comma list: the first pattern", "", "dev,prod-eu", "", "dev"},
		{"an exclusion", "", "prod-.*,^prod-us", "prod-us", ""},
		{"an exclusion leaves the others", "", "prod-.*,^prod-us", "prod-eu", "prod-eu"},
		{"a comma inside braces belongs to the pattern", "", "prod-[a-z]{2,3}", "prod-eu", "prod-eu"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := newContexts(flags(tc.context), tc.pattern)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.resolve(tc.call)
			if got != tc.want || (err == nil) != (tc.want != "") {
				t.Errorf("resolve(%q) = %q, %v; want %q", tc.call, got, err, tc.want)
			}
		})
	}
	if _, err := newContexts(flags(""), "staging-.*"); err == nil || !strings.Contains(err.Error(), "matches no context") {
		t.Errorf("a pattern matching nothing: %v", err)
	}
	if _, err := newContexts(flags(""), "("); err == nil {
		t.Error("a bad pattern is accepted")
	}
	// Only exclusions: refused as fleet mode refuses it, not read as "everything but".
	if _, err := newContexts(flags(""), "^prod-us"); err == nil || !strings.Contains(err.Error(), "has no inclusion") {
		t.Errorf("only an exclusion: %v", err)
	}
	c, err := newContexts(flags(""), "prod-.*,^prod-us")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.describe(), `contexts selected by --contexts=prod-.*,^prod-us: prod-eu`; got != want {
		t.Errorf("describe() = %q, want %q", got, want)
	}
}
