package whyterminating_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/plugins/whyterminating"
)

// The seed case: the claim is held by pvc-protection because the headlamp pod mounts it.
func TestStuckClaimText(t *testing.T) {
	needEnv(t)
	for _, args := range [][]string{
		{"pvc", "headlamp", "-n", "headlamp"},
		{"persistentvolumeclaims/headlamp", "-n", "headlamp"},
		{"PersistentVolumeClaim", "headlamp", "-n", "headlamp"},
		{"headlamp_headlamp__PersistentVolumeClaim"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			out, errOut, code := run(t, args...)
			if code != 1 {
				t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			for _, want := range []string{
				"persistentvolumeclaims/headlamp -n headlamp",
				"finalizer kubernetes.io/pvc-protection",
				"blocked by pods/" + seed.Pod + " -n headlamp: mounts the claim as volume \"plugins-dir\"",
				"owners: replicasets.apps/",
				"→ deployments.apps/headlamp",
				"GitOps owner: Kustomization flux-system/apps",
				"$ kubectl --kubeconfig=" + env.Kubeconfig + " --context=" + env.Context + " -n headlamp delete pod " + seed.Pod,
				"256Mi of data in volume persistentvolumes/pv-headlamp is lost: its reclaim policy is Delete",
				"verdict: STUCK (exit 1)",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q\n%s", want, out)
				}
			}
			if !strings.Contains(errOut, "context "+env.Context+" ("+env.Server+")") {
				t.Errorf("stderr does not name the context and server: %q", errOut)
			}
		})
	}
}

func TestStuckClaimJSON(t *testing.T) {
	needEnv(t)
	out, _, code := run(t, "pvc", "headlamp", "-n", "headlamp", "-o", "json")
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	var res whyterminating.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if res.Verdict != "STUCK" || res.ExitCode != 1 || res.Target.Context != env.Context || res.Target.Server != env.Server {
		t.Fatalf("verdict/target = %s %d %+v", res.Verdict, res.ExitCode, res.Target)
	}
	if len(res.Objects) != 1 || len(res.Objects[0].Finalizers) != 1 {
		t.Fatalf("objects = %+v", res.Objects)
	}
	f := res.Objects[0].Finalizers[0]
	if len(f.Blockers) != 1 {
		t.Fatalf("blockers = %+v", f.Blockers)
	}
	b := f.Blockers[0]
	want := finalizers.ObjectRef{Version: "v1", Resource: "pods", Kind: "Pod", Namespace: incident.Namespace, Name: seed.Pod}
	if b.Object != want {
		t.Errorf("blocker = %+v, want %+v", b.Object, want)
	}
	if b.GitOps == nil || b.GitOps.Name != "apps" || len(b.OwnerChain) != 2 || b.OwnerChain[1].Name != "headlamp" {
		t.Errorf("owner chain %+v, gitops %+v", b.OwnerChain, b.GitOps)
	}
	if len(f.Remedies) == 0 || !strings.Contains(f.Remedies[0].Command, "--context="+env.Context) || f.Remedies[0].LastResort {
		t.Errorf("remedies = %+v", f.Remedies)
	}
	goldens.Assert(t, "seed-claim.json", out)
	text, _, _ := run(t, "pvc", "headlamp", "-n", "headlamp")
	goldens.Assert(t, "seed-claim.txt", text)
}

func TestNotTerminating(t *testing.T) {
	needEnv(t)
	out, _, code := run(t, "deploy/headlamp", "-n", "headlamp")
	if code != 0 || !strings.Contains(out, "deployments.apps/headlamp -n headlamp is not Terminating") {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
}

func TestBadInput(t *testing.T) {
	needEnv(t)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"missing object", []string{"pvc", "nope", "-n", "headlamp"}, "persistentvolumeclaims/nope -n headlamp: not found"},
		{"unknown kind", []string{"persistentvolumeclam", "x"}, "did you mean persistentvolumeclaims"},
		{"bad output", []string{"pvc", "x", "-o", "wide"}, "unknown output format"},
		{"too many args", []string{"a", "b", "c"}, "accepts between 0 and 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := run(t, tc.args...)
			if code != 3 || !strings.Contains(errOut, tc.want) || out != "" {
				t.Fatalf("exit %d, stderr %q, stdout %q; want 3 and %q", code, errOut, out, tc.want)
			}
		})
	}
}

// Three groups serve a kind named Backup: the bare name is refused with every candidate and
// its object count, and the fully qualified name resolves.
func TestAmbiguousBackup(t *testing.T) {
	needEnv(t)
	_, errOut, code := run(t, "backup", "-A")
	if code != 3 {
		t.Fatalf("exit %d, want 3: %s", code, errOut)
	}
	for _, want := range []string{
		`"backup" is ambiguous: 3 resource types answer to it`,
		"backups.longhorn.io             0 objects in all namespaces",
		"backups.postgresql.cnpg.io     27 objects in all namespaces",
		"backups.velero.io               6 objects in all namespaces",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	out, errOut, code := run(t, "backups.velero.io", "-n", "velero")
	if code != 0 || !strings.Contains(out, "Nothing is Terminating") {
		t.Fatalf("backups.velero.io: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, _, code := run(t, "Backup.v1.velero.io", "nightly-00", "-n", "velero"); code != 0 {
		t.Fatalf("Backup.v1.velero.io nightly-00: exit %d, want 0", code)
	}
}
