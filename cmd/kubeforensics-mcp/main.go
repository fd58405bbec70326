// Command kubeforensics-mcp serves the suite's analyses as read-only MCP tools.
package main

import (
	"context"
	"os"

	"k8s.io/cli-runtime/pkg/genericiooptions"
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
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	// The server handles SIGINT and SIGTERM itself, as its normal end (exit 0): the run's own
	// context is never cancelled.
	os.Exit(cli.Run(context.Background(), mcpserver.NewCmdMCPServer(streams), os.Args[1:], os.Stderr))
}
