package saferetire_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/plugins/saferetire"
)

// reviewed runs the live dry run with args, as a reviewer would, and returns the plan's
// confirmation from its json output; the test fails when the dry run offers none.
func (iv invocation) reviewed(t *testing.T, args ...string) *saferetire.Confirmation {
	t.Helper()
	return iv.reviewedRaw(t, append([]string{"--kubeconfig", env.Kubeconfig, "--context", env.Context}, args...)...)
}

// reviewedRaw is reviewed with exactly the connection flags in args.
func (iv invocation) reviewedRaw(t *testing.T, args ...string) *saferetire.Confirmation {
	t.Helper()
	out, errOut, code := iv.raw(t, append([]string{"--dry-run", "-o", "json"}, args...)...)
	var res saferetire.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("dry run (exit %d): %v\n%s\n%s", code, err, out, errOut)
	}
	if res.Confirm == nil || res.Confirm.Command == "" {
		t.Fatalf("dry run (exit %d, %s) offers no plan to confirm\n%s\n%s", code, res.Verdict, out, errOut)
	}
	return res.Confirm
}

// carryOut runs the command a dry run printed to carry out its plan, word for word.
func (iv invocation) carryOut(t *testing.T, c *saferetire.Confirmation) (string, string, int) {
	t.Helper()
	words := strings.Fields(c.Command)
	if strings.ContainsAny(c.Command, `'"\`) || len(words) < 3 || words[0] != "kubectl" || words[1] != "safe-retire" {
		t.Fatalf("the test cannot split the printed command: %s", c.Command)
	}
	return iv.raw(t, words[2:]...)
}

// confirmed is what a pipeline does: the dry run, then the command it printed, bound to its
// digest.
func confirmed(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	iv := invocation{env: map[string]string{"XDG_CACHE_HOME": t.TempDir()}}
	return iv.carryOut(t, iv.reviewed(t, args...))
}

// retainedClaim sets up stage 4 in a new namespace: a Kustomization, the retained claim data,
// out of every inventory, and the repository whose working tree removes it.
func retainedClaim(t *testing.T, prefix string) (ns string, args []string) {
	t.Helper()
	ns = namespace(t, prefix)
	liveKS(t, ns, "apps", "./k8s/"+ns)
	liveClaim(t, ns, "data", map[string]string{"kustomize.toolkit.fluxcd.io/prune": "disabled"}, false)
	r, base := retainedRepo(t, ns)
	return ns, []string{"--repo", r.Dir, "--base", base, "-n", ns}
}

// The digest covers the plan exactly and is the same for an unchanged plan: two dry runs agree,
// the plan pins the claim at its UID and resourceVersion, the base commit and the connection,
// and the text output shows the digest and the command bound to it.
func TestConfirmDigestStable(t *testing.T) {
	needEnv(t)
	ns, args := retainedClaim(t, "confirmstable")
	iv := invocation{env: map[string]string{"XDG_CACHE_HOME": t.TempDir()}}
	first, second := iv.reviewed(t, args...), iv.reviewed(t, args...)
	if first.Digest != second.Digest || first.Command != second.Command {
		t.Fatalf("an unchanged plan has two digests:\n%+v\n%+v", first, second)
	}
	pvc, err := kc.Kube.CoreV1().PersistentVolumeClaims(ns).Get(context.Background(), "data", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := first.Plan
	want := saferetire.PlanObject{Object: "PersistentVolumeClaim " + ns + "/data", UID: string(pvc.UID), ResourceVersion: pvc.ResourceVersion}
	if len(p.Objects) != 1 || p.Objects[0] != want || len(p.Steps) != 1 || p.Context != env.Context || p.Base != args[3] || p.Candidate != "" {
		t.Fatalf("plan %+v, want the claim %+v, one step, context %s, base %s", p, want, env.Context, args[3])
	}
	contains(t, first.Command, "kubectl safe-retire --kubeconfig="+env.Kubeconfig+" --context="+env.Context+" --repo="+args[1]+" --base="+args[3]+" --namespace="+ns+" --confirm="+first.Digest)
	summary := filepath.Join(t.TempDir(), "summary.md")
	iv.env["GITHUB_ACTIONS"], iv.env["GITHUB_STEP_SUMMARY"] = "true", summary
	out, _, code := iv.live(t, append([]string{"--dry-run"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	contains(t, out, "plan digest: "+first.Digest+" (1 step(s) on context "+env.Context,
		"pins PersistentVolumeClaim "+ns+"/data at UID "+string(pvc.UID)+", resourceVersion "+pvc.ResourceVersion,
		"carry out exactly this plan, without asking (refused if anything in it changed): "+first.Command)
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	contains(t, string(md), "Plan digest "+first.Digest+" (1 step(s)); carry out exactly this plan, refused if anything in it changed:\n```\n"+first.Command+"\n```")
}

// A plan that changed between the dry run and --confirm is refused with exit 3, naming what
// changed and the new digest, and nothing is carried out; the new plan, reviewed, is carried
// out.
func TestConfirmRefusesChangedPlan(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	cases := []struct {
		name   string
		change func(t *testing.T, ns string) []string // changes the cluster; returns the connection flags of the --confirm run
		want   func(ns string) string
	}{
		{"resourceVersion bumped", func(t *testing.T, ns string) []string {
			patch := []byte(`{"metadata":{"labels":{"touched":"yes"}}}`)
			if _, err := kc.Kube.CoreV1().PersistentVolumeClaims(ns).Patch(ctx, "data", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
				t.Fatal(err)
			}
			return nil
		}, func(ns string) string { return "PersistentVolumeClaim " + ns + "/data changed: resourceVersion " }},
		{"pod created", func(t *testing.T, ns string) []string {
			// Bound to the node: pvc-protection counts only scheduled pods as using a claim.
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "late", Namespace: ns}, Spec: corev1.PodSpec{
				NodeName: incident.NodeName, Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
				Containers: []corev1.Container{{Name: "c", Image: "busybox", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
				Volumes:    []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}},
			}}
			if _, err := kc.Kube.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			return nil
		}, func(ns string) string { return "Pod " + ns + "/late is new in the plan" }},
		{"other context", func(t *testing.T, _ string) []string {
			return []string{"--kubeconfig", otherContext(t, "standby"), "--context", "standby"}
		}, func(string) string { return `the connection is context "standby" (` }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ns, args := retainedClaim(t, "confirmchanged")
			iv := invocation{env: map[string]string{"XDG_CACHE_HOME": t.TempDir()}}
			c := iv.reviewed(t, args...)
			conn := tc.change(t, ns)
			if conn == nil {
				conn = []string{"--kubeconfig", env.Kubeconfig, "--context", env.Context}
			}
			out, errOut, code := iv.raw(t, append(append(conn, args...), "--confirm="+c.Digest)...)
			if code != 3 {
				t.Fatalf("exit %d, want 3\n%s\n%s", code, out, errOut)
			}
			contains(t, errOut, "error: --confirm refused: the plan is not the one reviewed ("+c.Digest+"): "+tc.want(ns), "nothing was carried out. The plan now has digest sha256:")
			contains(t, out, "refused all steps", "verdict: REFUSED (exit 3)")
			if strings.Contains(out, "done stage") || strings.Contains(out, "carry out exactly this plan") {
				t.Errorf("a step was carried out, or a refusal offers to carry out the new plan unreviewed:\n%s", out)
			}
			if _, err := kc.Kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "data", metav1.GetOptions{}); err != nil {
				t.Fatalf("claim gone after a refusal: %v", err)
			}
		})
	}
}

// Without the record of the plan reviewed (the dry run ran elsewhere), the refusal cannot
// name what changed, and says so; a matching digest then carries out the plan.
func TestConfirmWithoutRecord(t *testing.T) {
	needEnv(t)
	ns, args := retainedClaim(t, "confirmnorecord")
	c := invocation{env: map[string]string{"XDG_CACHE_HOME": t.TempDir()}}.reviewed(t, args...)
	patch := []byte(`{"metadata":{"labels":{"touched":"yes"}}}`)
	if _, err := kc.Kube.CoreV1().PersistentVolumeClaims(ns).Patch(context.Background(), "data", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	elsewhere := invocation{env: map[string]string{"XDG_CACHE_HOME": t.TempDir()}}
	out, errOut, code := elsewhere.carryOut(t, c)
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, out, errOut)
	}
	contains(t, errOut, "no record of the plan reviewed is on this machine, so what changed cannot be named")

	out, errOut, code = elsewhere.carryOut(t, elsewhere.reviewed(t, args...))
	if code != 0 {
		t.Fatalf("reviewed again: exit %d\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "done stage 4 (delete by hand) of PersistentVolumeClaim "+ns+"/data")
	if strings.Contains(out, "carry out exactly this plan") {
		t.Errorf("a run that carried out its plan offers to carry it out again:\n%s", out)
	}
	claimGone(t, ns, "data")
}

// Without a terminal and without --confirm nothing is carried out, --yes included: one line
// says to review the dry run and pass its digest. A malformed digest, or --confirm with
// --dry-run, is bad input. On a terminal --yes keeps its meaning.
func TestNoTerminalCarriesOutNothing(t *testing.T) {
	needEnv(t)
	ns, args := retainedClaim(t, "confirmnotty")
	for _, extra := range [][]string{nil, {"--yes"}} {
		out, errOut, code := run(t, append(args, extra...)...)
		if code != 3 || out != "" {
			t.Fatalf("%v: exit %d, want 3 and no result\n%s\n%s", extra, code, out, errOut)
		}
		contains(t, errOut, "run with --dry-run to review the plan, then pass the digest it prints as --confirm=sha256:<hex>; nothing was carried out")
		if strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: want one line\n%s", extra, errOut)
		}
	}
	for _, bad := range [][]string{{"--confirm=sha256:abc"}, {"--dry-run", "--confirm=sha256:" + strings.Repeat("a", 64)}} {
		if _, errOut, code := run(t, append(args, bad...)...); code != 3 {
			t.Errorf("%v: exit %d, want 3\n%s", bad, code, errOut)
		}
	}
	if _, err := kc.Kube.CoreV1().PersistentVolumeClaims(ns).Get(context.Background(), "data", metav1.GetOptions{}); err != nil {
		t.Fatalf("claim gone without confirmation: %v", err)
	}
	// On a terminal, --yes still carries out the steps without asking.
	out, errOut, code := invocation{terminal: true}.live(t, append(args, "--yes")...)
	if code != 0 || strings.Contains(errOut, "type yes") {
		t.Fatalf("--yes on a terminal: exit %d\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "done stage 4 (delete by hand) of PersistentVolumeClaim "+ns+"/data")
	claimGone(t, ns, "data")
}

// otherContext writes a kubeconfig holding the test cluster's context also under name: the
// same cluster reached through another context.
func otherContext(t *testing.T, name string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(env.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Contexts[name] = cfg.Contexts[env.Context].DeepCopy()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// claimGone waits until claim ns/name is deleted (kube-controller-manager's pvc-protection
// lets an unused claim go).
func claimGone(t *testing.T, ns, name string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := kc.Kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("claim %s/%s not deleted: %v", ns, name, err)
	}
}

// A pod that mounts two retained claims is in the confirmed plan once, evicted under the first
// claim; under the second, the step finds it replaced by its controller without the mounts.
// That change is the plan's own doing, so the run goes on and deletes both claims.
func TestConfirmPodOfTwoClaims(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	ns := namespace(t, "confirmtwo")
	liveKS(t, ns, "apps", "./k8s/"+ns)
	optOut := map[string]string{"kustomize.toolkit.fluxcd.io/prune": "disabled"}
	liveClaim(t, ns, "data", optOut, false)
	liveClaim(t, ns, "logs", optOut, false)
	ss := statefulSetMounting(ns, "db", "data")
	ss.Spec.Template.Spec.Volumes = append(ss.Spec.Template.Spec.Volumes,
		corev1.Volume{Name: "logs", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "logs"}}})
	ss.Spec.Template.Spec.Containers[0].VolumeMounts = append(ss.Spec.Template.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "logs", MountPath: "/logs"})
	if _, err := kc.Kube.AppsV1().StatefulSets(ns).Create(ctx, ss, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	old := waitPod(t, ns, "db-0", "")
	bind := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "db-0", Namespace: ns}, Target: corev1.ObjectReference{Kind: "Node", Name: incident.NodeName}}
	if err := kc.Kube.CoreV1().Pods(ns).Bind(ctx, bind, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ann := "kustomize.toolkit.fluxcd.io/prune: disabled"
	r := gittest.New(t, map[string]string{"k8s/" + ns + "/claim.yaml": claim(ns, "data", ann) + "---\n" + claim(ns, "logs", ann)})
	base := r.Git("rev-parse", "HEAD")
	r.Write(map[string]string{"k8s/" + ns + "/claim.yaml": "", "k8s/" + ns + "/settings.yaml": configMap(ns, "settings")})
	drainTemplate(t, ns, "db")
	standInKubelet(t, old)

	out, errOut, code := confirmed(t, "--repo", r.Dir, "--base", base, "-n", ns)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "done stage 2 (drain) of PersistentVolumeClaim "+ns+"/data: evict pod db-0",
		"done stage 2 (drain) of PersistentVolumeClaim "+ns+"/logs: evict pod db-0",
		"done stage 4 (delete by hand) of PersistentVolumeClaim "+ns+"/logs")
	claimGone(t, ns, "data")
	claimGone(t, ns, "logs")
}

// The recipe docs/safe-retire.md gives for checking a digest reproduces confirm.digest from a
// real dry run's json output, saved as it is printed.
func TestDigestRecipeOnRealPlan(t *testing.T) {
	needEnv(t)
	_, args := retainedClaim(t, "digestrecipe")
	iv := invocation{env: map[string]string{"XDG_CACHE_HOME": t.TempDir()}}
	out, errOut, code := iv.live(t, append([]string{"--dry-run", "-o", "json"}, args...)...)
	var res saferetire.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Confirm == nil || len(res.Confirm.Plan.Steps) == 0 {
		t.Fatalf("dry run (exit %d, %v) offers no plan\n%s\n%s", code, err, out, errOut)
	}
	if got := saferetire.DigestRecipe(t, []byte(out)); got != res.Confirm.Digest {
		t.Fatalf("the documented recipe gives %s, confirm.digest is %s, on\n%s", got, res.Confirm.Digest, out)
	}
}
