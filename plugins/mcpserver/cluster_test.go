package mcpserver_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/plugins/fluxchain"
	"github.com/kubeforensics/suite/plugins/whyterminating"
)

// The incident's claim, asked about through the SDK's client: the envelope is the plugin's
// (apiVersion, kind, verdict STUCK, exit 1), the blocker is the pod that mounts the claim, and
// the text is the plugin's own printer.
func TestWhyTerminatingStuckClaim(t *testing.T) {
	needEnv(t)
	cs := connect(t, config(env.Kubeconfig, t.TempDir()))
	for _, object := range []string{"pvc headlamp", "persistentvolumeclaims/headlamp", "headlamp_headlamp__PersistentVolumeClaim"} {
		t.Run(object, func(t *testing.T) {
			res := call(t, cs, "why_terminating", map[string]any{"object": object, "namespace": incident.Namespace})
			var r whyterminating.Result
			structured(t, res, &r)
			if r.APIVersion != "whyterminating.kubeforensics.dev/v1beta4" || r.Kind != "WhyTerminatingResult" || r.Verdict != "STUCK" || r.ExitCode != 1 {
				t.Fatalf("envelope %s %s verdict %s exit %d", r.APIVersion, r.Kind, r.Verdict, r.ExitCode)
			}
			if r.Target.Context != env.Context || r.Target.Server != env.Server {
				t.Errorf("target = %+v", r.Target)
			}
			if r.Reporter.Name != "why-terminating" || r.Timestamp == "" || r.Summary.Stuck != 1 {
				t.Errorf("reporter %+v, timestamp %q, summary %+v", r.Reporter, r.Timestamp, r.Summary)
			}
			if len(r.Objects) != 1 || len(r.Objects[0].Finalizers) != 1 || len(r.Objects[0].Finalizers[0].Blockers) != 1 {
				t.Fatalf("objects = %+v", r.Objects)
			}
			b := r.Objects[0].Finalizers[0].Blockers[0]
			want := finalizers.ObjectRef{Version: "v1", Resource: "pods", Kind: "Pod", Namespace: incident.Namespace, Name: seed.Pod}
			if b.Object != want {
				t.Errorf("blocker = %+v, want %+v", b.Object, want)
			}
			for _, s := range []string{"blocked by pods/" + seed.Pod + " -n headlamp", "verdict: STUCK (exit 1)", `"verdict":"STUCK"`} {
				if !strings.Contains(text(res), s) {
					t.Errorf("text lacks %q:\n%s", s, text(res))
				}
			}
		})
	}
}

// An object that is not Terminating is CLEAR (exit 0), from its own read.
func TestWhyTerminatingClear(t *testing.T) {
	needEnv(t)
	cs := connect(t, config(env.Kubeconfig, t.TempDir()))
	var r whyterminating.Result
	structured(t, call(t, cs, "why_terminating", map[string]any{"object": "deploy/headlamp", "namespace": incident.Namespace}), &r)
	if r.Verdict != "CLEAR" || r.ExitCode != 0 || len(r.Objects) != 1 || r.Objects[0].Terminating {
		t.Fatalf("verdict %s exit %d objects %+v", r.Verdict, r.ExitCode, r.Objects)
	}
}

// Bad input is refused as the command refuses it (exit 3), and a missing object too.
func TestWhyTerminatingBadInput(t *testing.T) {
	needEnv(t)
	cs := connect(t, config(env.Kubeconfig, t.TempDir()))
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"missing object", map[string]any{"object": "pvc nope", "namespace": "headlamp"}, "bad input (exit 3): reading persistentvolumeclaims/nope -n headlamp: not found on context " + env.Context},
		{"name with allNamespaces", map[string]any{"object": "pvc headlamp", "allNamespaces": true}, "give no object name"},
		{"too many words", map[string]any{"object": "pvc a b"}, "give TYPE, TYPE NAME"},
		{"unknown argument", map[string]any{"objekt": "pvc headlamp"}, "objekt"},
	} {
		t.Run(tc.name, func(t *testing.T) { refused(t, call(t, cs, "why_terminating", tc.args), tc.want) })
	}
}

// The incident's chain: apps fails its health check on the Terminating claim, and what waits
// on it is its blast radius.
func TestFluxChain(t *testing.T) {
	needEnv(t)
	cs := connect(t, config(env.Kubeconfig, t.TempDir()))
	var r fluxchain.Result
	structured(t, call(t, cs, "flux_chain", map[string]any{}), &r)
	if r.Kind != "FluxChainResult" || r.Verdict != "FAILING" || r.ExitCode != 1 || r.Namespace != incident.FluxNS {
		t.Fatalf("envelope %s verdict %s exit %d namespace %q", r.Kind, r.Verdict, r.ExitCode, r.Namespace)
	}
	if len(r.RootCauses) != 1 || r.RootCauses[0].Kustomization != incident.FluxNS+"/"+incident.AppsKS || r.RootCauses[0].Message != incident.HealthCheckMessage {
		t.Fatalf("root causes = %+v", r.RootCauses)
	}
	if len(r.RootCauses[0].Objects) == 0 || r.RootCauses[0].Objects[0].Terminating == nil {
		t.Errorf("the claim the health check waits on is not explained: %+v", r.RootCauses[0].Objects)
	}
	var focus fluxchain.Result
	structured(t, call(t, cs, "flux_chain", map[string]any{"name": "infra", "namespace": incident.FluxNS}), &focus)
	if focus.Focus != incident.FluxNS+"/infra" {
		t.Errorf("focus = %q", focus.Focus)
	}
	refused(t, call(t, cs, "flux_chain", map[string]any{"name": "nope"}), "not found")
}

// A call stopped by --call-timeout is UNKNOWN, whatever it had read by then.
func TestCallTimeoutIsUnknown(t *testing.T) {
	needEnv(t)
	cfg := config(env.Kubeconfig, t.TempDir())
	cfg.CallTimeout = time.Millisecond
	cs := connect(t, cfg)
	refused(t, call(t, cs, "why_terminating", map[string]any{"allNamespaces": true}), "UNKNOWN (exit 2)")
}
