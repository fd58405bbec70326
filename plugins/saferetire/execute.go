package saferetire

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/retire"
)

// execute carries out the live steps of the plan that the change leaves to a person: stage 2,
// evicting a pod left over from before the drain, then stage 4, deleting a retained object. It
// acts only on a SAFE gate, shows each step, asks (unless --yes), and lets retire.Executor
// re-check the step's preconditions right before acting — the pod's controller no longer mounts
// the claim, its PodDisruptionBudget allows the eviction; the object is still the one examined,
// no Kustomization's inventory lists it, no pod mounts it — and stops at the first surprise or
// refusal.
func (o *SafeRetireOptions) execute(ctx context.Context, res *Result) {
	defer res.finish(o.Clock)
	if res.Code() != 0 {
		res.Actions = append(res.Actions, Action{Step: "all steps", Outcome: "skipped", Detail: "the gate is not SAFE: nothing is carried out until it is"})
		return
	}
	in := bufio.NewReader(o.In)
	planner := retire.Planner{Target: o.target}
	x := retire.Executor{Clients: o.clients, Planner: planner}
	for _, rm := range res.Removals {
		if rm.Outcome != retire.Retained || rm.Live == nil || !rm.Live.Exists {
			continue
		}
		ref := rm.Object
		if ref.GroupKind() == "PersistentVolumeClaim" {
			for _, b := range rm.Live.Consumers {
				pod := b.Object.Name
				a := Action{Step: fmt.Sprintf("stage 2 (drain) of %s: evict pod %s, left over from before the drain", ref, pod),
					Command: planner.EvictPodCommand(ref.Namespace, pod)}
				lost := "the pod's running process; its controller recreates it without the mount (a PodDisruptionBudget that refuses stops the run)"
				if !o.step(res, in, a, lost, func() (string, error) { return x.EvictDrainedPod(ctx, &rm, pod) }) {
					return
				}
			}
		}
		a := Action{Step: "stage 4 (delete by hand) of " + ref.String(), Command: planner.DeleteCommand(&rm)}
		if !o.step(res, in, a, rm.Live.Cost, func() (string, error) { return "", x.DeleteChecked(ctx, &rm) }) {
			return
		}
	}
}

// step shows one live step and what it loses, asks for confirmation (unless --yes), carries it
// out with act and records the outcome on res. It reports whether the run may go on: a
// declined or stopped step ends it.
func (o *SafeRetireOptions) step(res *Result, in *bufio.Reader, a Action, lost string, act func() (string, error)) bool {
	fmt.Fprintf(o.ErrOut, "step: %s\n  $ %s\n", output.Sanitize(a.Step), output.Sanitize(a.Command))
	if lost != "" {
		fmt.Fprintf(o.ErrOut, "  lost: %s\n", output.Sanitize(lost))
	}
	if !o.Yes && !confirm(o, in) {
		a.Outcome, a.Detail = "declined", "no confirmation: stopping here"
		res.Actions = append(res.Actions, a)
		return false
	}
	detail, err := act()
	if err != nil {
		a.Outcome, a.Detail = "stopped", err.Error()
		res.Actions = append(res.Actions, a)
		return false
	}
	a.Outcome, a.Detail = "done", detail
	res.Actions = append(res.Actions, a)
	return true
}

func confirm(o *SafeRetireOptions, in *bufio.Reader) bool {
	fmt.Fprint(o.ErrOut, "  type yes to carry out this step: ")
	line, _ := in.ReadString('\n')
	return strings.TrimSpace(line) == "yes"
}
