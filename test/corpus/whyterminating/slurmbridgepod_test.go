//go:build corpusopen

// Open (corpusopen): after podnodesilent.go the node gpu-ext-07 is the blocker, "bring it back"
// first and the strip's cost names the Slurm job — but slurm-bridge-scheduler is still named the
// remover first (the finalizer's first word is "scheduler"), at equal confidence with the
// controllers that remove it; nothing in the cluster tells the two apart.

package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/SlinkyProject/slurm-bridge/issues/49 ("Pod stuck Terminating forever
// (finalizer never removed, Slurm job/GRES never released) when phase never reaches terminal"):
// slurm-bridge schedules pods through Slurm; its pod controller cancels a pod's placeholder Slurm
// job and removes scheduler.slinky.slurm.net/finalizer only once the pod's phase is Succeeded or
// Failed, which the kubelet writes after the deletion. A pod bound to a node whose kubelet no
// longer reports (crashed, unreachable, or a node without one) never gets there: it stays
// Terminating, and the Slurm job keeps the node's GPUs. The thread (open, with the root cause in
// pod_sync.go and the fix proposed: treat such a pod as terminal) leaves the way out by hand:
// cancel the Slurm job, then remove the finalizer; the node that stopped reporting is the cause.
//
// Modelled on the slurm-bridge Helm chart (helm/slurm-bridge, v0.4): namespace slinky, the
// Deployments slurm-bridge-controllers and slurm-bridge-scheduler with their ServiceAccounts and
// ClusterRoles (pods update and patch for both; bindings for the scheduler). The pod as the
// scheduler binds it (schedulerName slurm-bridge-scheduler, its Slurm job id annotation) on the
// node gpu-ext-07, whose kubelet stopped posting status (Ready Unknown); deleted since.
func TestCorpusSlurmBridgePodOnANodeWithoutAKubelet(t *testing.T) {
	replay{
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: slinky
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: slurm-bridge-controllers
  namespace: slinky
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: slurm-bridge-controllers
rules:
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["pods/status"]
  verbs: ["get", "update", "patch"]
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["get", "list", "watch", "update", "patch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: slurm-bridge-controllers
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: slurm-bridge-controllers
subjects:
- kind: ServiceAccount
  name: slurm-bridge-controllers
  namespace: slinky
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: slurm-bridge-controllers
  namespace: slinky
  labels: {app.kubernetes.io/name: slurm-bridge-controllers, app.kubernetes.io/instance: slurm-bridge, app.kubernetes.io/part-of: slurm-bridge, helm.sh/chart: slurm-bridge-0.4.0}
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: slurm-bridge-controllers, app.kubernetes.io/instance: slurm-bridge}
  template:
    metadata:
      labels: {app.kubernetes.io/name: slurm-bridge-controllers, app.kubernetes.io/instance: slurm-bridge, app.kubernetes.io/part-of: slurm-bridge}
    spec:
      serviceAccountName: slurm-bridge-controllers
      containers:
      - name: controllers
        image: ghcr.io/slinkyproject/slurm-bridge-controllers:0.4.0
        args: ["--config=/etc/slurm-bridge/config.yaml"]
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: slurm-bridge-scheduler
  namespace: slinky
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: slurm-bridge-scheduler
rules:
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["pods/binding", "bindings"]
  verbs: ["create"]
- apiGroups: [""]
  resources: ["pods/status"]
  verbs: ["patch", "update"]
- apiGroups: [""]
  resources: ["nodes", "namespaces", "persistentvolumeclaims", "persistentvolumes", "services", "replicationcontrollers"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["create", "get", "list", "update", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: slurm-bridge-scheduler
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: slurm-bridge-scheduler
subjects:
- kind: ServiceAccount
  name: slurm-bridge-scheduler
  namespace: slinky
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: slurm-bridge-scheduler
  namespace: slinky
  labels: {app.kubernetes.io/name: slurm-bridge-scheduler, app.kubernetes.io/instance: slurm-bridge, app.kubernetes.io/part-of: slurm-bridge, helm.sh/chart: slurm-bridge-0.4.0}
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: slurm-bridge-scheduler, app.kubernetes.io/instance: slurm-bridge}
  template:
    metadata:
      labels: {app.kubernetes.io/name: slurm-bridge-scheduler, app.kubernetes.io/instance: slurm-bridge, app.kubernetes.io/part-of: slurm-bridge}
    spec:
      serviceAccountName: slurm-bridge-scheduler
      containers:
      - name: scheduler
        image: ghcr.io/slinkyproject/slurm-bridge-scheduler:0.4.0
        args: ["--config=/etc/slurm-bridge/scheduler-config.yaml", "--v=2"]
---
apiVersion: v1
kind: Namespace
metadata:
  name: slurm-bridge
`,
		objects: `
apiVersion: v1
kind: Node
metadata:
  name: gpu-ext-07
  labels: {kubernetes.io/hostname: gpu-ext-07, nvidia.com/gpu.present: "true"}
spec:
  taints:
  - {key: node.kubernetes.io/unreachable, effect: NoSchedule, timeAdded: "2026-09-10T22:41:05Z"}
status:
  conditions:
  - type: Ready
    status: Unknown
    reason: NodeStatusUnknown
    message: Kubelet stopped posting node status.
    lastHeartbeatTime: "2026-09-10T22:39:51Z"
    lastTransitionTime: "2026-09-10T22:41:05Z"
---
apiVersion: v1
kind: Pod
metadata:
  name: train-llm-0
  namespace: slurm-bridge
  labels: {app: train-llm}
  annotations:
    slinky.slurm.net/partition: gpu
    slinky.slurm.net/job-id: "4512"
  finalizers: [scheduler.slinky.slurm.net/finalizer]
spec:
  schedulerName: slurm-bridge-scheduler
  nodeName: gpu-ext-07
  containers:
  - name: train
    image: nvcr.io/nvidia/pytorch:24.08-py3
    command: ["torchrun", "--nproc-per-node=8", "train.py"]
    resources:
      limits: {nvidia.com/gpu: "8"}
status:
  phase: Running
  conditions:
  - {type: Ready, status: "False", reason: NodeNotReady, lastTransitionTime: "2026-09-10T22:41:05Z"}
  containerStatuses:
  - name: train
    image: nvcr.io/nvidia/pytorch:24.08-py3
    imageID: ""
    ready: false
    restartCount: 0
    started: true
    state:
      running: {startedAt: "2026-09-10T20:02:13Z"}
`,
		deletes: []string{"Pod/slurm-bridge/train-llm-0"},
	}.run(t)

	d := diagnoseAfter(t, 6*time.Hour, "pods", "train-llm-0", "-n", "slurm-bridge")
	d.exit(1, "STUCK")
	f := d.finalizer("pods/train-llm-0 -n slurm-bridge", "scheduler.slinky.slurm.net/finalizer")
	// slurm-bridge's controllers run and would remove it, once the pod's phase is terminal: the
	// node whose kubelet stopped reporting is why it never is.
	d.remover(f, "deployments.apps/slurm-bridge-controllers -n slinky", true)
	d.names(f, "nodes/gpu-ext-07")
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
