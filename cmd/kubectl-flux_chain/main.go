// Command kubectl-flux_chain is the kubectl plugin `kubectl flux-chain`.
package main

import (
	"os"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/plugins/fluxchain"
)

func main() {
	// Started again by itself to render a chart apart, bounded (internal/helmrender).
	if code, ok := helmrender.ServeWorker(os.Getenv, os.Stdin, os.Stdout); ok {
		os.Exit(code)
	}
	os.Exit(cli.Main(fluxchain.NewCmdFluxChain))
}
