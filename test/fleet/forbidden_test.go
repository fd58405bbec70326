package fleet_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
)

// forbiddenCtx is a context on the healthy control plane whose user may authenticate but is
// granted nothing by RBAC: the admin's token, impersonating a user without bindings.
const forbiddenCtx = "fleet-forbidden"

// forbiddenKubeconfig writes a kubeconfig of its own with the forbidden context beside the
// fleet's, so the shared fleet's tests keep their three contexts.
func forbiddenKubeconfig(t *testing.T) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(env.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	admin := cfg.AuthInfos[cfg.Contexts[healthyCtx].AuthInfo].DeepCopy()
	admin.Impersonate = "kubeforensics-nobody"
	cfg.AuthInfos[forbiddenCtx] = admin
	ctx := cfg.Contexts[healthyCtx].DeepCopy()
	ctx.AuthInfo = forbiddenCtx
	cfg.Contexts[forbiddenCtx] = ctx
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A context whose user RBAC refuses is `forbidden`, not `read-failed`: the reason comes from
// the API's typed status, for both plugins.
func TestFleetForbiddenContext(t *testing.T) {
	needEnv(t)
	kubeconfig := forbiddenKubeconfig(t)
	for _, tc := range []struct {
		name string
		cmd  newCmd
		args []string
	}{
		{"why-terminating -A", whyTerminating, []string{"-A"}},
		{"why-terminating -n default", whyTerminating, []string{"-n", "default"}},
		{"flux-chain", fluxChain, nil},
		{"flux-chain -A", fluxChain, []string{"-A"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--kubeconfig=" + kubeconfig, "--contexts=" + forbiddenCtx + "," + healthyCtx, "-o", "json"}, tc.args...)
			out, stderr, code := run(t, tc.cmd, args...)
			if code != 2 {
				t.Fatalf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
			}
			r := decode(t, out, json.Unmarshal)
			var found bool
			for _, c := range r.Contexts {
				if c.Context != forbiddenCtx {
					continue
				}
				found = true
				if c.Failure == nil || c.Failure.Reason != "forbidden" || c.Verdict != "UNKNOWN" || !strings.HasPrefix(c.Summary, "forbidden: ") {
					t.Errorf("forbidden context: verdict %s failure %+v summary %q\n%s", c.Verdict, c.Failure, c.Summary, out)
				}
			}
			if !found {
				t.Fatalf("no entry for %s:\n%s", forbiddenCtx, out)
			}
		})
	}
}
