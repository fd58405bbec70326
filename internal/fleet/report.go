package fleet

import (
	"cmp"
	"context"
	"errors"
	"net"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubeforensics/suite/internal/exitcode"
)

// Report is the envelope of a fleet run: one entry per selected context, in name order, and
// the worst verdict of all. json and yaml marshal it as is.
type Report[R any] struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Selector is the selection as given: `--contexts=prod-.*,^prod-legacy` or `--all-contexts`.
	Selector string     `json:"selector"`
	Contexts []Entry[R] `json:"contexts"`
	// Summary counts the contexts per verdict.
	Summary Summary `json:"summary"`
	// Verdict is the worst context's verdict; ExitCode the process exit code (0 < 1 < 2).
	Verdict  string `json:"verdict"`
	ExitCode int    `json:"exitCode"`
}

// Summary counts the contexts of a report.
type Summary struct {
	Contexts int            `json:"contexts"`
	Verdicts map[string]int `json:"verdicts"`
}

// Entry is one context's outcome: its connection, verdict and the plugin's own Result, or the
// Failure that left it UNKNOWN.
type Entry[R any] struct {
	Context string `json:"context"`
	// Server is the API server URL the context names (user information removed).
	Server   string `json:"server"`
	Verdict  string `json:"verdict"`
	ExitCode int    `json:"exitCode"`
	// Summary is one line of what is stuck or failing, or why nothing could be said.
	Summary string `json:"summary"`
	// Failure is set when the context gave no result: unreachable, forbidden, timed out, or
	// its input refused (the run's verdict for it is UNKNOWN).
	Failure *Failure `json:"failure,omitempty"`
	Result  R        `json:"result,omitempty"`
}

// Failure says why a context gave no result. Reason is one of unreachable, forbidden,
// unauthorized, timed-out, stopped, refused (the context's kubeconfig entry or the plugin's
// input did not hold there, such as a missing namespace or Flux not installed) or read-failed.
type Failure struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Plugin is what the envelope needs to know of a plugin's Result.
type Plugin[R any] struct {
	APIVersion, Kind string
	// Verdict names an exit code in the plugin's words (CLEAR, STUCK, UNKNOWN).
	Verdict func(exitcode.Code) string
	// Describe gives a result's exit code, server URL and one-line summary.
	Describe func(R) (code exitcode.Code, server, summary string)
	// ResultVerdict, when set, is the verdict a result gives itself, which may say more than its
	// exit code does (flux-chain's STALE and PROGRESSING share codes with UNKNOWN and HEALTHY);
	// a context that gave a result shows it in place of Verdict(code).
	ResultVerdict func(R) string
}

// NewReport gathers the outcomes into the envelope. A context whose run returned an error is
// UNKNOWN with the error's Failure, whatever code the error carried: from the fleet's side
// that context was not evaluated, and exit 3 stays for the run's own bad input.
func NewReport[R any](p Plugin[R], sel *Selector, outcomes []Outcome[R]) *Report[R] {
	rep := &Report[R]{APIVersion: p.APIVersion, Kind: p.Kind, Selector: sel.Text,
		Summary: Summary{Contexts: len(outcomes), Verdicts: map[string]int{}}}
	worst := exitcode.OK
	verdictOf := map[exitcode.Code]map[string]bool{} // the entries' verdicts at each code
	for _, o := range outcomes {
		e := Entry[R]{Context: o.Context.Name, Server: o.Context.Server}
		code := exitcode.Unknown
		if o.Err != nil {
			f := Classify(o.Err)
			e.Failure, e.Summary = &f, f.Reason+": "+innermost(o.Err).Error()
		} else {
			var server string
			code, server, e.Summary = p.Describe(o.Result)
			e.Result = o.Result
			if server != "" {
				e.Server = server
			}
		}
		e.ExitCode, e.Verdict = int(code), p.Verdict(code)
		if o.Err == nil && p.ResultVerdict != nil {
			e.Verdict = cmp.Or(p.ResultVerdict(o.Result), e.Verdict)
		}
		if verdictOf[code] == nil {
			verdictOf[code] = map[string]bool{}
		}
		verdictOf[code][e.Verdict] = true
		worst = max(worst, code)
		rep.Summary.Verdicts[e.Verdict]++
		rep.Contexts = append(rep.Contexts, e)
	}
	rep.ExitCode, rep.Verdict = int(worst), p.Verdict(worst)
	if len(verdictOf[worst]) == 1 {
		// every context at the worst code says the same: the run says it too (STALE, not
		// UNKNOWN, when the worst is a stale chain); contexts that differ keep the code's name
		for v := range verdictOf[worst] {
			rep.Verdict = v
		}
	}
	return rep
}

// Code is the report's exit code.
func (r *Report[R]) Code() exitcode.Code { return exitcode.Code(r.ExitCode) }

// innermost is the most specific error in err's chain, for the one-line summary: the dial
// error (`dial tcp 10.0.0.1:6443: connect: connection refused`), else the API status, else the
// bottom of the chain. The Failure keeps the whole message.
func innermost(err error) error {
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return opErr
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		if e, ok := status.(error); ok {
			return e
		}
	}
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// Classify names why a context's run failed, from the error's chain.
func Classify(err error) Failure {
	msg := err.Error()
	var (
		timeout *TimeoutError
		netErr  net.Error
		opErr   *net.OpError
	)
	reason := "read-failed"
	switch {
	case errors.As(err, &timeout):
		reason = "timed-out"
	case errors.Is(err, context.Canceled):
		reason = "stopped"
	case apierrors.IsForbidden(err):
		reason = "forbidden"
	case apierrors.IsUnauthorized(err):
		reason = "unauthorized"
	case errors.Is(err, context.DeadlineExceeded), apierrors.IsTimeout(err), apierrors.IsServerTimeout(err),
		errors.As(err, &netErr) && netErr.Timeout():
		reason = "timed-out"
	case errors.As(err, &opErr), strings.Contains(msg, "connection refused"), strings.Contains(msg, "no such host"):
		reason = "unreachable"
	case exitcode.Of(err) == exitcode.Usage:
		reason = "refused"
	}
	return Failure{Reason: reason, Message: msg}
}
