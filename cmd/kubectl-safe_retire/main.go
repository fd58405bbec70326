// Command kubectl-safe_retire is the kubectl plugin `kubectl safe-retire`.
package main

import (
	"os"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	_ "k8s.io/client-go/plugin/pkg/client/auth" // exec, OIDC and cloud credential plugins

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/plugins/saferetire"
)

func main() {
	// Started again by itself to render a chart apart, bounded (internal/helmrender).
	if code, ok := helmrender.ServeWorker(os.Getenv, os.Stdin, os.Stdout); ok {
		os.Exit(code)
	}
	os.Exit(cli.Main(func(s genericiooptions.IOStreams) *cobra.Command {
		return saferetire.NewCmdSafeRetire(s, os.Getenv)
	}))
}
