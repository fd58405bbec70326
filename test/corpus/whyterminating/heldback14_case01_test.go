package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/fluid-cloudnative/fluid/issues/176 ("Can not delete datset and
// runtime"; the same hang as #34, "删除dataset，pv，pvc一直处于terminating"): a Dataset and its
// AlluxioRuntime were deleted with kubectl delete -f, and both stay. The maintainers' answer: the
// Dataset is not released while Pods still mount the PersistentVolumeClaim Fluid made for it (the
// claim of the same name in the Dataset's namespace); "Need delete all pod bind with alluxio
// dataset created pvc" — "only need to delete the running pods, not complete or failed pod". The
// dataset controller runs and waits; stripping the finalizer would leave the claim and the volume
// behind while a pod still reads through them.
//
// Modelled on Fluid's Helm chart (charts/fluid/fluid, v0.3/0.4 era): namespace fluid-system, the
// dataset-controller Deployment with its ServiceAccount and ClusterRole (data.fluid.io datasets,
// runtimes; persistentvolumes and claims; pods read), the alluxioruntime-controller Deployment,
// the CSI node plugin DaemonSet (fuse.csi.fluid.io); the CRDs datasets.data.fluid.io and
// alluxioruntimes.data.fluid.io. The claim imagenet in default, bound to the volume
// default-imagenet of the Fluid CSI driver; the user's pod that mounts it, running.
func TestCorpusFluidDatasetStillMountedByARunningPod(t *testing.T) {
	replay{
		crds: []crd{
			{group: "data.fluid.io", kind: "Dataset", plural: "datasets", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "data.fluid.io", kind: "AlluxioRuntime", plural: "alluxioruntimes", namespaced: true, versions: []string{"v1alpha1"}},
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
  name: dataset-controller
  namespace: fluid-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: dataset-controller
rules:
- apiGroups: ["data.fluid.io"]
  resources: ["datasets", "datasets/status", "alluxioruntimes", "alluxioruntimes/status"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["persistentvolumeclaims", "persistentvolumes"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["pods", "nodes"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
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
        image: fluidcloudnative/dataset-controller:v0.3.0
        command: ["dataset-controller", "start"]
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: alluxioruntime-controller
  namespace: fluid-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: alluxioruntime-controller
rules:
- apiGroups: ["data.fluid.io"]
  resources: ["alluxioruntimes", "alluxioruntimes/status", "datasets", "datasets/status"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["apps"]
  resources: ["statefulsets", "daemonsets"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["configmaps", "services", "persistentvolumeclaims", "persistentvolumes"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["pods", "nodes"]
  verbs: ["get", "list", "watch", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: alluxioruntime-controller
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: alluxioruntime-controller
subjects:
- kind: ServiceAccount
  name: alluxioruntime-controller
  namespace: fluid-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: alluxioruntime-controller
  namespace: fluid-system
  labels: {control-plane: alluxioruntime-controller}
spec:
  replicas: 1
  selector:
    matchLabels: {control-plane: alluxioruntime-controller}
  template:
    metadata:
      labels: {control-plane: alluxioruntime-controller}
    spec:
      serviceAccountName: alluxioruntime-controller
      containers:
      - name: manager
        image: fluidcloudnative/alluxioruntime-controller:v0.3.0
        command: ["alluxioruntime-controller", "start"]
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: fluid-csi
  namespace: fluid-system
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: csi-nodeplugin-fluid
  namespace: fluid-system
  labels: {app: csi-nodeplugin-fluid}
spec:
  selector:
    matchLabels: {app: csi-nodeplugin-fluid}
  template:
    metadata:
      labels: {app: csi-nodeplugin-fluid}
    spec:
      serviceAccountName: fluid-csi
      hostNetwork: true
      containers:
      - name: plugins
        image: fluidcloudnative/fluid-csi:v0.3.0
        args: ["--nodeid=$(NODE_ID)", "--endpoint=$(CSI_ENDPOINT)"]
        env:
        - name: NODE_ID
          valueFrom: {fieldRef: {fieldPath: spec.nodeName}}
        - {name: CSI_ENDPOINT, value: "unix://plugin/csi.sock"}
`,
		objects: `
apiVersion: data.fluid.io/v1alpha1
kind: Dataset
metadata:
  name: imagenet
  namespace: default
  finalizers: [fluid-dataset-controller-finalizer]
spec:
  mounts:
  - mountPoint: oss://imagenet-huabei5/images/
    name: imagenet
status:
  phase: Bound
  ufsTotal: 143.7GiB
  runtimes:
  - name: imagenet
    namespace: default
    category: Accelerate
    type: alluxio
  conditions:
  - type: Ready
    status: "True"
    reason: DatasetReady
    message: The ddc runtime is ready.
    lastTransitionTime: "2020-09-19T03:12:40Z"
    lastUpdateTime: "2020-09-19T03:12:40Z"
---
apiVersion: data.fluid.io/v1alpha1
kind: AlluxioRuntime
metadata:
  name: imagenet
  namespace: default
  finalizers: [alluxio-runtime-controller-finalizer]
spec:
  replicas: 2
  tieredstore:
    levels:
    - mediumtype: MEM
      path: /dev/shm
      quota: 20Gi
status:
  masterPhase: Ready
  workerPhase: Ready
  fusePhase: Ready
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: default-imagenet
  labels: {fluid.io/s-default-imagenet: "true"}
spec:
  capacity: {storage: 100Gi}
  accessModes: [ReadOnlyMany]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: fluid
  csi:
    driver: fuse.csi.fluid.io
    volumeHandle: default-imagenet
    volumeAttributes:
      fluid_path: /alluxio-fuse/default/imagenet
      mount_type: fuse.alluxio-fuse
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: imagenet
  namespace: default
  labels: {fluid.io/s-default-imagenet: "true"}
spec:
  accessModes: [ReadOnlyMany]
  storageClassName: fluid
  volumeName: default-imagenet
  resources:
    requests: {storage: 100Gi}
---
apiVersion: v1
kind: Pod
metadata:
  name: resnet50-train
  namespace: default
  labels: {app: resnet50-train}
spec:
  nodeName: worker-1
  containers:
  - name: train
    image: registry.cn-hangzhou.aliyuncs.com/tensorflow-samples/horovod-benchmark-dawnbench-v2:0.18.1-tf1.14.0-torch1.2.0-mxnet1.5.0-py3.6
    command: ["sh", "-c", "python train.py --data-dir /data/imagenet"]
    volumeMounts:
    - {name: imagenet, mountPath: /data}
  volumes:
  - name: imagenet
    persistentVolumeClaim: {claimName: imagenet}
status:
  phase: Running
  conditions:
  - {type: Ready, status: "True", lastTransitionTime: "2020-09-19T03:20:02Z"}
  containerStatuses:
  - name: train
    image: registry.cn-hangzhou.aliyuncs.com/tensorflow-samples/horovod-benchmark-dawnbench-v2:0.18.1-tf1.14.0-torch1.2.0-mxnet1.5.0-py3.6
    imageID: ""
    ready: true
    restartCount: 0
    started: true
    state:
      running: {startedAt: "2020-09-19T03:20:01Z"}
`,
		deletes: []string{"Dataset/default/imagenet", "AlluxioRuntime/default/imagenet"},
	}.run(t)

	// Two days after the deletion, as the report tells it.
	d := diagnoseAfter(t, 48*time.Hour, "datasets.data.fluid.io", "imagenet", "-n", "default")
	d.exit(1, "STUCK")
	f := d.finalizer("datasets.data.fluid.io/imagenet -n default", "fluid-dataset-controller-finalizer")
	// Fluid's own dataset controller runs: it is the remover, and it waits.
	d.remover(f, "deployments.apps/dataset-controller -n fluid-system", true)
	// The running pod that mounts the dataset's claim is what it waits for: delete it first.
	d.names(f, "pods/resnet50-train -n default")
	d.notFirstFix(f, stripFinalizer, readLogs)
	d.never(f, reinstall, restoreController)
}
