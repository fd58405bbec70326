package whyterminating

import (
	"context"
	"io"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/terminating"
)

// Result is what one invocation found (terminating.Result): the command prints it, the MCP
// server returns it, and its schema is docs/schema's WhyTerminatingResult.
type Result = terminating.Result

// Request is what to explain and the handles to read it with (terminating.Request).
type Request = terminating.Request

// APIVersion is the apiVersion of the plugin's reports, published with their schemas in
// docs/schema (docs/report.md).
const APIVersion = terminating.APIVersion

// Plan explains req as the command does (terminating.Plan): the MCP server's entry.
func Plan(ctx context.Context, req Request) (*Result, error) { return terminating.Plan(ctx, req) }

// Compute is Plan with the clients given apart from the Request, for callers that build the
// Request before connecting.
func Compute(ctx context.Context, c *cluster.Clients, req Request) (*Result, error) {
	req.Clients = c
	return Plan(ctx, req)
}

// PrintText draws res as the command's text output does, escaped the same way; callers
// that compute a Result without the command (the MCP server) print it with this.
func PrintText(w io.Writer, res *Result, p output.Palette) error { return renderText(w, res, p) }
