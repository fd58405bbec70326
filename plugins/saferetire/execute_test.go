package saferetire_test

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// retainedRepo declares claim data in ns under ./k8s/<ns>, protected, then removes it in the
// working tree: stage 3 of a retirement.
func retainedRepo(t *testing.T, ns string, more ...string) (*gitRepo, string) {
	files := map[string]string{"k8s/" + ns + "/claim.yaml": claim(ns, "data", "kustomize.toolkit.fluxcd.io/prune: disabled")}
	for _, dir := range more {
		files["k8s/"+dir+"/settings.yaml"] = configMap(ns, dir)
	}
	r := newRepo(t, files)
	base := r.git("rev-parse", "HEAD")
	r.write(map[string]string{"k8s/" + ns + "/claim.yaml": "", "k8s/" + ns + "/settings.yaml": configMap(ns, "settings")})
	return r, base
}

// Stage 4 on the real control plane: the claim is retained, out of every inventory and no
// pod mounts it; without --dry-run and with an explicit --context the command re-checks that
// and deletes it, and kube-controller-manager's pvc-protection lets it go.
func TestExecuteStage4(t *testing.T) {
	needEnv(t)
	ns := namespace(t, "retire4")
	liveKS(t, ns, "apps", "./k8s/"+ns)
	liveClaim(t, ns, "data", map[string]string{"kustomize.toolkit.fluxcd.io/prune": "disabled"}, false)
	r, base := retainedRepo(t, ns)

	// No explicit --context: refused, nothing touched.
	_, errOut, code := invocation{}.raw(t, "--kubeconfig", env.Kubeconfig, "--repo", r.dir, "--base", base, "-n", ns, "--yes")
	if code != 3 || !strings.Contains(errOut, "give --context explicitly") {
		t.Fatalf("without --context: exit %d %s", code, errOut)
	}
	// Not confirmed: declined, nothing touched.
	out, _, code := invocation{stdin: "no\n"}.live(t, "--repo", r.dir, "--base", base, "-n", ns)
	if code != 0 || !strings.Contains(out, "declined stage 4") {
		t.Fatalf("declined: exit %d\n%s", code, out)
	}
	if _, err := kc.Kube.CoreV1().PersistentVolumeClaims(ns).Get(context.Background(), "data", metav1.GetOptions{}); err != nil {
		t.Fatalf("claim gone after a refusal: %v", err)
	}
	out, errOut, code = invocation{stdin: "yes\n"}.live(t, "--repo", r.dir, "--base", base, "-n", ns)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "done stage 4 (delete by hand) of PersistentVolumeClaim "+ns+"/data: kubectl --context="+env.Context+" -n "+ns+" delete persistentvolumeclaim data")
	contains(t, errOut, "type yes to carry out this step")
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := kc.Kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "data", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("claim not deleted: %v", err)
	}
}

// A precondition that fails right before acting stops the run: a pod still mounts the claim.
func TestExecuteStopsOnConsumer(t *testing.T) {
	needEnv(t)
	ns := namespace(t, "retire4busy")
	liveKS(t, ns, "apps", "./k8s/"+ns)
	liveClaim(t, ns, "data", map[string]string{"kustomize.toolkit.fluxcd.io/prune": "disabled"}, true)
	r, base := retainedRepo(t, ns)
	out, _, code := run(t, "--repo", r.dir, "--base", base, "-n", ns, "--yes")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	contains(t, out, "STOPPED at stage 4", "pod data-user still mounts PersistentVolumeClaim "+ns+"/data: drain it first")
	if _, err := kc.Kube.CoreV1().PersistentVolumeClaims(ns).Get(context.Background(), "data", metav1.GetOptions{}); err != nil {
		t.Fatalf("claim gone although a pod mounts it: %v", err)
	}
}

// A claim still in an inventory is not deleted: Flux would recreate it.
func TestExecuteStopsOnInventory(t *testing.T) {
	needEnv(t)
	ns := namespace(t, "retire4inv")
	liveKS(t, ns, "apps", "./k8s/"+ns)
	liveKS(t, ns, "other", "./k8s/"+ns+"-other", ns+"_data__PersistentVolumeClaim")
	liveClaim(t, ns, "data", map[string]string{"kustomize.toolkit.fluxcd.io/prune": "disabled"}, false)
	r, base := retainedRepo(t, ns, ns+"-other")
	out, _, code := run(t, "--repo", r.dir, "--base", base, "-n", ns, "--yes")
	if code != 1 || !strings.Contains(out, "Kustomization "+ns+"/other still lists "+ns+"_data__PersistentVolumeClaim") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

// --orphans lists an object kustomize-controller applied that no inventory holds, with its
// age; the seeded chain has a failing Kustomization, so the answer is UNKNOWN.
func TestOrphans(t *testing.T) {
	needEnv(t)
	ns := namespace(t, "orphans")
	cm := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"leftover","namespace":"` + ns + `","labels":{"kustomize.toolkit.fluxcd.io/name":"apps","kustomize.toolkit.fluxcd.io/namespace":"flux-system"},"annotations":{"kustomize.toolkit.fluxcd.io/prune":"disabled"}},"data":{"a":"b"}}`)
	if _, err := kc.Kube.CoreV1().ConfigMaps(ns).Patch(context.Background(), "leftover", "application/apply-patch+yaml", cm, metav1.PatchOptions{FieldManager: "kustomize-controller"}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "--orphans")
	if code != 2 {
		t.Fatalf("exit %d, want 2 (apps is not Ready)\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "ConfigMap "+ns+"/leftover, age ", "labelled for Kustomization flux-system/apps (retained: prune disabled)",
		"Kustomization flux-system/apps is Failing, not Ready at its source's revision", "verdict: UNKNOWN (exit 2)")
	if strings.Contains(out, "headlamp/headlamp") {
		t.Errorf("objects not applied by kustomize-controller are listed:\n%s", out)
	}
}
