package saferetire_test

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// retainedRepo declares claim data in ns under ./k8s/<ns>, protected, then removes it in the
// working tree: stage 3 of a retirement.
func retainedRepo(t *testing.T, ns string, more ...string) (*gittest.Repo, string) {
	files := map[string]string{"k8s/" + ns + "/claim.yaml": claim(ns, "data", "kustomize.toolkit.fluxcd.io/prune: disabled")}
	for _, dir := range more {
		files["k8s/"+dir+"/settings.yaml"] = configMap(ns, dir)
	}
	r := gittest.New(t, files)
	base := r.Git("rev-parse", "HEAD")
	r.Write(map[string]string{"k8s/" + ns + "/claim.yaml": "", "k8s/" + ns + "/settings.yaml": configMap(ns, "settings")})
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
	_, errOut, code := invocation{}.raw(t, "--kubeconfig", env.Kubeconfig, "--repo", r.Dir, "--base", base, "-n", ns, "--yes")
	if code != 3 || !strings.Contains(errOut, "give --context explicitly") {
		t.Fatalf("without --context: exit %d %s", code, errOut)
	}
	// Not confirmed: declined, nothing touched.
	out, _, code := invocation{stdin: "no\n", terminal: true}.live(t, "--repo", r.Dir, "--base", base, "-n", ns)
	if code != 0 || !strings.Contains(out, "declined stage 4") {
		t.Fatalf("declined: exit %d\n%s", code, out)
	}
	if _, err := kc.Kube.CoreV1().PersistentVolumeClaims(ns).Get(context.Background(), "data", metav1.GetOptions{}); err != nil {
		t.Fatalf("claim gone after a refusal: %v", err)
	}
	out, errOut, code = invocation{stdin: "yes\n", terminal: true}.live(t, "--repo", r.Dir, "--base", base, "-n", ns)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "done stage 4 (delete by hand) of PersistentVolumeClaim "+ns+"/data: kubectl --kubeconfig="+env.Kubeconfig+" --context="+env.Context+" -n "+ns+" delete persistentvolumeclaim data")
	contains(t, errOut, "type yes to carry out this step")
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := kc.Kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "data", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("claim not deleted: %v", err)
	}
}

// A precondition that fails right before acting stops the run: a pod that no controller owns
// still mounts the claim, so nothing drained it.
func TestExecuteStopsOnConsumer(t *testing.T) {
	needEnv(t)
	ns := namespace(t, "retire4busy")
	liveKS(t, ns, "apps", "./k8s/"+ns)
	liveClaim(t, ns, "data", map[string]string{"kustomize.toolkit.fluxcd.io/prune": "disabled"}, true)
	r, base := retainedRepo(t, ns)
	out, _, code := confirmed(t, "--repo", r.Dir, "--base", base, "-n", ns)
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	contains(t, out, "STOPPED at stage 2 (drain) of PersistentVolumeClaim "+ns+"/data: evict pod data-user",
		"pod "+ns+"/data-user mounts PersistentVolumeClaim "+ns+"/data and no controller owns it: nothing in git drained it")
	if _, err := kc.Kube.CoreV1().Pods(ns).Get(context.Background(), "data-user", metav1.GetOptions{}); err != nil {
		t.Fatalf("a pod no controller owns was deleted: %v", err)
	}
	if _, err := kc.Kube.CoreV1().PersistentVolumeClaims(ns).Get(context.Background(), "data", metav1.GetOptions{}); err != nil {
		t.Fatalf("claim gone although a pod mounts it: %v", err)
	}
}

// Stage 2 on the real control plane: a StatefulSet with updateStrategy OnDelete keeps its old
// pod, which still mounts the claim after the drained template is applied. While the live
// template still mounts the claim the pod is left alone; once it does not, the pod is evicted
// (a stand-in kubelet confirms its termination), the controller recreates it without the
// mount, and stage 4 deletes the claim.
func TestExecuteStage2(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	ns := namespace(t, "retire2")
	old := leftOverPod(t, ns)
	r, base := retainedRepo(t, ns)

	out, _, code := confirmed(t, "--repo", r.Dir, "--base", base, "-n", ns)
	if code != 1 {
		t.Fatalf("template still mounts: exit %d\n%s", code, out)
	}
	contains(t, out, "STOPPED at stage 2 (drain) of PersistentVolumeClaim "+ns+"/data: evict pod db-0",
		"its controller StatefulSet.apps db still mounts claim data in its pod template and would recreate the pod with it")

	drainTemplate(t, ns, "db")
	standInKubelet(t, old)
	out, errOut, code := confirmed(t, "--repo", r.Dir, "--base", base, "-n", ns)
	if code != 0 {
		t.Fatalf("drained: exit %d\n%s\n%s", code, out, errOut)
	}
	contains(t, out,
		"done stage 2 (drain) of PersistentVolumeClaim "+ns+"/data: evict pod db-0, left over from before the drain: "+evictCommand(ns, "db-0"),
		"done stage 4 (delete by hand) of PersistentVolumeClaim "+ns+"/data")
	contains(t, errOut, "lost: the pod's running process; its controller recreates it without the mount (a PodDisruptionBudget that refuses stops the run)")
	if p := waitPod(t, ns, "db-0", old.UID); len(p.Spec.Volumes) > 0 && p.Spec.Volumes[0].PersistentVolumeClaim != nil {
		t.Errorf("the recreated pod mounts %v", p.Spec.Volumes)
	}
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := kc.Kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "data", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("claim not deleted: %v", err)
	}
}

// evictCommand is the by-hand eviction stage 2 prints for pod ns/name.
func evictCommand(ns, name string) string {
	return `echo '{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"` + name + `","namespace":"` + ns + `"}}' | kubectl --kubeconfig=` + env.Kubeconfig + ` --context=` +
		env.Context + " create --raw /api/v1/namespaces/" + ns + "/pods/" + name + "/eviction -f -"
}

// leftOverPod sets up stage 2 in ns: a Kustomization, the retained claim data and StatefulSet
// db (updateStrategy OnDelete) whose pod db-0, bound to the node, mounts it; it returns db-0.
func leftOverPod(t *testing.T, ns string) *corev1.Pod {
	t.Helper()
	liveKS(t, ns, "apps", "./k8s/"+ns)
	liveClaim(t, ns, "data", map[string]string{"kustomize.toolkit.fluxcd.io/prune": "disabled"}, false)
	ctx := context.Background()
	if _, err := kc.Kube.AppsV1().StatefulSets(ns).Create(ctx, statefulSetMounting(ns, "db", "data"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	old := waitPod(t, ns, "db-0", "")
	bind := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "db-0", Namespace: ns}, Target: corev1.ObjectReference{Kind: "Node", Name: incident.NodeName}}
	if err := kc.Kube.CoreV1().Pods(ns).Bind(ctx, bind, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return old
}

// drainTemplate is Flux applying the drained revision: StatefulSet name's template no longer
// mounts the claim; OnDelete leaves its pods as they were.
func drainTemplate(t *testing.T, ns, name string) {
	t.Helper()
	ctx := context.Background()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := kc.Kube.AppsV1().StatefulSets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Spec.Template.Spec.Volumes = nil
		cur.Spec.Template.Spec.Containers[0].VolumeMounts = nil
		_, err = kc.Kube.AppsV1().StatefulSets(ns).Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// standInKubelet does the kubelet's part for pod: once it is deleted, it confirms the
// termination; it stops when the test ends.
func standInKubelet(t *testing.T, pod *corev1.Pod) {
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	pods := kc.Kube.CoreV1().Pods(pod.Namespace)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
			p, err := pods.Get(context.Background(), pod.Name, metav1.GetOptions{})
			if err == nil && p.UID == pod.UID && p.DeletionTimestamp != nil {
				zero := int64(0)
				_ = pods.Delete(context.Background(), pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
			}
		}
	}()
}

// statefulSetMounting is a one-replica StatefulSet with updateStrategy OnDelete whose pods
// mount claim.
func statefulSetMounting(ns, name, claim string) *appsv1.StatefulSet {
	one := int32(1)
	labels := map[string]string{"app": name}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.StatefulSetSpec{
			Replicas: &one, ServiceName: name,
			Selector:       &metav1.LabelSelector{MatchLabels: labels},
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "db", Image: "postgres:17", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/postgresql"}}}},
					Volumes:    []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}},
				},
			},
		},
	}
}

// waitPod waits for pod ns/name to exist with a UID other than not (kube-controller-manager
// creates it).
func waitPod(t *testing.T, ns, name string, not types.UID) *corev1.Pod {
	t.Helper()
	var pod *corev1.Pod
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		p, err := kc.Kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil || p.UID == not {
			return false, nil
		}
		pod = p
		return true, nil
	})
	if err != nil {
		t.Fatalf("pod %s/%s never appeared: %v", ns, name, err)
	}
	return pod
}

// A claim still in an inventory is not deleted: Flux would recreate it.
func TestExecuteStopsOnInventory(t *testing.T) {
	needEnv(t)
	ns := namespace(t, "retire4inv")
	liveKS(t, ns, "apps", "./k8s/"+ns)
	liveKS(t, ns, "other", "./k8s/"+ns+"-other", ns+"_data__PersistentVolumeClaim")
	liveClaim(t, ns, "data", map[string]string{"kustomize.toolkit.fluxcd.io/prune": "disabled"}, false)
	r, base := retainedRepo(t, ns, ns+"-other")
	out, _, code := confirmed(t, "--repo", r.Dir, "--base", base, "-n", ns)
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

// Stage 4 never uninstalls a chart as a side effect: a retained HelmRelease that is not
// suspended is refused (helm-controller's reconcileDelete uninstalls the release of a
// HelmRelease deleted unsuspended), with the command that suspends it; once it is suspended,
// the re-checked delete goes ahead and the release's objects stay.
func TestExecuteRefusesUnsuspendedHelmRelease(t *testing.T) {
	needEnv(t)
	ns := namespace(t, "retire4hr")
	liveKS(t, ns, "apps", "./k8s/"+ns)
	liveHelmRelease(t, ns, "paperless")
	storeRelease(t, ns, "paperless", 1, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: paperless\n")
	optOut := []byte(`{"metadata":{"annotations":{"kustomize.toolkit.fluxcd.io/prune":"disabled"}}}`)
	if _, err := kc.Dynamic.Resource(hrGVR).Namespace(ns).Patch(context.Background(), "paperless", types.MergePatchType, optOut, metav1.PatchOptions{}); err != nil {
		t.Fatalf("annotating: %v", err)
	}
	hr := strings.Replace(appTemplateRelease(ns, "paperless", ""), "  namespace: "+ns+"\n",
		"  namespace: "+ns+"\n  annotations:\n    kustomize.toolkit.fluxcd.io/prune: disabled\n", 1)
	r, base := removedRelease(t, ns, "paperless", hr)

	out, _, code := confirmed(t, "--repo", r.Dir, "--base", base, "-n", ns)
	contains(t, out, "STOPPED at stage 4 (delete by hand) of HelmRelease "+ns+"/paperless", "HelmRelease "+ns+"/paperless is not suspended: deleting it uninstalls its release",
		"--context="+env.Context+" -n "+ns+" patch helmrelease.helm.toolkit.fluxcd.io paperless --type=merge -p '{\"spec\":{\"suspend\":true}}'")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if _, err := kc.Dynamic.Resource(hrGVR).Namespace(ns).Get(context.Background(), "paperless", metav1.GetOptions{}); err != nil {
		t.Fatalf("HelmRelease gone after a refusal: %v", err)
	}

	patch := []byte(`{"spec":{"suspend":true}}`)
	if _, err := kc.Dynamic.Resource(hrGVR).Namespace(ns).Patch(context.Background(), "paperless", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("suspending: %v", err)
	}
	out, errOut, code := confirmed(t, "--repo", r.Dir, "--base", base, "-n", ns)
	if code != 0 {
		t.Fatalf("suspended: exit %d\n%s\n%s", code, out, errOut)
	}
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := kc.Dynamic.Resource(hrGVR).Namespace(ns).Get(ctx, "paperless", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("suspended HelmRelease not deleted: %v", err)
	}
}
