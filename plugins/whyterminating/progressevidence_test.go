package whyterminating_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// installKarpenterIn replays Karpenter's install in its own namespace ns (so that tests do not
// share its pods): the NodeClaim CRD, the karpenter service account with rights on nodeclaims
// and their status, the running controller, and the leader-election lease its pod holds,
// last renewed at renewed.
func installKarpenterIn(t *testing.T, ns string, renewed time.Time) schema.GroupVersionResource {
	t.Helper()
	ctx := context.Background()
	eventually(t, "an earlier nodeclaims.karpenter.sh to be gone", func(ctx context.Context) (bool, error) {
		_, err := kc.Dynamic.Resource(crdGVR).Get(ctx, "nodeclaims.karpenter.sh", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	ensureNamespace(t, ns)
	gvr := applyCRD(t, crdSpec{group: "karpenter.sh", kind: "NodeClaim", plural: "nodeclaims", versions: []string{"v1"}, status: true})
	grantClusterRole(t, "karpenter-core-"+ns, []rbacv1.PolicyRule{
		{APIGroups: []string{"karpenter.sh"}, Resources: []string{"nodeclaims", "nodeclaims/status"}, Verbs: []string{"create", "delete", "update", "patch"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "create", "update"}},
	}, ns, "karpenter", "")
	createWorkload(t, workloadSpec{ns: ns, name: "karpenter", sa: "karpenter", replicas: 1, ready: true})
	t.Cleanup(func() {
		_ = kc.Kube.AppsV1().Deployments(ns).Delete(context.Background(), "karpenter", metav1.DeleteOptions{})
	})
	pods, err := kc.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=karpenter"})
	if err != nil || len(pods.Items) == 0 {
		t.Fatalf("karpenter's pod: %v", err)
	}
	holder := pods.Items[0].Name + "_8f3c2a1e-5d4b-4c7a-9e21-0b6f4d2c9a17"
	duration := int32(15)
	at := metav1.NewMicroTime(renewed)
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "karpenter-leader-election", Namespace: ns},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &duration, AcquireTime: &at, RenewTime: &at}}
	if _, err := kc.Kube.CoordinationV1().Leases(ns).Create(ctx, lease, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kc.Kube.CoordinationV1().Leases(ns).Delete(context.Background(), lease.Name, metav1.DeleteOptions{})
	})
	return gvr
}

// observeDeletion has the controller write what Karpenter writes while it drains, with the
// generation the deletion request set as status.observedGeneration.
func observeDeletion(t *testing.T, gvr schema.GroupVersionResource, name string) {
	t.Helper()
	ctx := context.Background()
	time.Sleep(1100 * time.Millisecond)
	obj, err := kc.Dynamic.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Format(time.RFC3339)
	patch, _ := json.Marshal(map[string]any{"status": map[string]any{"observedGeneration": obj.GetGeneration(),
		"conditions": []any{map[string]any{"type": "Drained", "status": "Unknown", "reason": "Draining", "message": "Draining the node", "lastTransitionTime": now}}}})
	if _, err := kc.Dynamic.Resource(gvr).Patch(ctx, name, "application/merge-patch+json", patch, metav1.PatchOptions{FieldManager: "karpenter"}, "status"); err != nil {
		t.Fatal(err)
	}
}

// A NodeClaim that Karpenter drains, with its leader lease renewed a moment ago and the
// deletion's generation observed, is DELETING on one model of progress whose every piece of
// evidence is printed and typed in JSON (replays
// https://github.com/kubernetes-sigs/karpenter/issues/1839, a NodeClaim drained within its
// terminationGracePeriod).
func TestProgressEvidenceLeaseAndGeneration(t *testing.T) {
	needEnv(t)
	gvr := installKarpenterIn(t, "karpenter-drain", time.Now())
	createStuck(t, gvr, "NodeClaim", "", "default-q7w5r", "karpenter.sh/termination", nil, map[string]any{"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}})
	observeDeletion(t, gvr, "default-q7w5r")
	out, _, code := run(t, "nodeclaims.karpenter.sh", "default-q7w5r")
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, out)
	}
	wantAll(t, out, []string{
		"deleting, not stuck",
		"evidence: deployments.apps/karpenter -n karpenter-drain, which removes karpenter.sh/termination, is running (1/1 ready)",
		"evidence: leases.coordination.k8s.io/karpenter-leader-election -n karpenter-drain, held by its pod karpenter-",
		"evidence: its controller observed generation 2, the one the deletion request set (status.observedGeneration)",
		"verdict: DELETING (exit 0)",
	}, []string{"not progressing", "last resort"})
	js, _, _ := run(t, "nodeclaims.karpenter.sh", "default-q7w5r", "-o", "json")
	var r struct {
		Objects []struct {
			ProgressEvidence []struct {
				Kind    string `json:"kind"`
				Against bool   `json:"against"`
			} `json:"progressEvidence"`
		} `json:"objects"`
	}
	if err := json.Unmarshal([]byte(js), &r); err != nil || len(r.Objects) != 1 {
		t.Fatalf("json: %v\n%s", err, js)
	}
	kinds := map[string]bool{}
	for _, p := range r.Objects[0].ProgressEvidence {
		kinds[p.Kind] = !p.Against
	}
	for _, k := range []string{"remover-running", "lease-renewed", "status-write", "condition-transition", "observed-generation"} {
		if !kinds[k] {
			t.Errorf("progressEvidence lacks %q for: %v", k, kinds)
		}
	}
}

// The same drain, but the lease Karpenter's pod holds was last renewed ten minutes ago: the pod
// runs and its last status write is fresh, yet the controller stopped acting (the failure of
// https://github.com/minio/directpv/issues/595 and
// https://github.com/ovn-kubernetes/ovn-kubernetes/issues/3070: a controller whose lease
// renewal fails stops while its pod still runs). Not DELETING: STUCK, with that evidence.
func TestProgressEvidenceLeaseExpired(t *testing.T) {
	needEnv(t)
	gvr := installKarpenterIn(t, "karpenter-stale", time.Now().Add(-10*time.Minute))
	createStuck(t, gvr, "NodeClaim", "", "default-z9k3m", "karpenter.sh/termination", nil, map[string]any{"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}})
	observeDeletion(t, gvr, "default-z9k3m")
	out, _, code := run(t, "nodeclaims.karpenter.sh", "default-z9k3m")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	wantAll(t, out, []string{
		"not progressing: leases.coordination.k8s.io/karpenter-leader-election -n karpenter-stale, held by its pod karpenter-",
		"was last renewed 10m ago (lease duration 15s): the remover runs but has stopped acting",
		"verdict: STUCK (exit 1)",
	}, []string{"deleting, not stuck"})
}
