package saferetire

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/retire/execute"
)

// confirmPlan reads the plan's objects and sets res.Confirm: the plan, its digest and, when
// it has steps, the command that carries it out bound to the digest. It records the plan so a
// refused --confirm can name what changed. Only a SAFE live gate has a plan to confirm.
func (o *SafeRetireOptions) confirmPlan(ctx context.Context, res *Result, steps []liveStep) error {
	if o.clients == nil || res.Code() != exitcode.OK {
		return nil
	}
	p, err := buildPlan(ctx, o.clients, res, steps)
	if err != nil {
		return err
	}
	b, err := p.encode()
	if err != nil {
		return err
	}
	c := &Confirmation{Digest: digestOf(b), Plan: p}
	if len(steps) > 0 {
		c.Command = o.confirmCommand(res, c.Digest)
	}
	res.Confirm = c
	if o.planDir != "" {
		if err := recordPlan(o.planDir, c.Digest, b); err != nil {
			fmt.Fprintf(o.ErrOut, "# %s (a refused --confirm will not name what changed)\n", output.Sanitize(err.Error()))
		}
	}
	return nil
}

// refusal says why --confirm does not match the plan computed now, "" when it does.
func (o *SafeRetireOptions) refusal(res *Result) string {
	if res.Confirm == nil {
		return fmt.Sprintf("the gate is %s now, so there is no plan to carry out; nothing was carried out", verdictOf(res))
	}
	if res.Confirm.Digest == o.Confirm {
		return ""
	}
	what := "no record of the plan reviewed is on this machine, so what changed cannot be named"
	if was, ok := reviewedPlan(o.planDir, o.Confirm); ok {
		what = strings.Join(planChanges(was, res.Confirm.Plan), "; ")
	}
	return fmt.Sprintf("the plan is not the one reviewed (%s): %s; nothing was carried out. The plan now has digest %s: review it with %s",
		o.Confirm, what, res.Confirm.Digest, o.dryRunCommand(res))
}

// verdictOf is the gate's verdict before finish sets it.
func verdictOf(res *Result) string {
	switch res.Code() {
	case exitcode.Finding:
		return "UNSAFE"
	case exitcode.Unknown:
		return "UNKNOWN"
	}
	return "SAFE"
}

// validateConfirm checks how live steps are to be confirmed: by --confirm, or by a person on a
// terminal. Without either nothing could be carried out, so the run is refused before it reads
// anything.
func (o *SafeRetireOptions) validateConfirm() error {
	live := !o.DryRun && !o.Orphans
	switch {
	case o.Confirm != "" && !live:
		return exitcode.UsageErrorf("--confirm carries out a plan: it does not apply with --dry-run or --orphans")
	case o.Confirm != "" && o.Yes:
		return exitcode.UsageErrorf("--confirm already carries out the plan without asking: drop --yes")
	case o.Confirm != "" && !validDigest(o.Confirm):
		return exitcode.UsageErrorf("--confirm=%s: want the digest the dry run printed, sha256:<64 lowercase hex digits>", o.Confirm)
	case live && o.Confirm == "" && !o.terminal && o.Yes:
		return exitcode.UsageErrorf("--yes is for a terminal only: without one, run with --dry-run to review the plan, then pass the digest it prints as --confirm=sha256:<hex>; nothing was carried out")
	case live && o.Confirm == "" && !o.terminal:
		return exitcode.UsageErrorf("no terminal to confirm the steps on: run with --dry-run to review the plan, then pass the digest it prints as --confirm=sha256:<hex>; nothing was carried out")
	}
	return nil
}

// refusedError is the one line a refused --confirm ends with (after the result), nil otherwise.
func refusedError(res *Result) error {
	for _, a := range res.Actions {
		if a.Outcome == "refused" {
			return errors.New("--confirm refused: " + a.Detail)
		}
	}
	return nil
}

// changedRefusal is the refusal of a confirmed run stopped at a step whose object is not at the
// version the plan pinned: what changed, that nothing more was carried out, and the plan a dry
// run would show now, computed afresh from the cluster as it is after the steps already done.
// res.Confirm becomes that plan, without a command: it is for review, not to be carried out
// from a refusal.
func (o *SafeRetireOptions) changedRefusal(ctx context.Context, res *Result, changed *execute.ChangedError) string {
	head := fmt.Sprintf("the plan is not the one reviewed (%s): %s; nothing more was carried out", o.Confirm, changedText(changed))
	if done := doneSteps(res); done > 0 {
		head += fmt.Sprintf(" (the %d step(s) before it are done)", done)
	}
	now, err := o.replan(ctx)
	switch {
	case err != nil:
		res.Confirm = nil
		return fmt.Sprintf("%s. The plan could not be computed again (%v): review it with %s", head, err, o.dryRunCommand(res))
	case now.Confirm == nil:
		res.Confirm = nil
		return fmt.Sprintf("%s. The gate is %s now, so there is no plan to carry out: review it with %s", head, verdictOf(now), o.dryRunCommand(res))
	}
	now.Confirm.Command = ""
	res.Confirm = now.Confirm
	return fmt.Sprintf("%s. The plan now has digest %s: review it with %s", head, now.Confirm.Digest, o.dryRunCommand(res))
}

// changedText says what changed in the plan's terms (objects named as the plan names them).
func changedText(c *execute.ChangedError) string {
	name := objectName(c.Object)
	var s string
	switch {
	case c.UID == "":
		s = fmt.Sprintf("%s no longer exists (resourceVersion %s reviewed)", name, c.Was.ResourceVersion)
	case c.UID != c.Was.UID:
		s = fmt.Sprintf("%s was replaced: UID %s now, was %s", name, c.UID, c.Was.UID)
	default:
		s = fmt.Sprintf("%s changed: resourceVersion %s reviewed, now %s", name, c.Was.ResourceVersion, c.ResourceVersion)
	}
	if len(c.Differs) > 0 {
		s += " (" + strings.Join(c.Differs, ", ") + " differ)"
	}
	if c.Err != nil {
		s += "; the API server refused the request on its precondition (409 Conflict)"
	}
	return s
}

func doneSteps(res *Result) int {
	n := 0
	for _, a := range res.Actions {
		if a.Outcome == "done" {
			n++
		}
	}
	return n
}

// replan computes the gate and its plan afresh, as a dry run now would, bounded like the
// first computation; the result's Confirm is nil when the gate is not SAFE now.
func (o *SafeRetireOptions) replan(ctx context.Context) (*Result, error) {
	gctx, tracker, cancel := cli.WithTimeout(ctx, o.Timeout)
	defer cancel()
	res, err := o.compute(kbuild.WithSubstitutionBudget(kbuild.WithNetworkTimeout(gctx, o.NetworkTimeout), kbuild.DefaultSubstitutionBudget))
	if terr := cli.TimedOut(gctx, o.Timeout, tracker); terr != nil {
		return nil, terr
	}
	if err != nil {
		return nil, err
	}
	if bad := o.cache.Untrusted(); bad != nil {
		return nil, bad
	}
	if err := o.confirmPlan(gctx, res, o.liveSteps(res)); err != nil {
		return nil, err
	}
	return res, nil
}
