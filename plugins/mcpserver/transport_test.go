package mcpserver_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/plugins/mcpserver"
	"github.com/kubeforensics/suite/plugins/whyterminating"
)

// syncBuffer is a buffer the server writes its log to while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serve runs the command with args in the background and returns its log and a function that
// returns its exit code, after stopping it when cancel is true (as SIGINT does) or after
// waiting for it to end by itself.
func serve(t *testing.T, in io.Reader, out io.Writer, args ...string) (*syncBuffer, func(cancel bool) int) {
	t.Helper()
	errOut := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	code := make(chan int, 1)
	streams := genericiooptions.IOStreams{In: in, Out: out, ErrOut: errOut}
	go func() { code <- cli.Run(ctx, mcpserver.NewCmdMCPServer(streams), args, errOut) }()
	var once sync.Once
	var result int
	stop := func(stop bool) int {
		once.Do(func() {
			if stop {
				cancel()
			}
			select {
			case result = <-code:
			case <-time.After(30 * time.Second):
				t.Error("the server did not stop within 30s")
				cancel()
			}
		})
		return result
	}
	t.Cleanup(func() { stop(true) })
	return errOut, stop
}

// The command on streamable HTTP: it names its address on stderr, the SDK's streamable client
// calls why_terminating through it, and the call names its connection on stderr.
func TestStreamableHTTP(t *testing.T) {
	needEnv(t)
	log, stop := serve(t, strings.NewReader(""), io.Discard, "--kubeconfig", env.Kubeconfig, "--http", "127.0.0.1:0", "--repo-root", t.TempDir())
	addr := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp)`)
	var url string
	for deadline := time.Now().Add(30 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if m := addr.FindStringSubmatch(log.String()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		t.Fatalf("no address on stderr:\n%s", log.String())
	}
	// A transport of its own: once a repository tool has run in this test process, kbuild's
	// network gate refuses requests on http.DefaultTransport that carry no User-Agent, as the
	// SDK's client sends them.
	client := &http.Client{Transport: &http.Transport{}}
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "kubeforensics-test", Version: "v0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: client}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var r whyterminating.Result
	structured(t, call(t, cs, "why_terminating", map[string]any{"object": "pvc headlamp", "namespace": incident.Namespace}), &r)
	if r.Verdict != "STUCK" || r.ExitCode != 1 || r.Objects[0].Finalizers[0].Blockers[0].Object.Name != seed.Pod {
		t.Fatalf("verdict %s exit %d objects %+v", r.Verdict, r.ExitCode, r.Objects)
	}
	if err := cs.Close(); err != nil {
		t.Error(err)
	}
	if want := "# why_terminating on context " + env.Context + " (" + env.Server + ")"; !strings.Contains(log.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, log.String())
	}
	stop(true)
}

// The command on stdio: the SDK's client over the command's own streams; closing them ends
// the server with exit 0.
func TestStdio(t *testing.T) {
	needEnv(t)
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	log, stop := serve(t, serverIn, serverOut, "--kubeconfig", env.Kubeconfig, "--repo-root", t.TempDir())
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "kubeforensics-test", Version: "v0"}, nil).Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var r whyterminating.Result
	structured(t, call(t, cs, "why_terminating", map[string]any{"namespace": incident.Namespace}), &r)
	if r.Verdict != "STUCK" || r.Scope != "namespace headlamp" {
		t.Fatalf("verdict %s scope %q", r.Verdict, r.Scope)
	}
	if err := cs.Close(); err != nil {
		t.Error(err)
	}
	if !strings.Contains(log.String(), "# serving MCP on stdio") {
		t.Errorf("stderr:\n%s", log.String())
	}
	if code := stop(false); code != 0 {
		t.Errorf("after the client closed the stream: exit %d, want 0\n%s", code, log.String())
	}
}

// A non-loopback --http address is refused unless --allow-remote-http says so.
func TestHTTPRefusesRemote(t *testing.T) {
	needEnv(t)
	var errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: &errOut}
	code := cli.Run(context.Background(), mcpserver.NewCmdMCPServer(streams), []string{"--kubeconfig", env.Kubeconfig, "--http", "0.0.0.0:0"}, &errOut)
	if code != 3 || !strings.Contains(errOut.String(), "not a loopback address") {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
}
