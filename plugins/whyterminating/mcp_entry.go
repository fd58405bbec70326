package whyterminating

import (
	"io"

	"github.com/kubeforensics/suite/internal/output"
)

// PrintText draws res as the command's text output does, escaped the same way; callers
// that compute a Result without the command (the MCP server) print it with this.
func PrintText(w io.Writer, res *Result, p output.Palette) error { return renderText(w, res, p) }
