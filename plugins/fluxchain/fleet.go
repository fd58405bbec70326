package fluxchain

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/fleet"
	"github.com/kubeforensics/suite/internal/output"
)

// fleetKind is the kind of the live chain's fleet report envelope (docs/fleet.md).
const fleetKind = "FluxChainFleetReport"

// newFleet is flux-chain's fleet mode: the live chain (flux-system, -n, or -A; optionally
// focused on NAME) on every selected context. --repo lints one repository and has none.
func newFleet(o *FluxChainOptions) *fleet.Command[*Result] {
	return &fleet.Command[*Result]{
		Flags: &o.Fleet, ConfigFlags: o.ConfigFlags, PrintFlags: o.PrintFlags, Streams: o.IOStreams,
		Plugin: fleet.Plugin[*Result]{
			APIVersion: fleetAPIVersion, Kind: fleetKind,
			Verdict:  func(c exitcode.Code) string { return verdict(c, "FAILING", "HEALTHY") },
			Describe: func(r *Result) (exitcode.Code, string, string) { return r.Code(), r.Target.Server, summarize(r) },
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
			ns := defaultNamespace
			switch {
			case o.live.AllNamespaces:
				ns = ""
			case c.NamespaceExplicit:
				ns = c.Namespace
			}
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			res, err := Compute(ctx, c, ns, name, o.Clock)
			if err == nil {
				res.failOnProgressing(o.live.FailOnProgressing)
			}
			return res, err
		},
		Text: func(w io.Writer, r *Result, p output.Palette) error { return PrintText(w, r, p) },
	}
}

// summarize is one line of what fails in r's chain and what could not be read.
func summarize(r *Result) string {
	var parts []string
	var causes []string
	for _, rc := range r.RootCauses {
		what := rc.Kustomization
		if what == "" {
			what = rc.Object
		}
		causes = append(causes, fmt.Sprintf("%s %s (%d frozen)", rc.Reason, what, len(rc.BlastRadius)))
	}
	switch {
	case len(causes) > 2:
		parts = append(parts, fmt.Sprintf("%d root causes: %s, and %d more", len(causes), strings.Join(causes[:2], ", "), len(causes)-2))
	case len(causes) > 0:
		parts = append(parts, fmt.Sprintf("%d root cause(s): %s", len(causes), strings.Join(causes, ", ")))
	}
	if n := len(r.Findings); n > 0 {
		parts = append(parts, fmt.Sprintf("%d finding(s)", n))
	}
	notReady := 0
	for _, k := range r.Kustomizations {
		if k.State != "Ready" {
			notReady++
		}
	}
	if len(parts) == 0 && notReady > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d Kustomization(s) not Ready", notReady, len(r.Kustomizations)))
	}
	if len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("%d Kustomization(s), all Ready", len(r.Kustomizations)))
	}
	if n := len(r.Progressing); n > 0 {
		parts = append(parts, fmt.Sprintf("%d reconciliation(s) in progress", n))
	}
	if n := len(r.Incomplete); n > 0 {
		parts = append(parts, fmt.Sprintf("%d incomplete read(s): not a complete answer", n))
	}
	switch l := r.Liveness; {
	case l.IsStale():
		parts = append(parts, "STALE: "+staleSummary(l))
	case l != nil && !l.Verified():
		parts = append(parts, "controller liveness not verified")
	}
	return strings.Join(parts, "; ")
}
