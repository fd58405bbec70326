package saferetire

import (
	"io"
	"os"

	"golang.org/x/term"
)

// isTerminal tells whether in is a terminal, where a person can answer the prompt before each
// live step. A pipe, a file or /dev/null is not: a pipeline confirms with --confirm instead.
func isTerminal(in io.Reader) bool {
	f, ok := in.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
