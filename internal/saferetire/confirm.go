package saferetire

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/retire/execute"
)

// confirmPlan reads the plan's objects and sets res.Confirm: the plan, its digest and, when
// it has steps, the command that carries it out bound to the digest. It records the plan so a
// refused --confirm can name what changed. Only a SAFE live gate has a plan to confirm.
func (req *Request) confirmPlan(ctx context.Context, res *Result, steps []liveStep) error {
	if req.Clients == nil || res.Code() != exitcode.OK {
		return nil
	}
	p, err := buildPlan(ctx, req.Clients, res, steps)
	if err != nil {
		return err
	}
	b, err := p.encode()
	if err != nil {
		return err
	}
	c := &Confirmation{Digest: digestOf(b), Plan: p}
	if len(steps) > 0 {
		c.Command = req.confirmCommand(res, c.Digest)
	}
	res.Confirm = c
	if req.PlanDir != "" {
		if err := recordPlan(req.PlanDir, c.Digest, b); err != nil {
			fmt.Fprintf(req.log(), "# %s (a refused --confirm will not name what changed)\n", output.Sanitize(err.Error()))
		}
	}
	return nil
}

// refusal says why --confirm does not match the plan computed now, "" when it does.
func (req *Request) refusal(res *Result) string {
	if res.Confirm == nil {
		return fmt.Sprintf("the gate is %s now, so there is no plan to carry out; nothing was carried out", verdictOf(res))
	}
	if res.Confirm.Digest == req.Confirm {
		return ""
	}
	what := "no record of the plan reviewed is on this machine, so what changed cannot be named"
	if was, ok := reviewedPlan(req.PlanDir, req.Confirm); ok {
		what = strings.Join(planChanges(was, res.Confirm.Plan), "; ")
	}
	return fmt.Sprintf("the plan is not the one reviewed (%s): %s; nothing was carried out. The plan now has digest %s: review it with %s",
		req.Confirm, what, res.Confirm.Digest, req.dryRunCommand(res))
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

// RefusedError is the one line a refused --confirm ends with (after the result), nil otherwise.
func RefusedError(res *Result) error {
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
func (req *Request) changedRefusal(ctx context.Context, res *Result, changed *execute.ChangedError) string {
	head := fmt.Sprintf("the plan is not the one reviewed (%s): %s; nothing more was carried out", req.Confirm, changedText(changed))
	if done := doneSteps(res); done > 0 {
		head += fmt.Sprintf(" (the %d step(s) before it are done)", done)
	}
	now, err := req.replan(ctx)
	switch {
	case err != nil:
		res.Confirm = nil
		return fmt.Sprintf("%s. The plan could not be computed again (%v): review it with %s", head, err, req.dryRunCommand(res))
	case now.Confirm == nil:
		res.Confirm = nil
		return fmt.Sprintf("%s. The gate is %s now, so there is no plan to carry out: review it with %s", head, verdictOf(now), req.dryRunCommand(res))
	}
	now.Confirm.Command = ""
	res.Confirm = now.Confirm
	return fmt.Sprintf("%s. The plan now has digest %s: review it with %s", head, now.Confirm.Digest, req.dryRunCommand(res))
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
func (req *Request) replan(ctx context.Context) (*Result, error) {
	gctx, cancel, res, err := req.bounded(ctx)
	defer cancel()
	if err != nil {
		return nil, err
	}
	if err := req.confirmPlan(gctx, res, req.liveSteps(res)); err != nil {
		return nil, err
	}
	return res, nil
}
