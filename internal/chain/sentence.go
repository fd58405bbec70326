package chain

import (
	"fmt"
	"strings"

	"github.com/kubeforensics/suite/internal/flux"
)

// Sentence is one line of what fails in the chain and what could not be read, as fleet mode
// shows each context's.
func (r *Result) Sentence() string {
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

// staleSummary is one line of why l is stale.
func staleSummary(l *flux.Liveness) string {
	var parts []string
	for _, c := range l.Controllers {
		if c.Found && !c.Up {
			parts = append(parts, c.Name+" down")
		}
	}
	if n := len(l.Stale); n > 0 {
		parts = append(parts, fmt.Sprintf("%d status(es) older than their interval", n))
	}
	return strings.Join(parts, ", ")
}
