package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/fluid-cloudnative/fluid/issues/1970 ("[BUG] Runtime cannot
// complete deletion when restarting controller"): a JuiceFSRuntime (event-driven) was deleted
// while its controller was scaled to 0; once the controller runs again, the runtime keeps its
// deletionTimestamp and finalizer for ever. The restarted controller receives the runtime as an
// add event, and its event filter drops add events of objects already being deleted, so the
// runtime never reaches Reconcile. The reporter's way out: remove the finalizer by hand and
// delete the StatefulSet, DaemonSet and ConfigMaps the runtime's release left (the fix, #1971,
// lets such add events through).
//
// Modelled on Fluid's Helm chart (charts/fluid/fluid, v0.8): namespace fluid-system, the
// juicefsruntime-controller Deployment with its ServiceAccount and ClusterRole (data.fluid.io
// juicefsruntimes and datasets; statefulsets, daemonsets, configmaps), the dataset-controller; the
// CRDs datasets and juicefsruntimes of data.fluid.io. The Dataset jfsdemo (bound, not deleted)
// and its runtime, and what the runtime's Helm release made (the chart fluid/juicefs, release
// jfsdemo): the worker StatefulSet jfsdemo-worker, the FUSE DaemonSet jfsdemo-fuse and the values
// ConfigMap jfsdemo-juicefs-values, none owned by the runtime.
func TestCorpusFluidRuntimeDeletedWhileItsControllerWasDown(t *testing.T) {
	replay{
		crds: []crd{
			{group: "data.fluid.io", kind: "Dataset", plural: "datasets", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "data.fluid.io", kind: "JuiceFSRuntime", plural: "juicefsruntimes", namespaced: true, versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: fluid-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: juicefsruntime-controller
  namespace: fluid-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: juicefsruntime-controller
rules:
- apiGroups: ["data.fluid.io"]
  resources: ["juicefsruntimes", "juicefsruntimes/status", "datasets", "datasets/status"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["apps"]
  resources: ["statefulsets", "daemonsets"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["configmaps", "secrets", "services", "persistentvolumeclaims", "persistentvolumes"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["pods", "nodes"]
  verbs: ["get", "list", "watch", "patch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: juicefsruntime-controller
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: juicefsruntime-controller
subjects:
- kind: ServiceAccount
  name: juicefsruntime-controller
  namespace: fluid-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: juicefsruntime-controller
  namespace: fluid-system
  labels: {control-plane: juicefsruntime-controller}
spec:
  replicas: 1
  selector:
    matchLabels: {control-plane: juicefsruntime-controller}
  template:
    metadata:
      labels: {control-plane: juicefsruntime-controller}
    spec:
      serviceAccountName: juicefsruntime-controller
      containers:
      - name: manager
        image: fluidcloudnative/juicefsruntime-controller:v0.8.0-b0dbd6d
        command: ["juicefsruntime-controller", "start"]
        args: ["--development=false", "--pprof-addr=:6060", "--enable-leader-election", "--runtime-workers=3", "--event-driven=true"]
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: dataset-controller
  namespace: fluid-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: dataset-controller
rules:
- apiGroups: ["data.fluid.io"]
  resources: ["datasets", "datasets/status", "dataloads", "dataloads/status"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["persistentvolumeclaims", "persistentvolumes", "pods"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: dataset-controller
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: dataset-controller
subjects:
- kind: ServiceAccount
  name: dataset-controller
  namespace: fluid-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: dataset-controller
  namespace: fluid-system
  labels: {control-plane: dataset-controller}
spec:
  replicas: 1
  selector:
    matchLabels: {control-plane: dataset-controller}
  template:
    metadata:
      labels: {control-plane: dataset-controller}
    spec:
      serviceAccountName: dataset-controller
      containers:
      - name: manager
        image: fluidcloudnative/dataset-controller:v0.8.0-b0dbd6d
        command: ["dataset-controller", "start"]
`,
		objects: `
apiVersion: data.fluid.io/v1alpha1
kind: Dataset
metadata:
  name: jfsdemo
  namespace: default
  finalizers: [fluid-dataset-controller-finalizer]
spec:
  mounts:
  - name: minio
    mountPoint: juicefs:///
    options: {bucket: "http://minio.default.svc:9000/minio/test"}
    encryptOptions:
    - name: metaurl
      valueFrom: {secretKeyRef: {name: jfs-secret, key: metaurl}}
status:
  phase: Bound
  runtimes:
  - name: jfsdemo
    namespace: default
    category: Accelerate
    type: juicefs
    masterReplicas: 1
---
apiVersion: data.fluid.io/v1alpha1
kind: JuiceFSRuntime
metadata:
  name: jfsdemo
  namespace: default
  finalizers: [juicefs-runtime-controller-finalizer]
spec:
  replicas: 1
  tieredstore:
    levels:
    - mediumtype: SSD
      path: /cache
      quota: 40960
      low: "0.1"
status:
  workerPhase: Ready
  fusePhase: Ready
  valueFile: jfsdemo-juicefs-values
  setupDuration: 20s
  desiredWorkerNumberScheduled: 1
  workerNumberReady: 1
  fuseNumberReady: 1
  conditions:
  - {type: Ready, status: "True", reason: "The workers are ready.", message: "The workers are ready.", lastProbeTime: "2022-07-05T06:10:02Z", lastTransitionTime: "2022-07-05T06:10:02Z"}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: jfsdemo-juicefs-values
  namespace: default
  labels: {app: juicefs, release: jfsdemo, fluid.io/dataset-id: default-jfsdemo}
data:
  data: |
    fullnameOverride: jfsdemo
    source: ${METAURL}
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: jfsdemo-worker
  namespace: default
  labels: {app: juicefs, chart: juicefs-0.2.5, release: jfsdemo, heritage: Helm, role: juicefs-worker, fluid.io/dataset-id: default-jfsdemo}
spec:
  replicas: 1
  serviceName: jfsdemo-worker
  selector:
    matchLabels: {app: juicefs, release: jfsdemo, role: juicefs-worker}
  template:
    metadata:
      labels: {app: juicefs, release: jfsdemo, role: juicefs-worker, fluid.io/dataset-id: default-jfsdemo}
    spec:
      containers:
      - name: juicefs-worker
        image: juicedata/juicefs-fuse:v1.0.0-beta2
        command: ["sh", "-c", "/bin/mount.juicefs ${METAURL} /runtime-mnt/juicefs/default/jfsdemo/juicefs-fuse -o cache-dir=/cache"]
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: jfsdemo-fuse
  namespace: default
  labels: {app: juicefs, chart: juicefs-0.2.5, release: jfsdemo, heritage: Helm, role: juicefs-fuse, fluid.io/dataset-id: default-jfsdemo}
spec:
  selector:
    matchLabels: {app: juicefs, release: jfsdemo, role: juicefs-fuse}
  template:
    metadata:
      labels: {app: juicefs, release: jfsdemo, role: juicefs-fuse, fluid.io/dataset-id: default-jfsdemo}
    spec:
      containers:
      - name: juicefs-fuse
        image: juicedata/juicefs-fuse:v1.0.0-beta2
        command: ["sh", "-c", "/bin/mount.juicefs ${METAURL} /runtime-mnt/juicefs/default/jfsdemo/juicefs-fuse -o cache-dir=/cache"]
`,
		deletes: []string{"JuiceFSRuntime/default/jfsdemo"},
	}.run(t)

	// Deleted while the controller was scaled to 0; the controller has run again for a while.
	d := diagnoseAfter(t, 30*time.Minute, "juicefsruntimes.data.fluid.io", "jfsdemo", "-n", "default")
	d.exit(1, "STUCK")
	f := d.finalizer("juicefsruntimes.data.fluid.io/jfsdemo -n default", "juicefs-runtime-controller-finalizer")
	d.remover(f, "deployments.apps/juicefsruntime-controller -n fluid-system", true)
	// The running controller never acts on it: the strip is the way out, and what it leaves
	// (the release's StatefulSet, DaemonSet and ConfigMap) is deleted by hand.
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
