package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/internal/testsupport/incident/incidenttest"
	"github.com/kubeforensics/suite/internal/testsupport/testenv"
	"github.com/kubeforensics/suite/plugins/mcpserver"
)

// env is the control plane shared by the integration tests of this package, seeded once with
// the incident; nil under -short.
var (
	env  *testenv.Env
	seed *incident.Incident
	kc   *incident.Clients
)

func TestMain(m *testing.M) {
	if code, ok := helmrender.ServeWorker(os.Getenv, os.Stdin, os.Stdout); ok {
		os.Exit(code) // this test binary started again as a render worker
	}
	os.Exit(incidenttest.Run(m, func(r *incident.Replay) { env, kc, seed = r.Env, r.Clients, r.Incident }))
}

func needEnv(t *testing.T) {
	t.Helper()
	if env == nil {
		t.Skip("integration test: needs the local control plane (not under -short)")
	}
}

// config is a server configuration on the test cluster's kubeconfig (whose current context is
// env.Context) reading repositories under roots.
func config(kubeconfig string, roots ...string) mcpserver.Config {
	f := genericclioptions.NewConfigFlags(true)
	f.KubeConfig = &kubeconfig
	return mcpserver.Config{Flags: f, RepoRoots: roots, CallTimeout: 2 * time.Minute, MaxResultBytes: 4 << 20, Parallel: 2}
}

// connect starts a server built from cfg and returns a session of the SDK's own client with
// it, over the SDK's in-memory transport.
func connect(t *testing.T, cfg mcpserver.Config) *mcp.ClientSession {
	t.Helper()
	srv, err := mcpserver.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "kubeforensics-test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// call calls a tool and fails the test on a protocol error (not on a tool error).
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// structured decodes a successful call's structured content into out (a plugin's Result).
func structured(t *testing.T, res *mcp.CallToolResult, out any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("structured content: %v\n%s", err, b)
	}
}

// text joins the text contents of a result.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// refused asserts that a call was refused as an error whose text contains want.
func refused(t *testing.T, res *mcp.CallToolResult, want string) {
	t.Helper()
	if !res.IsError || res.StructuredContent != nil || !strings.Contains(text(res), want) {
		t.Fatalf("want a refusal containing %q, got error=%v structured=%v text:\n%s", want, res.IsError, res.StructuredContent != nil, text(res))
	}
}
