package saferetire

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/retire"
	"github.com/kubeforensics/suite/internal/retire/execute"
)

// liveStep is one live step of the plan: what it shows, the object it acts on, what it loses
// and how it is carried out.
type liveStep struct {
	action Action
	object retire.Ref
	lost   string
	act    func(context.Context, execute.Executor, execute.Bound) (string, error)
}

// liveSteps are the steps the plan leaves to a person, in order: for each retained object
// that still exists, stage 2, evicting each pod left over from before the drain that still
// mounts a claim, then stage 4, deleting the object.
func (req *Request) liveSteps(res *Result) []liveStep {
	planner := retire.Planner{Target: req.Target}
	var steps []liveStep
	for i := range res.Removals {
		rm := &res.Removals[i]
		if rm.Outcome != retire.Retained || rm.Live == nil || !rm.Live.Exists {
			continue
		}
		ref := rm.Object
		if ref.GroupKind() == "PersistentVolumeClaim" {
			for _, b := range rm.Live.Consumers {
				pod := b.Object.Name
				steps = append(steps, liveStep{
					action: Action{Step: fmt.Sprintf("stage 2 (drain) of %s: evict pod %s, left over from before the drain", ref, pod),
						Command: planner.EvictPodCommand(ref.Namespace, pod)},
					object: retire.Ref{Kind: "Pod", Namespace: ref.Namespace, Name: pod},
					lost:   "the pod's running process; its controller recreates it without the mount (a PodDisruptionBudget that refuses stops the run)",
					act: func(ctx context.Context, x execute.Executor, b execute.Bound) (string, error) {
						return x.EvictDrainedPod(ctx, rm, pod, b)
					},
				})
			}
		}
		steps = append(steps, liveStep{
			action: Action{Step: "stage 4 (delete by hand) of " + ref.String(), Command: planner.DeleteCommand(rm)},
			object: ref,
			lost:   rm.Live.Cost,
			act: func(ctx context.Context, x execute.Executor, b execute.Bound) (string, error) {
				return "", x.DeleteChecked(ctx, rm, b)
			},
		})
	}
	return steps
}

// Execute carries out the live steps of the plan that the change leaves to a person: stage 2,
// evicting a pod left over from before the drain, then stage 4, deleting a retained object. It
// acts only on a SAFE gate. With --confirm it first checks that the plan computed now is the
// one reviewed (its digest), else refuses and carries out nothing; without, it shows each step
// and asks on the terminal (unless --yes). Before each step execute.Executor re-checks the
// step's preconditions — the pod's controller no longer mounts the claim, its
// PodDisruptionBudget allows the eviction; the object is still the one examined, no
// Kustomization's inventory lists it, no pod mounts it. With --confirm each step is bound to the
// UID and resourceVersion the plan pinned (execute.Bound): the object must still be at them, and
// the eviction or delete carries them as preconditions, so an edit racing the request is
// refused by the API server, not acted on. An object an earlier step of the run acted on is
// exempt (a pod evicted under one claim and recreated without the mounts comes up again under
// the next): its new version is the plan's own doing, and the step is bound to the version it
// re-reads. The run stops at the first surprise or refusal; an object not at the version
// reviewed refuses the rest of the plan (exit 3) and names the plan a dry run would show now.
func Execute(ctx context.Context, request Request, res *Result) error {
	req := request.withDefaults()
	defer res.finish(req.Clock)
	steps := req.liveSteps(res)
	if err := req.confirmPlan(ctx, res, steps); err != nil {
		return err
	}
	if req.Confirm != "" {
		if refusal := req.refusal(res); refusal != "" {
			res.Actions = append(res.Actions, Action{Step: "all steps", Outcome: "refused", Detail: refusal})
			if res.Confirm != nil {
				// The new plan is for review by a dry run, not to be carried out from a refusal.
				res.Confirm.Command = ""
			}
			return nil
		}
	}
	if res.Code() != exitcode.OK {
		res.Actions = append(res.Actions, Action{Step: "all steps", Outcome: "skipped", Detail: "the gate is not SAFE: nothing is carried out until it is"})
		return nil
	}
	in := bufio.NewReader(req.In)
	x := execute.Executor{Clients: req.Clients, Planner: retire.Planner{Target: req.Target}}
	if res.Confirm != nil {
		res.Confirm.Command = "" // carried out now: the plan it names is gone
	}
	acted := map[string]bool{} // objects an earlier step changed: the plan's own doing
	for _, s := range steps {
		act := func() (string, error) {
			var bound execute.Bound
			if req.Confirm != "" && !acted[objectName(s.object)] {
				b, err := req.stillReviewed(ctx, res.Confirm.Plan.Objects, s.object)
				if err != nil {
					return "", err
				}
				bound = b
			}
			acted[objectName(s.object)] = true
			return s.act(ctx, x, bound)
		}
		if !req.step(ctx, res, in, s.action, s.lost, act) {
			return nil
		}
	}
	return nil
}

// step shows one live step and what it loses, asks for confirmation on the terminal (unless
// --yes or --confirm), carries it out with act and records the outcome on res. It reports
// whether the run may go on: a declined, stopped or refused step ends it.
func (req *Request) step(ctx context.Context, res *Result, in *bufio.Reader, a Action, lost string, act func() (string, error)) bool {
	fmt.Fprintf(req.log(), "step: %s\n  $ %s\n", output.Sanitize(a.Step), output.Sanitize(a.Command))
	if lost != "" {
		fmt.Fprintf(req.log(), "  lost: %s\n", output.Sanitize(lost))
	}
	if !req.Yes && req.Confirm == "" && !req.confirm(in) {
		a.Outcome, a.Detail = "declined", "no confirmation: stopping here"
		res.Actions = append(res.Actions, a)
		return false
	}
	detail, err := act()
	var changed *execute.ChangedError
	switch {
	case err != nil && req.Confirm != "" && errors.As(err, &changed):
		a.Outcome, a.Detail = "refused", req.changedRefusal(ctx, res, changed)
	case err != nil:
		a.Outcome, a.Detail = "stopped", err.Error()
	default:
		a.Outcome, a.Detail = "done", detail
	}
	res.Actions = append(res.Actions, a)
	return err == nil
}

func (req *Request) confirm(in *bufio.Reader) bool {
	fmt.Fprint(req.log(), "  type yes to carry out this step: ")
	line, _ := in.ReadString('\n')
	return strings.TrimSpace(line) == "yes"
}
