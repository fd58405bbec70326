// Command kubectl-flux_chain is the kubectl plugin `kubectl flux-chain`.
package main

import (
	"os"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/plugins/fluxchain"
)

func main() {
	os.Exit(cli.Main(fluxchain.NewCmdFluxChain))
}
