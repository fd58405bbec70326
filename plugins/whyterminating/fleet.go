package whyterminating

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/fleet"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/terminating"
)

// fleetKind is the kind of the fleet report envelope (docs/fleet.md); fleetAPIVersion its
// version, which is not under the report contract yet.
const (
	fleetKind       = "WhyTerminatingFleetReport"
	fleetAPIVersion = "whyterminating.kubeforensics.dev/v1alpha1"
)

// newFleet is why-terminating's fleet mode: the sweep of a namespace (-n, else each context's
// own namespace) or of the whole cluster (-A) on every selected context.
func newFleet(o *WhyTerminatingOptions) *fleet.Command[*Result] {
	return &fleet.Command[*Result]{
		Flags: &o.Fleet, ConfigFlags: o.ConfigFlags, PrintFlags: o.PrintFlags, Streams: o.IOStreams,
		Plugin: fleet.Plugin[*Result]{
			APIVersion: fleetAPIVersion, Kind: fleetKind,
			Verdict:  verdictOf,
			Describe: func(r *Result) (exitcode.Code, string, string) { return r.Code(), r.Target.Server, summarize(r) },
		},
		Check: func(args []string) error {
			if len(args) > 0 {
				return exitcode.UsageErrorf("fleet mode sweeps a namespace (-n) or the cluster (-A) on every context: give no TYPE or NAME")
			}
			return nil
		},
		One: func(ctx context.Context, c *cluster.Clients, _ []string) (*Result, error) {
			req, err := terminating.NewRequest(nil, o.AllNamespaces, c, o.Clock)
			if err != nil {
				return nil, err
			}
			return terminating.Plan(ctx, req)
		},
		Text: func(w io.Writer, r *Result, p output.Palette) error { return PrintText(w, r, p) },
	}
}

// verdictOf names an exit code as the Result's verdict does.
func verdictOf(c exitcode.Code) string {
	switch c {
	case exitcode.OK:
		return "CLEAR"
	case exitcode.Finding:
		return "STUCK"
	}
	return "UNKNOWN"
}

// summarize is one line of what is Terminating in r and what could not be read.
func summarize(r *Result) string {
	var stuck []string
	for _, e := range r.Objects {
		if e.Terminating {
			stuck = append(stuck, e.Object.String())
		}
	}
	var parts []string
	switch {
	case len(stuck) > 3:
		parts = append(parts, fmt.Sprintf("%d Terminating: %s, and %d more", len(stuck), strings.Join(stuck[:3], ", "), len(stuck)-3))
	case len(stuck) > 0:
		parts = append(parts, fmt.Sprintf("%d Terminating: %s", len(stuck), strings.Join(stuck, ", ")))
	default:
		parts = append(parts, "nothing Terminating in "+r.Scope)
	}
	if r.ReadsFailed() {
		gaps := len(r.Incomplete)
		for _, e := range r.Objects {
			if e.Incomplete() {
				gaps++
			}
		}
		parts = append(parts, fmt.Sprintf("%d incomplete read(s): not a complete answer", gaps))
	}
	return strings.Join(parts, "; ")
}
