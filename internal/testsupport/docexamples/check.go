package docexamples

import (
	"testing"

	"github.com/spf13/cobra"
)

// minConcrete is how many concrete examples each plugin's documents show at least: fewer
// means the extraction broke, not that the documents lost their examples.
const minConcrete = 3

// Check runs every example of plugin in dir/*.md through a fresh command from
// newCmd: a flag the command lacks fails any example; a concrete one must also parse and pass
// validate (the options' Validate, after whatever Complete it needs, given cmd's positional
// arguments). No request is made.
func Check(t *testing.T, dir, plugin string, newCmd func(t *testing.T) (*cobra.Command, func(cmd *cobra.Command) error)) {
	t.Helper()
	exs, err := Find(dir, plugin)
	if err != nil {
		t.Fatal(err)
	}
	concrete := 0
	for _, ex := range exs {
		cmd, validate := newCmd(t)
		if sub, rest, err := cmd.Find(ex.Args); err == nil && sub != cmd {
			// A subcommand's example (`safe-retire charts pull …`): its own flags and arguments;
			// its Validate is its own, not reachable from newCmd's options, so only parsing is checked.
			cmd, ex.Args, validate = sub, rest, func(*cobra.Command) error { return nil }
		}
		if unknown := UnknownFlags(cmd, ex); len(unknown) > 0 {
			t.Errorf("%s: %s: the command has no %v", ex.Where(), ex.Text, unknown)
			continue
		}
		if !ex.Concrete {
			continue
		}
		concrete++
		if err := Parse(cmd, ex); err != nil {
			t.Errorf("%s: %s: %v", ex.Where(), ex.Text, err)
			continue
		}
		if err := validate(cmd); err != nil {
			t.Errorf("%s: %s: %v", ex.Where(), ex.Text, err)
		}
	}
	if concrete < minConcrete {
		t.Fatalf("found %d concrete examples of %s in docs/ (of %d), want at least %d: is the extraction broken?", concrete, plugin, len(exs), minConcrete)
	}
}
