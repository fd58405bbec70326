package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/sarif"
)

func TestSelector(t *testing.T) {
	names := []string{"dev", "prod-eu", "prod-legacy", "prod-us", "prod-usa", "staging-eu"}
	for _, tc := range []struct {
		spec string
		want string
	}{
		{"prod-.*", "prod-eu prod-legacy prod-us prod-usa"},
		{"prod-.*,^prod-legacy", "prod-eu prod-us prod-usa"},
		{"prod-us", "prod-us"}, // anchored: prod-usa is not prod-us
		{".*,^prod-.*,^dev", "staging-eu"},
		{"dev, staging-eu", "dev staging-eu"},
		{"prod-[a-z]{2,3}", "prod-eu prod-us prod-usa"}, // the comma inside {} is the regexp's
		{`(dev|prod-eu)`, "dev prod-eu"},
		{`prod-e\,u,dev`, "dev"}, // an escaped comma is part of the pattern
	} {
		t.Run(tc.spec, func(t *testing.T) {
			sel, err := ParseSelector(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, n := range names {
				if sel.Match(n) {
					got = append(got, n)
				}
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("selects %q, want %q", strings.Join(got, " "), tc.want)
			}
		})
	}
}

func TestSelectorRefuses(t *testing.T) {
	for _, spec := range []string{"^prod-legacy", "prod-(", "prod,,dev", "^", ""} {
		t.Run(spec, func(t *testing.T) {
			if _, err := ParseSelector(spec); exitcode.Of(err) != exitcode.Usage {
				t.Errorf("ParseSelector(%q) = %v, want a usage error", spec, err)
			}
		})
	}
}

func TestSelect(t *testing.T) {
	all := []Context{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	sel, _ := ParseSelector("a,x.*,c")
	got, notes, err := Select(all, sel)
	if err != nil || len(got) != 2 || got[0].Name != "a" || got[1].Name != "c" {
		t.Fatalf("Select = %v, %v", got, err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "x.*") {
		t.Errorf("notes %q, want the pattern that matches nothing", notes)
	}
	none, _ := ParseSelector("z")
	if _, _, err := Select(all, none); exitcode.Of(err) != exitcode.Usage {
		t.Errorf("an empty selection: %v, want a usage error", err)
	}
}

func TestValidateRefusesConnectionOverrides(t *testing.T) {
	s := func(v string) *string { return &v }
	yes := true
	for _, tc := range []struct {
		name string
		set  func(*genericclioptions.ConfigFlags)
		want string
	}{
		{"context", func(f *genericclioptions.ConfigFlags) { f.Context = s("prod") }, "--context"},
		{"cluster", func(f *genericclioptions.ConfigFlags) { f.ClusterName = s("c") }, "--cluster"},
		{"user", func(f *genericclioptions.ConfigFlags) { f.AuthInfoName = s("u") }, "--user"},
		{"token", func(f *genericclioptions.ConfigFlags) { f.BearerToken = s("t") }, "--token"},
		{"insecure", func(f *genericclioptions.ConfigFlags) { f.Insecure = &yes }, "--insecure-skip-tls-verify"},
		{"client key", func(f *genericclioptions.ConfigFlags) { f.KeyFile = s("k") }, "--client-key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cf := genericclioptions.NewConfigFlags(true)
			tc.set(cf)
			f := &Flags{AllContexts: true, Parallel: 1, ContextTimeout: time.Second}
			err := f.Validate(cf)
			if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate = %v, want a usage error naming %s", err, tc.want)
			}
		})
	}
	cf := genericclioptions.NewConfigFlags(true)
	cf.Impersonate, cf.Namespace = s("alice"), s("team")
	if err := (&Flags{AllContexts: true, Parallel: 1, ContextTimeout: time.Second}).Validate(cf); err != nil {
		t.Errorf("impersonation and a namespace apply to every context: %v", err)
	}
}

func TestForContextKeepsSharedFlags(t *testing.T) {
	s := func(v string) *string { return &v }
	base := genericclioptions.NewConfigFlags(true)
	base.KubeConfig, base.Namespace, base.Impersonate = s("/k"), s("team"), s("alice")
	f := ForContext(base, "prod", time.Minute)
	if *f.Context != "prod" || *f.KubeConfig != "/k" || *f.Namespace != "team" || *f.Impersonate != "alice" {
		t.Errorf("ForContext: context %s kubeconfig %s namespace %s as %s", *f.Context, *f.KubeConfig, *f.Namespace, *f.Impersonate)
	}
	// Without --request-timeout, requests end at the context's deadline; a given one is kept.
	if *f.Timeout != "1m0s" {
		t.Errorf("request timeout %q, want the context timeout", *f.Timeout)
	}
	base.Timeout = s("5s")
	if got := *ForContext(base, "prod", time.Minute).Timeout; got != "5s" {
		t.Errorf("request timeout %q, want the one given", got)
	}
	if base.Context != nil && *base.Context != "" {
		t.Errorf("the base flags were changed: %s", *base.Context)
	}
}

// Run never has more than Parallel contexts in flight and returns outcomes in input order.
func TestRunBoundsParallelism(t *testing.T) {
	var contexts []Context
	for i := range 12 {
		contexts = append(contexts, Context{Name: fmt.Sprintf("c%02d", i)})
	}
	var inFlight, peak atomic.Int32
	out := Run(context.Background(), contexts, Options{Parallel: 3, Timeout: time.Minute}, func(_ context.Context, c Context) (string, error) {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		inFlight.Add(-1)
		return "result of " + c.Name, nil
	})
	if p := peak.Load(); p > 3 || p < 2 {
		t.Errorf("peak parallelism %d, want 2-3 with Parallel 3", p)
	}
	for i, o := range out {
		if o.Context.Name != contexts[i].Name || o.Result != "result of "+contexts[i].Name || o.Err != nil {
			t.Errorf("outcome %d: %+v", i, o)
		}
	}
}

// A context that returns after its deadline is a timeout whatever it returned; one that
// ignores the deadline is abandoned.
func TestRunTimeout(t *testing.T) {
	out := Run(context.Background(), []Context{{Name: "late"}, {Name: "deaf"}, {Name: "fast"}}, Options{Parallel: 3, Timeout: 50 * time.Millisecond},
		func(ctx context.Context, c Context) (string, error) {
			switch c.Name {
			case "late":
				<-ctx.Done()
				return "partial", nil
			case "deaf":
				time.Sleep(abandonAfter + time.Second)
				return "too late", nil
			}
			return "ok", nil
		})
	var te *TimeoutError
	for _, o := range out[:2] {
		if !errors.As(o.Err, &te) || o.Result != "" {
			t.Errorf("%s: result %q err %v, want a timeout and no result", o.Context.Name, o.Result, o.Err)
		}
	}
	if out[2].Err != nil || out[2].Result != "ok" {
		t.Errorf("fast: %+v", out[2])
	}
}

func TestRunStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var calls atomic.Int32
	out := Run(ctx, []Context{{Name: "a"}, {Name: "b"}}, Options{Parallel: 1, Timeout: time.Minute}, func(ctx context.Context, _ Context) (int, error) {
		calls.Add(1)
		return 1, ctx.Err()
	})
	for _, o := range out {
		if !errors.Is(o.Err, context.Canceled) || o.Result != 0 {
			t.Errorf("%s: %+v, want cancelled with no result", o.Context.Name, o)
		}
	}
}

func TestClassify(t *testing.T) {
	gr := schema.GroupResource{Resource: "namespaces"}
	target := cluster.Target{Context: "prod", Server: "https://x"}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{cluster.ReadError(target, "reading API discovery", refused), "unreachable"},
		{cluster.ReadError(target, "listing", apierrors.NewForbidden(gr, "", errors.New("no"))), "forbidden"},
		{cluster.ReadError(target, "listing", apierrors.NewUnauthorized("who")), "unauthorized"},
		{cluster.ReadError(target, "listing", context.DeadlineExceeded), "timed-out"},
		{&TimeoutError{Context: "prod", Timeout: time.Second}, "timed-out"},
		{context.Canceled, "stopped"},
		{cluster.ReadError(target, "namespaces/x", apierrors.NewNotFound(gr, "x")), "refused"},
		{exitcode.UsageErrorf("Flux is not installed on context prod"), "refused"},
		{errors.New("something else"), "read-failed"},
		// A sweep RBAC refuses for every type, as fleet mode's run gets it: the typed status
		// decides, never the wording (an untyped "forbidden: …" is read-failed).
		{fmt.Errorf("context prod: %w", cluster.ReadError(target, "listing every resource type", apierrors.NewForbidden(gr, "", errors.New("RBAC")))), "forbidden"},
		{cluster.ReadError(target, "listing every resource type", errors.New("forbidden: namespaces is forbidden")), "read-failed"},
	} {
		if got := Classify(tc.err); got.Reason != tc.want || got.Message != tc.err.Error() {
			t.Errorf("Classify(%v) = %+v, want %s", tc.err, got, tc.want)
		}
	}
}

// The report's exit code is the worst context's; an error is UNKNOWN whatever code it carried.
func TestNewReport(t *testing.T) {
	plugin := Plugin[*int]{
		APIVersion: "x/v1", Kind: "XFleetReport",
		Verdict: func(c exitcode.Code) string { return map[exitcode.Code]string{0: "CLEAR", 1: "STUCK", 2: "UNKNOWN"}[c] },
		Describe: func(r *int) (exitcode.Code, string, string) {
			return exitcode.Code(*r), "https://from-result", fmt.Sprintf("code %d", *r)
		},
	}
	zero, one := 0, 1
	sel, _ := ParseSelector(".*")
	for _, tc := range []struct {
		name     string
		outcomes []Outcome[*int]
		want     int
	}{
		{"all clear", []Outcome[*int]{{Context: Context{Name: "a"}, Result: &zero}}, 0},
		{"one stuck", []Outcome[*int]{{Context: Context{Name: "a"}, Result: &zero}, {Context: Context{Name: "b"}, Result: &one}}, 1},
		{"bad input on one context is UNKNOWN, not 3", []Outcome[*int]{{Context: Context{Name: "a"}, Result: &one}, {Context: Context{Name: "b"}, Err: exitcode.UsageErrorf("not found")}}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := NewReport(plugin, sel, tc.outcomes)
			if rep.ExitCode != tc.want || rep.Summary.Contexts != len(tc.outcomes) {
				t.Errorf("exit %d contexts %d, want %d", rep.ExitCode, rep.Summary.Contexts, tc.want)
			}
			for _, e := range rep.Contexts {
				if e.Failure == nil && e.Server != "https://from-result" {
					t.Errorf("%s: server %q, want the result's", e.Context, e.Server)
				}
				if e.Failure != nil && (e.Verdict != "UNKNOWN" || e.Result != nil) {
					t.Errorf("%s: failed context %+v", e.Context, e)
				}
			}
		})
	}
}

// Names and messages from others' kubeconfigs and clusters never reach the terminal raw.
func TestWriteTextEscapes(t *testing.T) {
	plugin := Plugin[*int]{APIVersion: "x/v1", Kind: "K",
		Verdict:  func(c exitcode.Code) string { return c.String() },
		Describe: func(*int) (exitcode.Code, string, string) { return 0, "", "ok" }}
	sel, _ := ParseSelector(".*")
	rep := NewReport(plugin, sel, []Outcome[*int]{
		{Context: Context{Name: "evil\n::error::forged", Server: "https://x"}, Err: errors.New("boom\x1b[2J")},
	})
	var b bytes.Buffer
	if err := WriteText(&b, rep, output.Palette{}, func(io.Writer, *int) error { return nil }); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, raw := range []string{"evil\\n::error::forged", "boom\\x1b[2J"} {
		if !strings.Contains(out, raw) {
			t.Errorf("output lacks the escaped %q:\n%s", raw, out)
		}
	}
	if strings.ContainsRune(out, 0x1b) {
		t.Errorf("a raw escape reached the output:\n%q", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "::") {
			t.Errorf("a line starts a workflow command: %q", line)
		}
	}
}

// The summary line names the most specific cause: the dial, not the plugin's wrapping and not
// the bare errno under it.
func TestFailureSummary(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 6443}, Err: errors.New("connect: connection refused")}
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "namespaces"}, "", errors.New("RBAC"))
	target := cluster.Target{Context: "prod", Server: "https://10.0.0.1:6443"}
	plugin := Plugin[*int]{Verdict: func(c exitcode.Code) string { return c.String() }}
	sel, _ := ParseSelector(".*")
	for _, tc := range []struct {
		err  error
		want string
	}{
		{cluster.ReadError(target, "reading API discovery", fmt.Errorf("reading API discovery: %w", refused)), "unreachable: dial tcp 10.0.0.1:6443: connect: connection refused"},
		{cluster.ReadError(target, "listing", forbidden), "forbidden: " + forbidden.Error()},
		{&TimeoutError{Context: "prod", Timeout: time.Minute}, "timed-out: no complete answer from context prod within --context-timeout=1m0s"},
	} {
		rep := NewReport(plugin, sel, []Outcome[*int]{{Context: Context{Name: "prod"}, Err: tc.err}})
		if got := rep.Contexts[0].Summary; got != tc.want {
			t.Errorf("summary %q, want %q", got, tc.want)
		}
	}
}

// -o sarif is refused in fleet mode with the reason that holds for it (it is for a
// repository's code scanning), not the graph formats' reason.
func TestValidateRefusesSARIF(t *testing.T) {
	for format, want := range map[string]string{"sarif": "code scanning", "dot": "graph"} {
		c := &Command[int]{Flags: &Flags{AllContexts: true, Parallel: 1, ContextTimeout: time.Second},
			ConfigFlags: genericclioptions.NewConfigFlags(true),
			PrintFlags:  &output.PrintFlags{Format: format, Color: "auto", Allowed: []output.Format{output.Text, output.JSON, "dot", sarif.Format}}}
		err := c.Validate()
		if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), want) {
			t.Errorf("-o %s: Validate = %v, want a usage error saying %q", format, err, want)
		}
	}
}

// A plugin's own verdict (flux-chain's STALE, which shares exit code 2 with UNKNOWN) is each
// context's verdict and, when every context at the worst code says the same, the run's; a
// context that failed stays UNKNOWN, and contexts that differ at the worst code give the code's
// name.
func TestNewReportCarriesResultVerdict(t *testing.T) {
	plugin := Plugin[*int]{
		Verdict: func(c exitcode.Code) string {
			return map[exitcode.Code]string{0: "HEALTHY", 1: "FAILING", 2: "UNKNOWN"}[c]
		},
		Describe: func(r *int) (exitcode.Code, string, string) {
			return exitcode.Code(*r), "", ""
		},
		ResultVerdict: func(r *int) string { return map[int]string{0: "PROGRESSING", 2: "STALE"}[*r] },
	}
	zero, two := 0, 2
	sel, _ := ParseSelector(".*")
	rep := NewReport(plugin, sel, []Outcome[*int]{{Context: Context{Name: "a"}, Result: &two}, {Context: Context{Name: "b"}, Result: &zero}})
	if rep.Contexts[0].Verdict != "STALE" || rep.Contexts[1].Verdict != "PROGRESSING" || rep.Verdict != "STALE" || rep.ExitCode != 2 ||
		rep.Summary.Verdicts["STALE"] != 1 || rep.Summary.Verdicts["UNKNOWN"] != 0 {
		t.Errorf("verdicts %s %s, run %s exit %d, counts %v", rep.Contexts[0].Verdict, rep.Contexts[1].Verdict, rep.Verdict, rep.ExitCode, rep.Summary.Verdicts)
	}
	rep = NewReport(plugin, sel, []Outcome[*int]{{Context: Context{Name: "a"}, Result: &two}, {Context: Context{Name: "b"}, Err: errors.New("dial tcp: connection refused")}})
	if rep.Contexts[0].Verdict != "STALE" || rep.Contexts[1].Verdict != "UNKNOWN" || rep.Verdict != "UNKNOWN" {
		t.Errorf("verdicts %s %s, run %s", rep.Contexts[0].Verdict, rep.Contexts[1].Verdict, rep.Verdict)
	}
}
