package terminating

import (
	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// NewRequest is the Request for the object words args, as kubectl names an object (TYPE NAME,
// TYPE/NAME, a Flux inventory id, or a TYPE alone for every Terminating object of that type;
// none sweeps the namespace, or the cluster with allNamespaces), read with c in c's namespace.
// It is the one check of that input, which the command line and the MCP tool both make: words
// that name no object, and a combination that cannot be honoured, are bad input (exit 3). It
// makes no request.
func NewRequest(args []string, allNamespaces bool, c *cluster.Clients, clock report.Clock) (Request, error) {
	req := Request{AllNamespaces: allNamespaces, Namespace: c.Namespace, Sweep: len(args) == 0, Clients: c, Clock: clock}
	if len(args) > 0 {
		arg, err := kinds.ParseObjectArgs(args)
		if err != nil {
			return Request{}, err
		}
		req.Arg = arg
	}
	if allNamespaces && req.Arg.Name != "" {
		return Request{}, exitcode.UsageErrorf("-A explains every Terminating object; give no object name with it")
	}
	if req.Arg.FromInventory && c.NamespaceExplicit && req.Arg.Namespace != "" && c.Namespace != req.Arg.Namespace {
		return Request{}, exitcode.UsageErrorf("inventory id names namespace %q but -n is %q", req.Arg.Namespace, c.Namespace)
	}
	return req, nil
}
