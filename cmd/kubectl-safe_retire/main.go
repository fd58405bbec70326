// Command kubectl-safe_retire is the kubectl plugin `kubectl safe-retire`.
package main

import (
	"os"

	"github.com/spf13/cobra"
	_ "k8s.io/client-go/plugin/pkg/client/auth" // exec, OIDC and cloud credential plugins
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/plugins/saferetire"
)

func main() {
	os.Exit(cli.Main(func(s genericiooptions.IOStreams) *cobra.Command {
		return saferetire.NewCmdSafeRetire(s, os.Getenv)
	}))
}
