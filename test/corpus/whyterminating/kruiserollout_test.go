package whyterminating_test

import (
	"context"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Report: https://github.com/openkruise/rollouts/issues/186 ("无法删除rollout", cannot delete a
// rollout): a Kruise Rollout whose canary had completed stays Terminating after its deletion. The
// reporter read the rollout controller's logs and found only "failed to acquire lease
// kruise-rollout/71ddec2c.kruise.io ... lock is held by kruise-rollout-controller-manager-...
// and has not yet expired": the chart runs two replicas, and the logs read were the standby's.
// The maintainers: "kubectl get lease -n kruise-rollout" shows which instance is the leader, read
// its error logs; the finalizer not being removed means something in its cleanup is stuck, and
// removing it by hand (kubectl edit, or the reporter's `kubectl patch rollout ... -p
// '{"metadata":{"finalizers":[]}}' --type=merge`) clears it.
//
// Modelled on the kruise-rollout Helm chart (openkruise/charts, kruise-rollout 0.5): namespace
// kruise-rollout, the ServiceAccount kruise-rollout-controller-manager, the ClusterRole
// kruise-rollout-manager-role (abbreviated) and binding, the Deployment
// kruise-rollout-controller-manager with two replicas and leader election; the CRDs rollouts and
// batchreleases of rollouts.kruise.io. The webhook configurations are left out (the replay's pods
// answer no requests; they play no part in the report). The leader lease 71ddec2c.kruise.io, held
// and renewed by one of the two pods. The user's Deployment demo and its Rollout demo, the
// canary completed, deleted since.
func TestCorpusKruiseRolloutTerminatingWhileTheLogsReadAreTheStandbys(t *testing.T) {
	created := replay{
		crds: []crd{
			{group: "rollouts.kruise.io", kind: "Rollout", plural: "rollouts", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "rollouts.kruise.io", kind: "BatchRelease", plural: "batchreleases", namespaced: true, versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: kruise-rollout
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kruise-rollout-controller-manager
  namespace: kruise-rollout
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kruise-rollout-manager-role
rules:
- apiGroups: ["rollouts.kruise.io"]
  resources: ["rollouts", "rollouts/status", "rollouts/finalizers", "batchreleases", "batchreleases/status", "rollouthistories", "trafficroutings"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["apps"]
  resources: ["deployments", "replicasets", "statefulsets"]
  verbs: ["get", "list", "watch", "patch", "update"]
- apiGroups: [""]
  resources: ["pods", "services", "configmaps", "events"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["networking.k8s.io"]
  resources: ["ingresses"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["create", "get", "list", "update", "patch", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kruise-rollout-manager-rolebinding
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kruise-rollout-manager-role}
subjects:
- {kind: ServiceAccount, name: kruise-rollout-controller-manager, namespace: kruise-rollout}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kruise-rollout-controller-manager
  namespace: kruise-rollout
  labels: {control-plane: controller-manager}
spec:
  replicas: 2
  selector:
    matchLabels: {control-plane: controller-manager}
  template:
    metadata:
      labels: {control-plane: controller-manager}
    spec:
      serviceAccountName: kruise-rollout-controller-manager
      containers:
      - name: manager
        image: openkruise/kruise-rollout:v0.5.0
        args: ["--health-probe-bind-address=:8000", "--metrics-bind-address=127.0.0.1:8080", "--leader-elect", "--feature-gates=AdvancedDeployment=true", "--v=3"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: test-demo
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: demo
  namespace: test-demo
  labels: {app: demo}
spec:
  replicas: 3
  selector:
    matchLabels: {app: demo}
  template:
    metadata:
      labels: {app: demo}
    spec:
      containers:
      - name: demo
        image: swr.cn-north-4.myhuaweicloud.com/ops/demo:1.0.3
        ports:
        - {containerPort: 8080}
---
apiVersion: rollouts.kruise.io/v1alpha1
kind: Rollout
metadata:
  name: demo
  namespace: test-demo
  finalizers: [rollouts.kruise.io/rollout]
spec:
  objectRef:
    workloadRef: {apiVersion: apps/v1, kind: Deployment, name: demo}
  strategy:
    canary:
      steps:
      - {weight: 20, pause: {}}
      - {weight: 50, pause: {duration: 60}}
      - {weight: 100}
status:
  phase: Terminating
  message: workload deployment is completed
  canaryStatus:
    currentStepIndex: 3
    currentStepState: Completed
  conditions:
  - {type: Progressing, status: "False", reason: Completed, message: Rollout progressing has been completed, lastUpdateTime: "2023-12-11T03:40:02Z"}
`,
		deletes: []string{"Rollout/test-demo/demo"},
	}.run(t)

	// The leader lease, held and renewed by one of the controller's two pods (controller-runtime's
	// holder identity: the pod's name and a unique suffix), renewed as of the time the report was
	// made (the diagnosis below is moved on to it): the leader renews it every few seconds.
	// In the renamed mode the names are the renamed product's (renamed_test.go). The report came
	// after the Rollout had stayed Terminating for a while (its controller's logs had only the
	// lease to say): an hour.
	const stuckFor = time.Hour
	ctx := context.Background()
	renamed := renamedMap(t)
	mgr := created[renamed.Forward("Deployment/kruise-rollout/kruise-rollout-controller-manager")]
	ns := mgr.obj.GetNamespace()
	pods, err := kc.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "control-plane=controller-manager"})
	if err != nil || len(pods.Items) != 2 {
		t.Fatalf("the pods of %s: %v (%d)", mgr.key(), err, len(pods.Items))
	}
	holder, duration, now := pods.Items[1].Name+"_f4eda89f-b619-4000-86f3-3b0f6550d7ab", int32(15), metav1.NewMicroTime(time.Now().Add(stuckFor))
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: renamed.Forward("71ddec2c.kruise.io"), Namespace: ns},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &duration, AcquireTime: &now, RenewTime: &now}}
	if _, err := kc.Kube.CoordinationV1().Leases(ns).Create(ctx, lease, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kc.Kube.CoordinationV1().Leases(ns).Delete(context.Background(), lease.Name, metav1.DeleteOptions{})
	})
	leader := renamed.Reverse(pods.Items[1].Name)

	d := diagnoseAfter(t, stuckFor, "rollouts.rollouts.kruise.io", "demo", "-n", "test-demo")
	d.exit(1, "STUCK")
	f := d.finalizer("rollouts.rollouts.kruise.io/demo -n test-demo", "rollouts.kruise.io/rollout")
	d.remover(f, "deployments.apps/kruise-rollout-controller-manager -n kruise-rollout", true)
	// Of its two pods, the leader's logs are the ones that tell: the lease names it.
	d.mentions(f, "pods/"+leader+" -n kruise-rollout")
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
