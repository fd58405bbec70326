package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubeforensics/suite/internal/exitcode"
)

// checkListenAddress refuses an address that is not host:port, and one whose host is not a
// loopback address (or localhost) unless allowRemote: an empty host listens on every interface.
func checkListenAddress(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return exitcode.UsageErrorf("--http %s: %w", addr, err)
	}
	if host == "localhost" || allowRemote {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return exitcode.UsageErrorf("--http %s: not a loopback address; the server has no authentication, so anyone who reaches it reads your clusters: use 127.0.0.1 or [::1], or add --allow-remote-http", addr)
}

// serveHTTP serves the streamable HTTP transport at /mcp until ctx ends, then shuts down.
// The SDK's DNS-rebinding protection stays on (a loopback request naming another host is
// refused), and originGuard refuses a request from a foreign Origin with 403.
func serveHTTP(ctx context.Context, srv *mcp.Server, addr string, origins []string, log io.Writer) error {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return exitcode.UsageErrorf("--http %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{SessionTimeout: 30 * time.Minute})
	mux.Handle("/mcp", originGuard(origins, http.MaxBytesHandler(h, maxRequestLine)))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10}
	fmt.Fprintf(log, "# serving MCP over streamable HTTP at http://%s/mcp\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return exitcode.WithCode(exitcode.Unknown, fmt.Errorf("serving HTTP on %s: %w", addr, err))
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil {
		// Open event streams outlive the grace period: close them.
		if cerr := hs.Close(); cerr != nil {
			return fmt.Errorf("stopping the HTTP server: %w", errors.Join(err, cerr))
		}
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving HTTP on %s: %w", addr, err)
	}
	return nil
}
