package saferetire

import (
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/testsupport/docexamples"
)

// Every `kubectl safe-retire` the documents show names only flags the command has, and each
// concrete example parses and passes Validate, without a cluster or a repository.
func TestDocExamples(t *testing.T) {
	docexamples.Check(t, "../../docs", "safe-retire", func(*testing.T) (*cobra.Command, func(*cobra.Command) error) {
		o := NewSafeRetireOptions(genericiooptions.NewTestIOStreamsDiscard(), func(string) string { return "" })
		return newCmd(o), func(*cobra.Command) error { return o.Validate() }
	})
}
