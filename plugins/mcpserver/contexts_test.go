package mcpserver_test

import (
	"path/filepath"
	"testing"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/plugins/whyterminating"
)

// twoContexts writes a kubeconfig with the test cluster's context, a second context for the
// same cluster ("replica") and one whose server does not answer ("dead"), and returns its path.
func twoContexts(t *testing.T) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(env.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c := *cfg.Contexts[env.Context]
	cfg.Contexts["replica"] = &c
	// "dead" is a context whose server does not answer.
	dead := *cfg.Clusters[c.Cluster]
	dead.Server = "https://127.0.0.1:1"
	cfg.Clusters["dead"] = &dead
	d := c
	d.Cluster = "dead"
	cfg.Contexts["dead"] = &d
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// Only the current context without --contexts; with it, the contexts it matches, each call on
// its own: a call naming "replica" does not change the context of the next call.
func TestContextAllowList(t *testing.T) {
	needEnv(t)
	kubeconfig := twoContexts(t)
	claim := map[string]any{"object": "pvc headlamp", "namespace": incident.Namespace}
	with := func(ctx string) map[string]any {
		m := map[string]any{"context": ctx}
		for k, v := range claim {
			m[k] = v
		}
		return m
	}

	def := connect(t, config(kubeconfig, t.TempDir()))
	refused(t, call(t, def, "why_terminating", with("replica")), `bad input (exit 3): context "replica" is not allowed by this server (only "`+env.Context+`"`)
	refused(t, call(t, def, "flux_chain", map[string]any{"context": "replica"}), "is not allowed")
	refused(t, call(t, def, "safe_retire_plan", map[string]any{"context": "replica", "repo": ".", "offline": true}), "is not allowed")

	cfg := config(kubeconfig, t.TempDir())
	cfg.Contexts = "replica|nothing-else"
	cs := connect(t, cfg)
	refused(t, call(t, cs, "why_terminating", with(env.Context)), "contexts selected by --contexts=replica|nothing-else: replica")
	// The default (current) context is not on this list either.
	refused(t, call(t, cs, "why_terminating", claim), "is not allowed")
	var r whyterminating.Result
	structured(t, call(t, cs, "why_terminating", with("replica")), &r)
	if r.Target.Context != "replica" || r.Verdict != "STUCK" {
		t.Fatalf("target %+v verdict %s", r.Target, r.Verdict)
	}

	both := config(kubeconfig, t.TempDir())
	both.Contexts = ".*"
	cs = connect(t, both)
	structured(t, call(t, cs, "why_terminating", with("replica")), &r)
	if r.Target.Context != "replica" {
		t.Fatalf("target %+v", r.Target)
	}
	structured(t, call(t, cs, "why_terminating", claim), &r)
	if r.Target.Context != env.Context {
		t.Fatalf("after a call on replica, a call naming no context read %+v; want the default %s", r.Target, env.Context)
	}
}

// An allowed context whose server does not answer is UNKNOWN (exit 2), never CLEAR.
func TestUnreachableContextIsUnknown(t *testing.T) {
	needEnv(t)
	cfg := config(twoContexts(t), t.TempDir())
	cfg.Contexts = "dead"
	cs := connect(t, cfg)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"why_terminating", map[string]any{"context": "dead", "allNamespaces": true}},
		{"flux_chain", map[string]any{"context": "dead"}},
	} {
		refused(t, call(t, cs, tc.tool, tc.args), "UNKNOWN (exit 2)")
	}
}
