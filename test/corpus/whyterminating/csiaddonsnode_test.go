package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/csi-addons/kubernetes-csi-addons/issues/237 ("csi-addon is stuck on
// older `CSIAddonsNode` resource in reconcile"), fixed by #247 ("controller: fix csiaddonsnodes
// object deletion"): the csi-addons sidecar of a CSI pod registers a CSIAddonsNode named after its
// pod, owned by the pod, its endpoint pod://<pod>.<namespace>:9070. The reporter scaled the RBD
// provisioner down and up; the pod was replaced, and the controller logs "Failed to resolve
// endpoint ... failed to get pod rook-ceph/csi-rbdplugin-provisioner-57b556bb77-cq97r: Pod
// ... not found" for ever. The maintainer (#247): "resolveEndpoint get the pod object to resolve the
// ip address as the pod object is deleted resolveEndpoint will fail to get the pod and it blocks
// the csiaddonsnodes object from getting deleted"; the fix resolves the endpoint only when the
// object is not being deleted. By hand: remove the finalizer csiaddons.openshift.io/csiaddonsnode
// (the controller would only drop a connection to a pod that no longer exists).
//
// Modelled on deploy/controller of kubernetes-csi-addons at the fix's parent (v0.5.0 era): namespace
// csi-addons-system, the csi-addons-controller-manager Deployment (kube-rbac-proxy and manager),
// its ServiceAccount, leader-election Role, ClusterRole csi-addons-manager-role and bindings, the
// CRDs of csiaddons.openshift.io; and Rook 1.10's RBD provisioner with the csi-addons sidecar
// (quay.io/csiaddons/k8s-sidecar:v0.5.0), whose ServiceAccount may only create CSIAddonsNodes. The
// CSIAddonsNode of the replaced pod, Connected when its pod went, owned by that pod (gone), and
// deleted by the garbage collector.
func TestCorpusCSIAddonsNodeAfterItsSidecarPodWasReplaced(t *testing.T) {
	csiaddons := func(kind, plural string) crd {
		return crd{group: "csiaddons.openshift.io", kind: kind, plural: plural, namespaced: true, versions: []string{"v1alpha1"}}
	}
	replay{
		crds: []crd{
			csiaddons("CSIAddonsNode", "csiaddonsnodes"),
			csiaddons("ReclaimSpaceJob", "reclaimspacejobs"),
			csiaddons("ReclaimSpaceCronJob", "reclaimspacecronjobs"),
			{group: "csiaddons.openshift.io", kind: "NetworkFence", plural: "networkfences", versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  labels: {app.kubernetes.io/name: csi-addons}
  name: csi-addons-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: csi-addons-controller-manager
  namespace: csi-addons-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: csi-addons-leader-election-role
  namespace: csi-addons-system
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: csi-addons-manager-role
rules:
- apiGroups: [""]
  resources: [persistentvolumeclaims]
  verbs: [get, list, patch, update, watch]
- apiGroups: [""]
  resources: [persistentvolumeclaims/finalizers]
  verbs: [update]
- apiGroups: [""]
  resources: [persistentvolumes]
  verbs: [get, list, watch]
- apiGroups: [""]
  resources: [pods]
  verbs: [get, list, watch]
- apiGroups: [csiaddons.openshift.io]
  resources: [csiaddonsnodes, networkfences, reclaimspacecronjobs, reclaimspacejobs]
  verbs: [create, delete, get, list, patch, update, watch]
- apiGroups: [csiaddons.openshift.io]
  resources: [csiaddonsnodes/finalizers, networkfences/finalizers, reclaimspacecronjobs/finalizers, reclaimspacejobs/finalizers]
  verbs: [update]
- apiGroups: [csiaddons.openshift.io]
  resources: [csiaddonsnodes/status, networkfences/status, reclaimspacecronjobs/status, reclaimspacejobs/status]
  verbs: [get, patch, update]
- apiGroups: [replication.storage.openshift.io]
  resources: [volumereplicationclasses]
  verbs: [get, list, watch]
- apiGroups: [replication.storage.openshift.io]
  resources: [volumereplications]
  verbs: [get, list, update, watch]
- apiGroups: [replication.storage.openshift.io]
  resources: [volumereplications/finalizers]
  verbs: [update]
- apiGroups: [replication.storage.openshift.io]
  resources: [volumereplications/status]
  verbs: [update]
- apiGroups: [storage.k8s.io]
  resources: [volumeattachments]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: csi-addons-leader-election-rolebinding
  namespace: csi-addons-system
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: csi-addons-leader-election-role
subjects:
- kind: ServiceAccount
  name: csi-addons-controller-manager
  namespace: csi-addons-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: csi-addons-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: csi-addons-manager-role
subjects:
- kind: ServiceAccount
  name: csi-addons-controller-manager
  namespace: csi-addons-system
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: csi-addons-manager-config
  namespace: csi-addons-system
data:
  controller_manager_config.yaml: |
    apiVersion: controller-runtime.sigs.k8s.io/v1alpha1
    kind: ControllerManagerConfig
    health:
      healthProbeBindAddress: :8081
    metrics:
      bindAddress: 127.0.0.1:8080
    leaderElection:
      leaderElect: true
      resourceName: e8cd140a.openshift.io
---
apiVersion: apps/v1
kind: Deployment
metadata:
  labels: {app.kubernetes.io/name: csi-addons}
  name: csi-addons-controller-manager
  namespace: csi-addons-system
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: csi-addons}
  template:
    metadata:
      annotations: {kubectl.kubernetes.io/default-container: manager}
      labels: {app.kubernetes.io/name: csi-addons}
    spec:
      serviceAccountName: csi-addons-controller-manager
      terminationGracePeriodSeconds: 10
      containers:
      - name: kube-rbac-proxy
        image: gcr.io/kubebuilder/kube-rbac-proxy:v0.8.0
        args: ["--secure-listen-address=0.0.0.0:8443", "--upstream=http://127.0.0.1:8080/", "--logtostderr=true", "--v=10"]
      - name: manager
        image: quay.io/csiaddons/k8s-controller:v0.5.0
        command: ["/manager"]
        args: ["--health-probe-bind-address=:8081", "--metrics-bind-address=127.0.0.1:8080", "--leader-elect"]
---
apiVersion: v1
kind: Namespace
metadata:
  name: rook-ceph
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: rook-csi-rbd-provisioner-sa
  namespace: rook-ceph
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: rbd-external-provisioner-runner
rules:
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["persistentvolumes"]
  verbs: ["get", "list", "watch", "create", "delete", "update", "patch"]
- apiGroups: [""]
  resources: ["persistentvolumeclaims"]
  verbs: ["get", "list", "watch", "update"]
- apiGroups: ["storage.k8s.io"]
  resources: ["storageclasses"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["list", "watch", "create", "update", "patch"]
- apiGroups: ["storage.k8s.io"]
  resources: ["volumeattachments"]
  verbs: ["get", "list", "watch", "patch"]
- apiGroups: ["storage.k8s.io"]
  resources: ["volumeattachments/status"]
  verbs: ["patch"]
- apiGroups: ["storage.k8s.io"]
  resources: ["csinodes"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["persistentvolumeclaims/status"]
  verbs: ["patch"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get"]
- apiGroups: ["apps"]
  resources: ["replicasets"]
  verbs: ["get"]
- apiGroups: ["csiaddons.openshift.io"]
  resources: ["csiaddonsnodes"]
  verbs: ["create"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: rbd-csi-provisioner-role
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: rbd-external-provisioner-runner
subjects:
- kind: ServiceAccount
  name: rook-csi-rbd-provisioner-sa
  namespace: rook-ceph
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: csi-rbdplugin-provisioner
  namespace: rook-ceph
spec:
  replicas: 1
  selector:
    matchLabels: {app: csi-rbdplugin-provisioner}
  template:
    metadata:
      labels: {app: csi-rbdplugin-provisioner, contains: csi-rbdplugin-metrics}
    spec:
      serviceAccountName: rook-csi-rbd-provisioner-sa
      containers:
      - name: csi-provisioner
        image: registry.k8s.io/sig-storage/csi-provisioner:v3.3.0
        args: ["--csi-address=$(ADDRESS)", "--v=0", "--timeout=2m30s", "--retry-interval-start=500ms", "--leader-election=true", "--leader-election-namespace=rook-ceph", "--default-fstype=ext4", "--extra-create-metadata=true"]
      - name: csi-addons
        image: quay.io/csiaddons/k8s-sidecar:v0.5.0
        args: ["--node-id=$(NODE_ID)", "--v=0", "--csi-addons-address=$(CSIADDONS_ENDPOINT)", "--controller-port=9070", "--pod=$(POD_NAME)", "--namespace=$(POD_NAMESPACE)", "--pod-uid=$(POD_UID)", "--stagingpath=/var/lib/kubelet/plugins/kubernetes.io/csi/", "--leader-election-namespace=rook-ceph"]
        ports:
        - {containerPort: 9070, name: csi-addons}
      - name: csi-rbdplugin
        image: quay.io/cephcsi/cephcsi:canary
        args: ["--nodeid=$(NODE_ID)", "--endpoint=$(CSI_ENDPOINT)", "--v=0", "--type=rbd", "--controllerserver=true", "--drivername=rook-ceph.rbd.csi.ceph.com", "--pidlimit=-1", "--csi-addons-endpoint=$(CSIADDONS_ENDPOINT)"]
`,
		objects: `
apiVersion: csiaddons.openshift.io/v1alpha1
kind: CSIAddonsNode
metadata:
  name: csi-rbdplugin-provisioner-57b556bb77-cq97r
  namespace: rook-ceph
  finalizers: [csiaddons.openshift.io/csiaddonsnode]
  ownerReferences:
  - apiVersion: v1
    kind: Pod
    name: csi-rbdplugin-provisioner-57b556bb77-cq97r
    uid: 3f0b9c8e-6a51-4c1e-9d27-5b8e0f1a7c42
spec:
  driver:
    name: rook-ceph.rbd.csi.ceph.com
    endpoint: pod://csi-rbdplugin-provisioner-57b556bb77-cq97r.rook-ceph:9070
    nodeID: worker-1
status:
  state: Connected
  message: Successfully established connection with sidecar
`,
		deletes: []string{"CSIAddonsNode/rook-ceph/csi-rbdplugin-provisioner-57b556bb77-cq97r"},
	}.run(t)

	// The pod was replaced a while ago; the controller has failed on it since.
	d := diagnoseAfter(t, 30*time.Minute, "csiaddonsnodes.csiaddons.openshift.io", "csi-rbdplugin-provisioner-57b556bb77-cq97r", "-n", "rook-ceph")
	d.exit(1, "STUCK")
	f := d.finalizer("csiaddonsnodes.csiaddons.openshift.io/csi-rbdplugin-provisioner-57b556bb77-cq97r -n rook-ceph", "csiaddons.openshift.io/csiaddonsnode")
	d.remover(f, "deployments.apps/csi-addons-controller-manager -n csi-addons-system", true)
	// The sidecar's account may only create these objects: it never removes the finalizer.
	d.notRemover(f, "deployments.apps/csi-rbdplugin-provisioner -n rook-ceph")
	// The cause: the pod the object is owned by and whose endpoint it records is gone, and the
	// controller resolves that endpoint before it removes the finalizer.
	d.names(f, "pods/csi-rbdplugin-provisioner-57b556bb77-cq97r -n rook-ceph")
	// By hand, the strip; nothing is left behind (a connection to a pod that is gone).
	d.firstFix(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
