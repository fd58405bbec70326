// Command kubectl-why_terminating is the kubectl plugin `kubectl why-terminating`.
package main

import (
	"os"

	_ "k8s.io/client-go/plugin/pkg/client/auth" // exec, OIDC and cloud credential plugins

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/plugins/whyterminating"
)

func main() {
	os.Exit(cli.Main(whyterminating.NewCmdWhyTerminating))
}
