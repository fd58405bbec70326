// Command kubectl_complete-safe_retire completes `kubectl safe-retire` arguments for kubectl 1.26 and
// later, which runs it from PATH; it forwards to the plugin's own __complete command.
package main

import (
	"os"

	"github.com/kubeforensics/suite/internal/completion/forward"
)

func main() {
	os.Exit(forward.Main("kubectl-safe_retire"))
}
