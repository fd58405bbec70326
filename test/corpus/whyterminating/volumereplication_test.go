package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/csi-addons/volume-replication-operator/issues/38 ("allow disabling
// replication when PVC is already deleted") and its duplicate #92 ("On delete, ignore PVC missing
// errors"): the VolumeReplication controller disables replication before it removes its finalizer
// replication.storage.openshift.io, and finds the volume through the claim the VolumeReplication's
// spec.dataSource names. "There can be a scenario that PVC was already deleted by the user before
// deleting the volumeReplication CR. This will cause the replication to fail because we can't
// retrieve the volumehandle without the pvc"; "when objects are deleted in parallel, it may so happen
// that the VR is deleted last, and this does not garbage collect the VR due to the finalizer. The
// only way out of this is to remove the finalizer on the resource." The fix (#93): when the claim is
// gone, "we can easily assume that the replication is removed as the backend storage is deleted and
// we can remove the finalizer".
//
// Modelled on the operator as Rook ran it (Rook 1.6, the reporters' setup): the volume-replication
// container (quay.io/csiaddons/volumereplication-operator:v0.1.0) in the csi-rbdplugin-provisioner
// Deployment of rook-ceph, with the provisioner's ServiceAccount and the ClusterRole
// rbd-external-provisioner-runner (its replication.storage.openshift.io rules as Rook's common.yaml
// gives them), the CSIDriver and StorageClass of rook-ceph.rbd.csi.ceph.com, the CRDs
// volumereplications and volumereplicationclasses. The VolumeReplicationClass of the Rook example
// and the VolumeReplication of the fix's test (primary, for the claim rbd-pvc), its status as the
// controller writes it once the claim is gone: Completed False FailedToPromote, Degraded True, the
// message `persistentvolumeclaims "rbd-pvc" not found`. The claim and its volume (reclaim policy
// Delete) are gone.
func TestCorpusVolumeReplicationAfterItsPVCWasDeleted(t *testing.T) {
	replay{
		crds: []crd{
			{group: "replication.storage.openshift.io", kind: "VolumeReplication", plural: "volumereplications", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "replication.storage.openshift.io", kind: "VolumeReplicationClass", plural: "volumereplicationclasses", versions: []string{"v1alpha1"}},
		},
		install: `
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
- apiGroups: ["snapshot.storage.k8s.io"]
  resources: ["volumesnapshots"]
  verbs: ["get", "list", "watch", "update"]
- apiGroups: ["snapshot.storage.k8s.io"]
  resources: ["volumesnapshotcontents"]
  verbs: ["create", "get", "list", "watch", "update", "delete"]
- apiGroups: ["snapshot.storage.k8s.io"]
  resources: ["volumesnapshotclasses"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["snapshot.storage.k8s.io"]
  resources: ["volumesnapshotcontents/status"]
  verbs: ["update"]
- apiGroups: ["storage.k8s.io"]
  resources: ["volumeattachments"]
  verbs: ["get", "list", "watch", "update", "patch"]
- apiGroups: ["storage.k8s.io"]
  resources: ["volumeattachments/status"]
  verbs: ["patch"]
- apiGroups: ["storage.k8s.io"]
  resources: ["csinodes"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["persistentvolumeclaims/status"]
  verbs: ["update", "patch"]
- apiGroups: ["replication.storage.openshift.io"]
  resources: ["volumereplications", "volumereplicationclasses"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["replication.storage.openshift.io"]
  resources: ["volumereplications/finalizers"]
  verbs: ["update"]
- apiGroups: ["replication.storage.openshift.io"]
  resources: ["volumereplications/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["replication.storage.openshift.io"]
  resources: ["volumereplicationclasses/status"]
  verbs: ["get"]
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
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: rbd-external-provisioner-cfg
  namespace: rook-ceph
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "list", "watch", "create", "update", "delete"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "watch", "list", "delete", "update", "create"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: rbd-csi-provisioner-role-cfg
  namespace: rook-ceph
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: rbd-external-provisioner-cfg
subjects:
- kind: ServiceAccount
  name: rook-csi-rbd-provisioner-sa
  namespace: rook-ceph
---
apiVersion: v1
kind: Secret
metadata:
  name: rook-csi-rbd-provisioner
  namespace: rook-ceph
type: kubernetes.io/rook
stringData:
  userID: csi-rbd-provisioner
  userKey: AQBcZQRhAAAAABAAmaXR9d5bZsoN8zCjdQhbkQ==
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata:
  name: rook-ceph.rbd.csi.ceph.com
spec:
  attachRequired: true
  podInfoOnMount: false
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: rook-ceph-block
provisioner: rook-ceph.rbd.csi.ceph.com
reclaimPolicy: Delete
allowVolumeExpansion: true
parameters:
  clusterID: rook-ceph
  pool: replicapool
  imageFormat: "2"
  imageFeatures: layering,exclusive-lock,journaling
  csi.storage.k8s.io/provisioner-secret-name: rook-csi-rbd-provisioner
  csi.storage.k8s.io/provisioner-secret-namespace: rook-ceph
  csi.storage.k8s.io/fstype: ext4
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: csi-rbdplugin-provisioner
  namespace: rook-ceph
spec:
  replicas: 2
  selector:
    matchLabels: {app: csi-rbdplugin-provisioner}
  template:
    metadata:
      labels: {app: csi-rbdplugin-provisioner, contains: csi-rbdplugin-metrics}
    spec:
      serviceAccountName: rook-csi-rbd-provisioner-sa
      containers:
      - name: csi-provisioner
        image: k8s.gcr.io/sig-storage/csi-provisioner:v2.2.2
        args: ["--csi-address=$(ADDRESS)", "--v=0", "--timeout=150s", "--retry-interval-start=500ms", "--leader-election=true", "--leader-election-namespace=rook-ceph", "--default-fstype=ext4", "--extra-create-metadata=true"]
      - name: csi-resizer
        image: k8s.gcr.io/sig-storage/csi-resizer:v1.2.0
        args: ["--csi-address=$(ADDRESS)", "--v=0", "--timeout=150s", "--leader-election=true", "--leader-election-namespace=rook-ceph", "--handle-volume-inuse-error=false"]
      - name: csi-attacher
        image: k8s.gcr.io/sig-storage/csi-attacher:v3.2.1
        args: ["--v=0", "--timeout=150s", "--csi-address=$(ADDRESS)", "--leader-election=true", "--leader-election-namespace=rook-ceph"]
      - name: csi-snapshotter
        image: k8s.gcr.io/sig-storage/csi-snapshotter:v4.1.1
        args: ["--csi-address=$(ADDRESS)", "--v=0", "--timeout=150s", "--leader-election=true", "--leader-election-namespace=rook-ceph"]
      - name: volume-replication
        image: quay.io/csiaddons/volumereplication-operator:v0.1.0
        args: ["--metrics-bind-address=0", "--leader-election-namespace=rook-ceph", "--driver-name=rook-ceph.rbd.csi.ceph.com", "--csi-address=$(ADDRESS)", "--rpc-timeout=150s", "--health-probe-bind-address=:9998", "--leader-elect=true"]
      - name: csi-rbdplugin
        image: quay.io/cephcsi/cephcsi:v3.3.1
        args: ["--nodeid=$(NODE_ID)", "--endpoint=$(CSI_ENDPOINT)", "--v=0", "--type=rbd", "--controllerserver=true", "--drivername=rook-ceph.rbd.csi.ceph.com", "--pidlimit=-1", "--metricsport=9090", "--metricspath=/metrics", "--enablegrpcmetrics=false"]
`,
		objects: `
apiVersion: replication.storage.openshift.io/v1alpha1
kind: VolumeReplicationClass
metadata:
  name: rbd-volumereplicationclass
spec:
  provisioner: rook-ceph.rbd.csi.ceph.com
  parameters:
    mirroringMode: snapshot
    schedulingInterval: "12m"
    schedulingStartTime: "16:18:43"
    replication.storage.openshift.io/replication-secret-name: rook-csi-rbd-provisioner
    replication.storage.openshift.io/replication-secret-namespace: rook-ceph
---
apiVersion: replication.storage.openshift.io/v1alpha1
kind: VolumeReplication
metadata:
  name: pvc-volumereplication
  namespace: default
  finalizers: [replication.storage.openshift.io]
spec:
  volumeReplicationClass: rbd-volumereplicationclass
  replicationState: primary
  dataSource:
    apiGroup: ""
    kind: PersistentVolumeClaim
    name: rbd-pvc
status:
  state: Primary
  message: 'persistentvolumeclaims "rbd-pvc" not found'
  observedGeneration: 2
  lastStartTime: "2021-07-09T07:02:41Z"
  lastCompletionTime: "2021-07-09T07:02:42Z"
  conditions:
  - {type: Completed, status: "False", reason: FailedToPromote, message: "", observedGeneration: 2, lastTransitionTime: "2021-07-09T07:04:09Z"}
  - {type: Degraded, status: "True", reason: Error, message: "", observedGeneration: 2, lastTransitionTime: "2021-07-09T07:04:09Z"}
  - {type: Resyncing, status: "False", reason: NotResyncing, message: "", observedGeneration: 2, lastTransitionTime: "2021-07-09T07:02:42Z"}
`,
		deletes: []string{"VolumeReplication/default/pvc-volumereplication"},
	}.run(t)

	// Deleted with the rest of the application; found stuck a while later.
	d := diagnoseAfter(t, 30*time.Minute, "volumereplications.replication.storage.openshift.io", "pvc-volumereplication", "-n", "default")
	d.exit(1, "STUCK")
	f := d.finalizer("volumereplications.replication.storage.openshift.io/pvc-volumereplication -n default", "replication.storage.openshift.io")
	d.remover(f, "deployments.apps/csi-rbdplugin-provisioner -n rook-ceph", true)
	// The cause: the claim its spec.dataSource names (and its status reports missing) is gone, and
	// the controller cannot finalize without it.
	d.names(f, "persistentvolumeclaims/rbd-pvc -n default")
	// "The only way out of this is to remove the finalizer": the replication went with the volume.
	d.firstFix(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
