package whyterminating_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/plugins/whyterminating"
)

// diagnosis is what `kubectl why-terminating ... -o json` answered about a replay.
type diagnosis struct {
	t      *testing.T
	code   int
	raw    string
	stderr string
	res    whyterminating.Result
}

// diagnose runs the plugin as kubectl would, pinned to the corpus cluster, with -o json. The
// output is logged when the test fails, or always with KF_CORPUS_SHOW set (to judge a passing
// case from the whole report, not only from its assertions).
func diagnose(t *testing.T, args ...string) *diagnosis {
	t.Helper()
	return diagnoseAfter(t, 0, args...)
}

// diagnoseAfter runs the plugin as diagnose does, as of later than now: a report whose object
// had been stuck for hours is replayed seconds after its deletion, so the plugin's clock is
// moved on by the time the report says passed (every age, window and grace period counts to it;
// nothing the replay did happened in between, which is what the report shows).
func diagnoseAfter(t *testing.T, later time.Duration, args ...string) *diagnosis {
	t.Helper()
	// In the renamed mode the case's arguments name the renamed product, and its answer is
	// renamed back before anything reads it (renamed_test.go).
	renamed := renamedMap(t)
	connect := []string{"--kubeconfig", env.Kubeconfig, "--context", env.Context}
	for _, a := range args {
		connect = append(connect, renamed.Forward(a))
	}
	args = connect
	args = append(args, "-o", "json")
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d := &diagnosis{t: t, raw: out.String()}
	o := whyterminating.NewWhyTerminatingOptions(streams)
	if later > 0 {
		o.Clock = func() time.Time { return time.Now().Add(later) }
	}
	d.code = cli.Run(ctx, whyterminating.NewCmdWhyTerminatingFromOptions(o), args, &errOut)
	d.raw, d.stderr = renamed.Reverse(out.String()), renamed.Reverse(errOut.String())
	if err := json.Unmarshal([]byte(d.raw), &d.res); err != nil {
		t.Fatalf("exit %d, output is not the JSON report: %v\nstdout:\n%s\nstderr:\n%s", d.code, err, d.raw, d.stderr)
	}
	d.noRepeatedSteps()
	t.Cleanup(func() {
		if t.Failed() || os.Getenv("KF_CORPUS_SHOW") != "" {
			t.Logf("why-terminating %s (exit %d):\n%s\nstderr:\n%s", strings.Join(args, " "), d.code, d.raw, d.stderr)
		}
	})
	return d
}

// exit checks the exit code and the verdict it stands for.
func (d *diagnosis) exit(code int, verdict string) {
	d.t.Helper()
	if d.code != code || d.res.ExitCode != code || d.res.Verdict != verdict {
		d.t.Errorf("exit %d (json exitCode %d, verdict %s), want %d %s", d.code, d.res.ExitCode, d.res.Verdict, code, verdict)
	}
}

// explanations are every explanation in the report: the objects asked about and, recursively,
// those of blockers that are Terminating themselves.
func (d *diagnosis) explanations() []*finalizers.Explanation {
	var out []*finalizers.Explanation
	var walk func(e *finalizers.Explanation)
	walk = func(e *finalizers.Explanation) {
		if e == nil || slices.Contains(out, e) {
			return
		}
		out = append(out, e)
		for _, f := range e.Finalizers {
			for _, b := range append(slices.Clone(f.Blockers), f.Waiting...) {
				walk(b.Terminating)
			}
		}
	}
	for _, e := range d.res.Objects {
		walk(e)
	}
	return out
}

// noRepeatedSteps checks that no list of steps names the same step (code and command) twice:
// an operator following them in order has done the second already (db-operator's webhook
// Deployment was named twice, https://github.com/db-operator/db-operator/issues/68).
func (d *diagnosis) noRepeatedSteps() {
	d.t.Helper()
	check := func(where string, steps []finalizers.Remediation) {
		for i, a := range steps {
			for _, b := range steps[:i] {
				if a.Command != "" && a.Code == b.Code && a.Command == b.Command {
					d.t.Errorf("%s: step %s %q given twice", where, a.Code, a.Command)
				}
			}
		}
	}
	for _, e := range d.explanations() {
		check(e.Object.String(), e.Remedies)
		for _, f := range e.Finalizers {
			check(e.Object.String()+" finalizer "+f.Name, f.Remedies)
		}
	}
}

// object is the explanation of ref (`kind.group/name -n ns`), wherever it appears in the report.
func (d *diagnosis) object(ref string) *finalizers.Explanation {
	d.t.Helper()
	for _, e := range d.explanations() {
		if e.Object.String() == ref {
			return e
		}
	}
	d.t.Fatalf("the report does not explain %s", ref)
	return nil
}

// finalizer is the explanation of finalizer name on ref.
func (d *diagnosis) finalizer(ref, name string) *finalizers.Finalizer {
	d.t.Helper()
	e := d.object(ref)
	for i := range e.Finalizers {
		if e.Finalizers[i].Name == name {
			return &e.Finalizers[i]
		}
	}
	d.t.Fatalf("the report does not explain finalizer %s of %s", name, ref)
	return nil
}

// verdict checks the finalizer's verdict code.
func (d *diagnosis) verdict(f *finalizers.Finalizer, want ...report.Reason) {
	d.t.Helper()
	if !slices.Contains(want, f.Code) {
		d.t.Errorf("finalizer %s: code %q, want one of %q", f.Name, f.Code, want)
	}
}

// remover checks that the controller named first as the finalizer's remover is ref, installed,
// and running (healthy) or not.
func (d *diagnosis) remover(f *finalizers.Finalizer, ref string, healthy bool) {
	d.t.Helper()
	if len(f.Controllers) == 0 || !f.Controllers[0].Found || f.Controllers[0].Object.String() != ref || f.Controllers[0].Healthy != healthy {
		var got []string
		for _, c := range f.Controllers {
			got = append(got, c.Object.String())
		}
		d.t.Errorf("finalizer %s: remover %q, want %s (healthy %v) first", f.Name, got, ref, healthy)
	}
}

// noRunningRemover checks that no running workload is named as the finalizer's remover: none
// of its product runs (or none may update the object).
func (d *diagnosis) noRunningRemover(f *finalizers.Finalizer) {
	d.t.Helper()
	for _, c := range f.Controllers {
		if c.Found && c.Healthy {
			d.t.Errorf("finalizer %s: %s named as its running remover, want none", f.Name, c.Object)
		}
	}
}

// notRemover checks that ref is not named among the finalizer's removers.
func (d *diagnosis) notRemover(f *finalizers.Finalizer, ref string) {
	d.t.Helper()
	for _, c := range f.Controllers {
		if c.Object.String() == ref {
			d.t.Errorf("finalizer %s: %s named as a remover, want it not to be", f.Name, ref)
		}
	}
}

// blocker checks that ref is among the finalizer's blockers (with one of codes, if given).
func (d *diagnosis) blocker(f *finalizers.Finalizer, ref string, codes ...report.Reason) {
	d.t.Helper()
	var got []string
	for _, b := range f.Blockers {
		if b.Object.String() == ref && (len(codes) == 0 || slices.Contains(codes, b.Code)) {
			return
		}
		got = append(got, b.Object.String()+" ("+string(b.Code)+")")
	}
	d.t.Errorf("finalizer %s: blockers %q, want %s %q", f.Name, got, ref, codes)
}

// firstFix checks the kind of the first step offered for the finalizer.
func (d *diagnosis) firstFix(f *finalizers.Finalizer, codes ...report.Reason) {
	d.t.Helper()
	if len(f.Remedies) == 0 || !slices.Contains(codes, f.Remedies[0].Code) {
		d.t.Errorf("finalizer %s: first step %q, want one of %q", f.Name, remedyCodes(f), codes)
	}
}

// offers checks that a step of one of codes is offered for the finalizer.
func (d *diagnosis) offers(f *finalizers.Finalizer, codes ...report.Reason) {
	d.t.Helper()
	for _, r := range f.Remedies {
		if slices.Contains(codes, r.Code) {
			return
		}
	}
	d.t.Errorf("finalizer %s: steps %q, want one of %q", f.Name, remedyCodes(f), codes)
}

// never checks that no step of codes is offered for the finalizer.
func (d *diagnosis) never(f *finalizers.Finalizer, codes ...report.Reason) {
	d.t.Helper()
	for _, r := range f.Remedies {
		if slices.Contains(codes, r.Code) {
			d.t.Errorf("finalizer %s: steps %q, want none of %q", f.Name, remedyCodes(f), codes)
			return
		}
	}
}

// notFirstFix checks that the first step offered for the finalizer is none of codes.
func (d *diagnosis) notFirstFix(f *finalizers.Finalizer, codes ...report.Reason) {
	d.t.Helper()
	if len(f.Remedies) == 0 || slices.Contains(codes, f.Remedies[0].Code) {
		d.t.Errorf("finalizer %s: first step %q, want a step and none of %q first", f.Name, remedyCodes(f), codes)
	}
}

// names checks that the finalizer's explanation names each of refs, fully qualified
// (`serviceaccounts/sa -n ns`): as a blocker, or in a step's summary or command.
func (d *diagnosis) names(f *finalizers.Finalizer, refs ...string) {
	d.t.Helper()
	for _, ref := range refs {
		found := false
		for _, b := range f.Blockers {
			if b.Object.String() == ref || strings.Contains(b.Reason, ref) {
				found = true
			}
		}
		for _, r := range f.Remedies {
			if strings.Contains(r.Summary, ref) || strings.Contains(r.Command, ref) {
				found = true
			}
		}
		if !found {
			d.t.Errorf("finalizer %s: %s named neither as a blocker nor in a step", f.Name, ref)
		}
	}
}

// mentions checks that some step of the finalizer names each of refs (in its summary or
// command): the concrete object the fix acts on.
func (d *diagnosis) mentions(f *finalizers.Finalizer, refs ...string) {
	d.t.Helper()
	for _, ref := range refs {
		found := false
		for _, r := range f.Remedies {
			if strings.Contains(r.Summary, ref) || strings.Contains(r.Command, ref) {
				found = true
			}
		}
		if !found {
			d.t.Errorf("finalizer %s: no step names %s", f.Name, ref)
		}
	}
}

// leaves checks that the cost of a step that removes the finalizer by hand names each of refs:
// what the strip leaves behind, fully qualified.
func (d *diagnosis) leaves(f *finalizers.Finalizer, refs ...string) {
	d.t.Helper()
	for _, ref := range refs {
		found := false
		for _, r := range f.Remedies {
			if (r.LastResort || r.Code == stripFinalizer) && strings.Contains(r.Cost, ref) {
				found = true
			}
		}
		if !found {
			d.t.Errorf("finalizer %s: no strip's cost names %s (steps %q)", f.Name, ref, remedyCodes(f))
		}
	}
}

// remedySummaries are the summaries of the steps offered for the finalizer, in order.
func remedySummaries(f *finalizers.Finalizer) []string {
	var out []string
	for _, r := range f.Remedies {
		out = append(out, r.Summary)
	}
	return out
}

func remedyCodes(f *finalizers.Finalizer) []string {
	var out []string
	for _, r := range f.Remedies {
		c := string(r.Code)
		if r.LastResort {
			c += " (last resort)"
		}
		out = append(out, c)
	}
	return out
}

// Reason codes the expectations use, named as docs/report.md lists them.
const (
	blockedByObjects    = finalizers.ReasonBlockedByObjects
	controllerAbsent    = finalizers.ReasonControllerAbsent
	controllerRunning   = finalizers.ReasonControllerRunning
	reconcilePaused     = finalizers.ReasonReconcilePaused
	finalizerOrphaned   = finalizers.ReasonFinalizerOrphaned
	removerStalled      = finalizers.ReasonRemoverStalled
	stripFinalizer      = finalizers.ReasonStripFinalizer
	unpause             = finalizers.ReasonUnpause
	readLogs            = finalizers.ReasonReadControllerLogs
	reinstall           = finalizers.ReasonReinstallController
	restoreController   = finalizers.ReasonRestoreController
	deleteWebhookConfig = finalizers.ReasonDeleteWebhookConfig
	deleteAPIService    = finalizers.ReasonDeleteAPIService
)
