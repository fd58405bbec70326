// Command kubectl-safe_retire is the kubectl plugin `kubectl safe-retire`.
package main

import (
	"os"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	_ "k8s.io/client-go/plugin/pkg/client/auth" // exec, OIDC and cloud credential plugins

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/gcpace"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/plugins/saferetire"
)

func main() {
	// Started again by itself to render a chart apart, bounded (internal/helmrender).
	if code, ok := helmrender.ServeWorker(os.Getenv, os.Stdin, os.Stdout); ok {
		os.Exit(code)
	}
	// A gate's heap is mostly a few megabytes, which Go's default pace collects many times
	// over: collect at 400% while what is live stays under 16 MiB (a heap of at most about 80
	// MiB then, where the default holds 32), at the default above that (internal/gcpace).
	gcpace.Loosen(os.Getenv, 400, 16<<20)
	os.Exit(cli.Main(func(s genericiooptions.IOStreams) *cobra.Command {
		return saferetire.NewCmdSafeRetire(s, os.Getenv)
	}))
}
