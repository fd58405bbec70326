package fluxchain

import (
	"context"
	"io"

	"github.com/kubeforensics/suite/internal/chain"
	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/fleet"
	"github.com/kubeforensics/suite/internal/output"
)

// fleetKind is the kind of the live chain's fleet report envelope (docs/fleet.md);
// fleetAPIVersion its version, which is not under the report contract yet.
const (
	fleetKind       = "FluxChainFleetReport"
	fleetAPIVersion = "fluxchain.kubeforensics.dev/v1alpha1"
)

// newFleet is flux-chain's fleet mode: the live chain (flux-system, -n, or -A; optionally
// focused on NAME) on every selected context. --repo lints one repository and has none.
func newFleet(o *FluxChainOptions) *fleet.Command[*Result] {
	return &fleet.Command[*Result]{
		Flags: &o.Fleet, ConfigFlags: o.ConfigFlags, PrintFlags: o.PrintFlags, Streams: o.IOStreams,
		Plugin: fleet.Plugin[*Result]{
			APIVersion: fleetAPIVersion, Kind: fleetKind,
			Verdict:  func(c exitcode.Code) string { return chain.Verdict(c, "FAILING", "HEALTHY") },
			Describe: func(r *Result) (exitcode.Code, string, string) { return r.Code(), r.Target.Server, r.Sentence() },
			// STALE and PROGRESSING share exit codes with UNKNOWN and HEALTHY: the context shows
			// the chain's own verdict, not the code's name
			ResultVerdict: func(r *Result) string { return r.Verdict },
		},
		Check: func(args []string) error {
			if o.repo.Dir != "" {
				return exitcode.UsageErrorf("--repo lints one repository: fleet mode runs the live chain only")
			}
			live := o.live
			if len(args) == 1 {
				live.Name = args[0]
			}
			if err := live.validate(false); err != nil {
				return err
			}
			if err := o.comment.validate(&o.repo); err != nil {
				return err
			}
			return o.repo.validate()
		},
		One: func(ctx context.Context, c *cluster.Clients, args []string) (*Result, error) {
			ns := chain.NamespaceOf(c, o.live.AllNamespaces)
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			return chain.Plan(ctx, o.ToRequest(c, ns, name))
		},
		Text: func(w io.Writer, r *Result, p output.Palette) error { return PrintText(w, r, p) },
	}
}
