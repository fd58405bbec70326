// Command kubectl_complete-why_terminating completes `kubectl why-terminating` arguments for kubectl 1.26 and
// later, which runs it from PATH; it forwards to the plugin's own __complete command.
package main

import (
	"os"

	"github.com/kubeforensics/suite/internal/completion/forward"
)

func main() {
	os.Exit(forward.Main("kubectl-why_terminating"))
}
