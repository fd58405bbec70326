package fleet_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// report is the part of a fleet report envelope the tests read.
type report struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Selector   string `json:"selector"`
	Contexts   []struct {
		Context  string `json:"context"`
		Server   string `json:"server"`
		Verdict  string `json:"verdict"`
		ExitCode int    `json:"exitCode"`
		Summary  string `json:"summary"`
		Failure  *struct {
			Reason  string `json:"reason"`
			Message string `json:"message"`
		} `json:"failure"`
		Result map[string]any `json:"result"`
	} `json:"contexts"`
	Summary struct {
		Contexts int            `json:"contexts"`
		Verdicts map[string]int `json:"verdicts"`
	} `json:"summary"`
	Verdict  string `json:"verdict"`
	ExitCode int    `json:"exitCode"`
}

func decode(t *testing.T, out string, unmarshal func([]byte, any) error) report {
	t.Helper()
	var r report
	if err := unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("decoding the report: %v\n%s", err, out)
	}
	return r
}

// The -A sweep over the three contexts: one report, each context with its own connection
// and verdict, the worst (the unreachable context's UNKNOWN) as the exit code.
func TestWhyTerminatingFleetEnvelope(t *testing.T) {
	needEnv(t)
	for _, format := range []string{"json", "yaml"} {
		t.Run(format, func(t *testing.T) {
			out, stderr, code := run(t, whyTerminating, "--kubeconfig="+env.kubeconfig, "--all-contexts", "-A", "-o", format)
			if code != 2 {
				t.Fatalf("exit %d, want 2 (one context unreachable)\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
			}
			unmarshal := json.Unmarshal
			if format == "yaml" {
				unmarshal = func(b []byte, v any) error { return yaml.Unmarshal(b, v) }
			}
			r := decode(t, out, unmarshal)
			if r.APIVersion != "whyterminating.kubeforensics.dev/v1alpha1" || r.Kind != "WhyTerminatingFleetReport" {
				t.Errorf("envelope %s %s", r.APIVersion, r.Kind)
			}
			if r.Verdict != "UNKNOWN" || r.ExitCode != 2 || r.Selector != "--all-contexts" || r.Summary.Contexts != 3 {
				t.Errorf("verdict %s exit %d selector %q contexts %d", r.Verdict, r.ExitCode, r.Selector, r.Summary.Contexts)
			}
			want := []struct{ ctx, server, verdict string }{
				{downCtx, env.downServer, "UNKNOWN"},
				{healthyCtx, env.healthy.Server, "CLEAR"},
				{stuckCtx, env.stuck.Env.Server, "STUCK"},
			}
			if len(r.Contexts) != len(want) {
				t.Fatalf("%d contexts, want %d", len(r.Contexts), len(want))
			}
			for i, w := range want {
				c := r.Contexts[i]
				if c.Context != w.ctx || c.Server != w.server || c.Verdict != w.verdict {
					t.Errorf("context %d: %s %s %s, want %s %s %s", i, c.Context, c.Server, c.Verdict, w.ctx, w.server, w.verdict)
				}
			}
			down, healthy, stuck := r.Contexts[0], r.Contexts[1], r.Contexts[2]
			if down.Failure == nil || down.Failure.Reason != "unreachable" || !strings.Contains(down.Failure.Message, "connection refused") || down.Result != nil {
				t.Errorf("the closed port's context: failure %+v, result %v", down.Failure, down.Result != nil)
			}
			if healthy.Failure != nil || healthy.Result["kind"] != "WhyTerminatingResult" || healthy.Result["verdict"] != "CLEAR" {
				t.Errorf("healthy context: failure %+v result kind %v verdict %v", healthy.Failure, healthy.Result["kind"], healthy.Result["verdict"])
			}
			if target, _ := stuck.Result["target"].(map[string]any); target["context"] != stuckCtx || target["server"] != env.stuck.Env.Server {
				t.Errorf("stuck context's result target %v", target)
			}
			if !strings.Contains(stuck.Summary, "persistentvolumeclaims/headlamp -n headlamp") {
				t.Errorf("stuck context's summary %q does not name the claim", stuck.Summary)
			}
			if r.Summary.Verdicts["UNKNOWN"] != 1 || r.Summary.Verdicts["CLEAR"] != 1 || r.Summary.Verdicts["STUCK"] != 1 {
				t.Errorf("summary counts %v", r.Summary.Verdicts)
			}
			if format == "yaml" {
				return // yaml folds long strings; the json case checks the commands
			}
			// Every command printed for the stuck context reaches it, and only it.
			for _, c := range commands(out) {
				if !strings.Contains(c, "--kubeconfig="+env.kubeconfig+" --context="+stuckCtx) {
					t.Errorf("printed command without the stuck context's connection: %s", c)
				}
			}
			if len(commands(out)) == 0 {
				t.Errorf("no command printed for the stuck claim:\n%s", out)
			}
		})
	}
}

// commands returns every kubectl command line in a printed result.
func commands(out string) []string {
	return regexp.MustCompile(`kubectl [^"\n]*`).FindAllString(out, -1)
}

// The text form groups by context, then the summary table and the fleet verdict; stderr
// names each context's connection.
func TestWhyTerminatingFleetText(t *testing.T) {
	needEnv(t)
	out, stderr, code := run(t, whyTerminating, "--kubeconfig="+env.kubeconfig, "--contexts=fleet-.*", "-A")
	if code != 2 {
		t.Fatalf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	sections := []string{
		"=== context " + downCtx + " (" + env.downServer + "): UNKNOWN ===",
		"=== context " + healthyCtx + " (" + env.healthy.Server + "): CLEAR ===",
		"=== context " + stuckCtx + " (" + env.stuck.Env.Server + "): STUCK ===",
		"FLEET: 3 context(s), --contexts=fleet-.*",
	}
	last := -1
	for _, s := range sections {
		i := strings.Index(out, s)
		if i < 0 || i < last {
			t.Fatalf("missing or out of order: %q\n%s", s, out)
		}
		last = i
	}
	for _, want := range []string{
		"UNKNOWN: no result from this context (unreachable): ",
		"Nothing is Terminating in cluster.",
		"persistentvolumeclaims/headlamp -n headlamp Terminating for",
		"$ kubectl --kubeconfig=" + env.kubeconfig + " --context=" + stuckCtx + " -n headlamp delete pod ",
		"fleet verdict: UNKNOWN (exit 2, the worst of all contexts)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	table := regexp.MustCompile(`(?m)^(fleet-\S+)\s+(\S+)\s+(\d)\s+(.*)$`).FindAllStringSubmatch(out, -1)
	rows := map[string][]string{}
	for _, r := range table {
		rows[r[1]] = r[2:]
	}
	for ctx, want := range map[string][]string{
		downCtx:    {"UNKNOWN", "2", "unreachable: dial tcp " + strings.TrimPrefix(env.downServer, "https://") + ": connect: connection refused"},
		healthyCtx: {"CLEAR", "0", "nothing Terminating in cluster"},
		stuckCtx:   {"STUCK", "1", "Terminating: persistentvolumeclaims/headlamp -n headlamp"},
	} {
		got := rows[ctx]
		if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || !strings.Contains(got[2], want[2]) {
			t.Errorf("summary row of %s: %q, want %q", ctx, got, want)
		}
	}
	for _, ctx := range []string{healthyCtx, stuckCtx} {
		if !strings.Contains(stderr, "# context "+ctx+" (https://127.0.0.1:") {
			t.Errorf("stderr does not name %s's connection:\n%s", ctx, stderr)
		}
	}
	if !strings.Contains(stderr, "# context "+downCtx+": UNKNOWN (exit 2)") {
		t.Errorf("stderr does not give the unreachable context's verdict:\n%s", stderr)
	}
}

// Excluding the unreachable context leaves the worst verdict the stuck claim's; the namespace
// form sweeps that namespace on each context.
func TestWhyTerminatingFleetSelection(t *testing.T) {
	needEnv(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"exclusion", []string{"--contexts=fleet-.*,^fleet-down", "-A"}, 1, []string{"fleet-healthy", "fleet-stuck", "fleet verdict: STUCK (exit 1"}},
		{"namespace form", []string{"--contexts=fleet-(healthy|stuck)", "-n", "headlamp"}, 1, []string{"Nothing is Terminating in namespace headlamp.", "persistentvolumeclaims/headlamp -n headlamp Terminating"}},
		{"healthy alone", []string{"--contexts=fleet-healthy", "-A"}, 0, []string{"fleet verdict: CLEAR (exit 0"}},
		{"namespace missing on the context", []string{"--contexts=fleet-healthy", "-n", "nosuch"}, 2, []string{"(refused)", "not found"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := run(t, whyTerminating, append([]string{"--kubeconfig=" + env.kubeconfig}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(out, "context "+downCtx) || strings.Contains(out, "\n"+downCtx+" ") {
				t.Errorf("the excluded context appears:\n%s", out)
			}
		})
	}
}

// flux-chain's live chain over the three contexts: the incident's failing tier, the healthy
// chain, the unreachable context, one envelope.
func TestFluxChainFleet(t *testing.T) {
	needEnv(t)
	out, stderr, code := run(t, fluxChain, "--kubeconfig="+env.kubeconfig, "--all-contexts", "-o", "json")
	if code != 2 {
		t.Fatalf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	r := decode(t, out, json.Unmarshal)
	if r.Kind != "FluxChainFleetReport" || r.APIVersion != "fluxchain.kubeforensics.dev/v1alpha1" || r.Verdict != "UNKNOWN" {
		t.Errorf("envelope %s %s verdict %s", r.APIVersion, r.Kind, r.Verdict)
	}
	got := map[string]string{}
	for _, c := range r.Contexts {
		got[c.Context] = c.Verdict + " " + c.Summary
	}
	for ctx, want := range map[string]string{
		downCtx:    "UNKNOWN unreachable: ",
		healthyCtx: "HEALTHY 1 Kustomization(s), all Ready",
		stuckCtx:   "FAILING 1 root cause(s): HealthCheckFailed flux-system/apps (2 frozen)",
	} {
		if !strings.HasPrefix(got[ctx], want) {
			t.Errorf("%s: %q, want it to start %q", ctx, got[ctx], want)
		}
	}
	for _, c := range commands(out) {
		if !strings.Contains(c, "--context="+stuckCtx) || !strings.Contains(c, "--kubeconfig="+env.kubeconfig) {
			t.Errorf("printed command without the stuck context's connection: %s", c)
		}
	}
	text, _, code := run(t, fluxChain, "--kubeconfig="+env.kubeconfig, "--contexts=fleet-stuck,fleet-healthy")
	if code != 1 {
		t.Fatalf("text: exit %d, want 1:\n%s", code, text)
	}
	for _, want := range []string{
		"=== context fleet-healthy (" + env.healthy.Server + "): HEALTHY ===",
		"=== context fleet-stuck (" + env.stuck.Env.Server + "): FAILING ===",
		"$ kubectl --kubeconfig=" + env.kubeconfig + " --context=fleet-stuck describe kustomizations.kustomize.toolkit.fluxcd.io/apps -n flux-system",
		"fleet verdict: FAILING (exit 1",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

// --list-contexts previews the selection from the kubeconfig alone (the closed port is listed,
// not contacted) and exits 0.
func TestListContexts(t *testing.T) {
	needEnv(t)
	for _, cmd := range []newCmd{whyTerminating, fluxChain} {
		out, stderr, code := run(t, cmd, "--kubeconfig="+env.kubeconfig, "--contexts=fleet-(down|stuck)", "--list-contexts")
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, out, stderr)
		}
		want := regexp.MustCompile(`^CONTEXT\s+SERVER\nfleet-down\s+` + regexp.QuoteMeta(env.downServer) + `\nfleet-stuck\s+` +
			regexp.QuoteMeta(env.stuck.Env.Server) + `\n2 context\(s\) selected by --contexts=fleet-\(down\|stuck\)\n$`)
		if !want.MatchString(out) {
			t.Errorf("list:\n%s", out)
		}
		if strings.Contains(stderr, "# context") {
			t.Errorf("--list-contexts connected:\n%s", stderr)
		}
	}
}
