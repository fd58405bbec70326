package saferetire

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// NewCmdOnTerminal is NewCmdSafeRetire whose standard input counts as a terminal a person
// answers prompts on: tests feed the answers through a reader.
func NewCmdOnTerminal(streams genericiooptions.IOStreams, getenv func(string) string) *cobra.Command {
	o := NewSafeRetireOptions(streams, getenv)
	o.terminal = true
	return newCmd(o)
}
