// Command kubeforensics-mcp serves the suite's analyses as read-only MCP tools.
package main

import (
	"os"

	_ "k8s.io/client-go/plugin/pkg/client/auth" // exec, OIDC and cloud credential plugins

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/plugins/mcpserver"
)

func main() {
	// Started again by itself to render a chart apart, bounded (internal/helmrender).
	if code, ok := helmrender.ServeWorker(os.Getenv, os.Stdin, os.Stdout); ok {
		os.Exit(code)
	}
	// The server handles SIGINT and SIGTERM itself, as its normal end (exit 0); kustomize's
	// deprecation warnings are kept off its stderr as the plugins' are (cli.Serve).
	os.Exit(cli.Serve(mcpserver.NewCmdMCPServer))
}
