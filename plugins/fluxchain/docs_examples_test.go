package fluxchain

import (
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/testsupport/docexamples"
)

// Every `kubectl flux-chain` the documents show names only flags the command has, and each
// concrete example parses and passes Validate, without a cluster or a repository. fleet.md's
// examples (--contexts, --all-contexts) included.
func TestDocExamples(t *testing.T) {
	docexamples.Check(t, "../../docs", "flux-chain", func(*testing.T) (*cobra.Command, func(*cobra.Command) error) {
		o := NewFluxChainOptions(genericiooptions.NewTestIOStreamsDiscard())
		return newCmd(o), func(*cobra.Command) error { return o.Validate() }
	})
}
