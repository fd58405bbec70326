package whyterminating_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// installKarpenter replays what Karpenter's chart puts in a cluster (charts/karpenter-core in
// kubernetes-sigs/karpenter): the NodeClaim CRD with a status subresource, service account
// karpenter in kube-system, the karpenter-core ClusterRole that may write nodeclaims and their
// status, and the running controller.
func installKarpenter(t *testing.T) schema.GroupVersionResource {
	t.Helper()
	gvr := applyCRD(t, crdSpec{group: "karpenter.sh", kind: "NodeClaim", plural: "nodeclaims", versions: []string{"v1"}, status: true,
		labels: map[string]string{"app.kubernetes.io/name": "karpenter", "app.kubernetes.io/managed-by": "Helm"}})
	grantClusterRole(t, "karpenter-core", []rbacv1.PolicyRule{
		{APIGroups: []string{"karpenter.sh"}, Resources: []string{"nodepools", "nodepools/status", "nodeclaims", "nodeclaims/status"}, Verbs: []string{"create", "delete", "update", "patch"}},
		{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"create", "patch", "delete"}},
		{APIGroups: []string{""}, Resources: []string{"pods/eviction"}, Verbs: []string{"create"}},
	}, "kube-system", "karpenter", "")
	createWorkload(t, workloadSpec{ns: "kube-system", name: "karpenter", sa: "karpenter", replicas: 1, ready: true})
	return gvr
}

// drainingNodeClaim creates a NodeClaim held by karpenter.sh/termination, deletes it, and has
// the controller write what Karpenter writes while it drains: Drained=Unknown (Draining).
func drainingNodeClaim(t *testing.T, gvr schema.GroupVersionResource, name string) *unstructured.Unstructured {
	t.Helper()
	ctx := context.Background()
	createStuck(t, gvr, "NodeClaim", "", name, "karpenter.sh/termination", map[string]string{"karpenter.sh/nodepool": "default"},
		map[string]any{"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}})
	// Timestamps have a precision of one second, and a write in the second of the deletion
	// request is not counted as work after it: Karpenter's first status write comes later.
	time.Sleep(1100 * time.Millisecond)
	now := time.Now().UTC().Format(time.RFC3339)
	patch := `{"status":{"providerID":"aws:///eu-central-1c/i-0bbed26474395ec00","conditions":[{"type":"Drained","status":"Unknown","reason":"Draining","message":"Draining the node","lastTransitionTime":"` + now + `"}]}}`
	obj, err := kc.Dynamic.Resource(gvr).Patch(ctx, name, "application/merge-patch+json", []byte(patch), metav1.PatchOptions{FieldManager: "karpenter"}, "status")
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// A NodeClaim whose running Karpenter drains the node and writes its status is being deleted,
// not stuck (replays https://github.com/kubernetes-sigs/karpenter/issues/1839, a NodeClaim
// deleted with a terminationGracePeriod while Karpenter drains it): exit 0, no finalizer strip.
// The same NodeClaim with Karpenter's repeating Warning FailedDraining event (replays
// https://github.com/kubernetes-sigs/karpenter/issues/3144) is stuck.
func TestRunningControllerMakingProgressIsDeleting(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	gvr := installKarpenter(t)
	drainingNodeClaim(t, gvr, "default-4g2nn")
	out, _, code := run(t, "nodeclaims.karpenter.sh", "default-4g2nn")
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, out)
	}
	wantAll(t, out, []string{
		"nodeclaims.karpenter.sh/default-4g2nn Deleting for",
		"condition Drained=Unknown: Draining the node",
		"evidence: deployments.apps/karpenter -n kube-system, which removes karpenter.sh/termination, is running (1/1 ready)",
		"evidence: karpenter (status) wrote to the object",
		"verdict: DELETING (exit 0)",
	}, []string{"last resort", "STUCK"})

	obj := drainingNodeClaim(t, gvr, "default-8xk2p")
	now := metav1.Now()
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "default-8xk2p.failed-draining", Namespace: metav1.NamespaceDefault},
		InvolvedObject: corev1.ObjectReference{APIVersion: "karpenter.sh/v1", Kind: "NodeClaim", Name: obj.GetName(), UID: obj.GetUID()},
		Type:           corev1.EventTypeWarning, Reason: "FailedDraining", Message: "Failed to drain node, 2 pods are waiting to be evicted",
		Source: corev1.EventSource{Component: "karpenter"}, FirstTimestamp: now, LastTimestamp: now, Count: 42}
	if _, err := kc.Kube.CoreV1().Events(metav1.NamespaceDefault).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kc.Kube.CoreV1().Events(metav1.NamespaceDefault).Delete(context.Background(), ev.Name, metav1.DeleteOptions{})
	})
	out, _, code = run(t, "nodeclaims.karpenter.sh", "default-8xk2p")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	wantAll(t, out, []string{
		"nodeclaims.karpenter.sh/default-8xk2p Terminating for",
		"event Warning FailedDraining from karpenter (x42): Failed to drain node, 2 pods are waiting to be evicted",
		"read its logs",
		"verdict: STUCK (exit 1)",
	}, []string{"deleting, not stuck"})
}

// Rook's operator states what a CephCluster's deletion waits for, in a DeletionIsBlocked
// condition and a ReconcileFailed event: "will not be deleted until all dependents are removed:
// CephBlockPool: [replicapool]" (replays https://github.com/rook/rook/issues/17059 and the
// condition Rook's ReportDeletionBlockedDueToDependents writes). The running operator's own
// word is shown, and the named pool is the blocker, not "no blocker found, read its logs".
func TestOperatorNamesDependents(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	ensureNamespace(t, "rook-ceph")
	clusterGVR := applyCRD(t, crdSpec{group: "ceph.rook.io", kind: "CephCluster", plural: "cephclusters", namespaced: true, versions: []string{"v1"}, status: true})
	poolGVR := applyCRD(t, crdSpec{group: "ceph.rook.io", kind: "CephBlockPool", plural: "cephblockpools", namespaced: true, versions: []string{"v1"}, status: true})
	grantClusterRole(t, "rook-ceph-global", []rbacv1.PolicyRule{
		{APIGroups: []string{"ceph.rook.io"}, Resources: []string{"cephclusters", "cephclusters/status", "cephclusters/finalizers", "cephblockpools", "cephblockpools/status", "cephblockpools/finalizers"}, Verbs: []string{"get", "list", "watch", "create", "update", "delete", "patch"}},
	}, "rook-ceph", "rook-ceph-system", "")
	createWorkload(t, workloadSpec{ns: "rook-ceph", name: "rook-ceph-operator", sa: "rook-ceph-system", replicas: 1, ready: true})
	pool := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "ceph.rook.io/v1", "kind": "CephBlockPool",
		"metadata": map[string]any{"name": "replicapool"}, "spec": map[string]any{"failureDomain": "host", "replicated": map[string]any{"size": int64(3)}}}}
	if _, err := kc.Dynamic.Resource(poolGVR).Namespace("rook-ceph").Create(ctx, pool, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kc.Dynamic.Resource(poolGVR).Namespace("rook-ceph").Delete(context.Background(), "replicapool", metav1.DeleteOptions{})
	})
	createStuck(t, clusterGVR, "CephCluster", "rook-ceph", "rook-ceph", "cephcluster.ceph.rook.io", nil, map[string]any{"dataDirHostPath": "/var/lib/rook"})
	msg := `CephCluster "rook-ceph/rook-ceph" will not be deleted until all dependents are removed: CephBlockPool: [replicapool]`
	now := time.Now().UTC().Format(time.RFC3339)
	patch := `{"status":{"phase":"Deleting","message":"Deleting the CephCluster","conditions":[{"type":"DeletionIsBlocked","status":"True","reason":"ObjectHasDependents","message":` + quoteJSON(msg) + `,"lastTransitionTime":"` + now + `"}]}}`
	obj, err := kc.Dynamic.Resource(clusterGVR).Namespace("rook-ceph").Patch(ctx, "rook-ceph", "application/merge-patch+json", []byte(patch), metav1.PatchOptions{FieldManager: "rook"}, "status")
	if err != nil {
		t.Fatal(err)
	}
	ts := metav1.Now()
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "rook-ceph.reconcile-failed", Namespace: "rook-ceph"},
		InvolvedObject: corev1.ObjectReference{APIVersion: "ceph.rook.io/v1", Kind: "CephCluster", Namespace: "rook-ceph", Name: "rook-ceph", UID: obj.GetUID()},
		Type:           corev1.EventTypeWarning, Reason: "ReconcileFailed", Message: `failed to reconcile CephCluster "rook-ceph/rook-ceph". ` + msg,
		Source: corev1.EventSource{Component: "rook-ceph-cluster-controller"}, FirstTimestamp: ts, LastTimestamp: ts, Count: 7}
	if _, err := kc.Kube.CoreV1().Events("rook-ceph").Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kc.Kube.CoreV1().Events("rook-ceph").Delete(context.Background(), ev.Name, metav1.DeleteOptions{})
	})
	out, _, code := run(t, "cephclusters.ceph.rook.io", "rook-ceph", "-n", "rook-ceph")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	wantAll(t, out, []string{
		"condition DeletionIsBlocked: " + msg,
		"status.phase: Deleting",
		"event Warning ReconcileFailed from rook-ceph-cluster-controller (x7): failed to reconcile",
		"blocked by cephblockpools.ceph.rook.io/replicapool -n rook-ceph: named by the object's own condition DeletionIsBlocked as a dependent its deletion waits for",
		"exists and is not being deleted",
		"fix 1: The object's own status names the dependents its controller waits for",
		"controller: deployments.apps/rook-ceph-operator -n rook-ceph ready 1/1",
		"verdict: STUCK (exit 1)",
	}, []string{"no blocker found", "last resort"})
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// A NodeClaim left with karpenter.sh/termination after Karpenter was uninstalled (replays
// https://github.com/kubernetes-sigs/karpenter/issues/2169): stripping the finalizer is the last
// resort, and its cost names the cloud instance by the provider ID the NodeClaim records.
func TestStripNamesCloudInstance(t *testing.T) {
	needEnv(t)
	// An earlier test's NodeClaim CRD may still be going away, and its Karpenter Deployment
	// still runs: uninstall it, as the report's operator had.
	if err := kc.Kube.AppsV1().Deployments("kube-system").Delete(context.Background(), "karpenter", metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	eventually(t, "the previous nodeclaims.karpenter.sh and deployments.apps/karpenter to be gone", func(ctx context.Context) (bool, error) {
		_, err := kc.Dynamic.Resource(crdGVR).Get(ctx, "nodeclaims.karpenter.sh", metav1.GetOptions{})
		_, derr := kc.Kube.AppsV1().Deployments("kube-system").Get(ctx, "karpenter", metav1.GetOptions{})
		return apierrors.IsNotFound(err) && apierrors.IsNotFound(derr), nil
	})
	gvr := applyCRD(t, crdSpec{group: "karpenter.sh", kind: "NodeClaim", plural: "nodeclaims", versions: []string{"v1"}, status: true})
	drainingNodeClaim(t, gvr, "general-purpose-x7m2q")
	out, _, code := run(t, "nodeclaims.karpenter.sh", "general-purpose-x7m2q")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	wantAll(t, out, []string{
		"controller: none found",
		// Nothing of Karpenter's install is left but its CRD: uninstalled, not stopped
		// (docs/why-terminating.md, "A product uninstalled, not stopped"); but the status
		// records the instance the controller made, which its cleanup terminates, so the
		// reinstall comes first ("An uninstalled product's cleanup of what it made") and the
		// strip after it, with the instance it leaves.
		"fix 1: Reinstall the product first, though it was uninstalled",
		"last resort 2: If the product is not to be installed again: Remove finalizer karpenter.sh/termination by hand: nothing of the product's install is left but its type definitions",
		"cost: left behind: the cloud instance aws:///eu-central-1c/i-0bbed26474395ec00 keeps running (and billing) with nothing to terminate it (from status.providerID; Karpenter's NodeClaim API (karpenter.sh/v1, status.providerID))",
	}, []string{"whatever the controller would have cleaned up"})
}
