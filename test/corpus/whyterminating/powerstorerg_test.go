//go:build corpusopen

// Open (corpusopen), failure class "outside identifiers in costs" (batch 17, first run
// 2026-12-03 17:27 UTC, main f04eee4): the remover (powerstore-controller, whose
// dell-csi-replicator field manager added the finalizer), its logs first and the strip last are
// right, but the strip's cost is the generic "whatever the controller would have cleaned up
// outside the cluster" where the object records the protection group on the array
// (spec.protectionGroupId, with its globalID and remote group). Naming identifiers an object
// records outside the cluster in a strip's cost is the class another helper (optout) owns this
// session; left to it rather than patched around here.

package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/dell/csm/issues/928 ("[BUG]: PowerStore Replication - Delete RG
// request hangs"), by a maintainer: "When the source RG is requested to be deleted on PowerStore,
// it doesn't finish ... Reason: Request to remove the associated protection policy before deleting
// the volume group doesn't remove the policy ... It was a regression introduced in gopowerstore
// module when there were volume group updates. Workaround: User to manually disassociate the
// protection policy from the source side volume group when the RG deletion call hangs." The driver
// log: "Deleting storage protection group" for ProtectedStorageGroup 5ac8d0ab-... on GlobalID
// PS123456789, then a PATCH of the volume group that carries only its description. The
// DellCSIReplicationGroup keeps replication.storage.dell.com/replicationProtection, which the
// dell-csi-replicator sidecar of the driver's controller removes only once DeleteStorageProtectionGroup
// succeeds (csm-replication controllers/csi-replicator: processRGForDeletion), its state Deleting.
// The way out is on the array; the sidecar then finishes by itself. A strip would leave the volume
// group (the protection group the RG records) and its replication session on both arrays.
//
// Modelled on csi-powerstore 2.7.0's Helm chart with replication enabled (namespace csi-powerstore:
// the powerstore-controller Deployment, two replicas, with the CSI sidecars, dell-csi-replicator and
// the driver; its ServiceAccount and ClusterRole with the replication.storage.dell.com rules of
// csm-replication's sidecar role; the powerstore-node DaemonSet) and csm-replication 1.5's
// deploy/controller.yaml (namespace dell-replication-controller: the
// dell-replication-controller-manager Deployment, its ServiceAccount and ClusterRole
// dell-replication-manager-role, the CRDs of replication.storage.dell.com). The source RG of the
// report (the protection group id is shortened in the issue; its tail is ours), in state Deleting,
// its finalizer added by the sidecar (field manager dell-csi-replicator); the common controller's
// own finalizer, replicationSyncProtection, is already gone.
func TestCorpusPowerStoreReplicationGroupDeleteHangsOnItsArray(t *testing.T) {
	const rg = "rg-0dca7f2e-5f64-4a7b-9d6c-2b8e43a1c905"
	replay{
		crds: []crd{
			{group: "replication.storage.dell.com", kind: "DellCSIReplicationGroup", plural: "dellcsireplicationgroups", versions: []string{"v1"}},
			{group: "replication.storage.dell.com", kind: "DellCSIMigrationGroup", plural: "dellcsimigrationgroups", versions: []string{"v1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: dell-replication-controller
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: dell-replication-controller-sa
  namespace: dell-replication-controller
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: dell-replication-manager-role
rules:
- apiGroups: [apiextensions.k8s.io]
  resources: [customresourcedefinitions]
  verbs: [get, list, watch]
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [create, delete, get, list, update, watch]
- apiGroups: [""]
  resources: [events]
  verbs: [create, list, patch, update, watch]
- apiGroups: [""]
  resources: [namespaces]
  verbs: [create, get, list, watch]
- apiGroups: [""]
  resources: [persistentvolumeclaims]
  verbs: [create, delete, get, list, patch, update, watch]
- apiGroups: [""]
  resources: [persistentvolumeclaims/status]
  verbs: [get, patch, update]
- apiGroups: [""]
  resources: [persistentvolumes]
  verbs: [create, delete, get, list, patch, update, watch]
- apiGroups: [""]
  resources: [pods]
  verbs: [get, list, watch]
- apiGroups: [""]
  resources: [secrets]
  verbs: [get, list, watch]
- apiGroups: [replication.storage.dell.com]
  resources: [dellcsireplicationgroups]
  verbs: [create, delete, get, list, patch, update, watch]
- apiGroups: [replication.storage.dell.com]
  resources: [dellcsireplicationgroups/status]
  verbs: [get, patch, update]
- apiGroups: [storage.k8s.io]
  resources: [storageclasses]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: dell-replication-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: dell-replication-manager-role
subjects:
- kind: ServiceAccount
  name: dell-replication-controller-sa
  namespace: dell-replication-controller
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: dell-replication-controller-config
  namespace: dell-replication-controller
data:
  config.yaml: |
    clusterId: source-cluster
    targets:
    - clusterId: target-cluster
      address: target-cluster
      secretRef: target-cluster
    CSI_LOG_LEVEL: info
---
apiVersion: apps/v1
kind: Deployment
metadata:
  labels: {control-plane: controller-manager}
  name: dell-replication-controller-manager
  namespace: dell-replication-controller
spec:
  replicas: 1
  selector:
    matchLabels: {control-plane: controller-manager}
  template:
    metadata:
      labels: {control-plane: controller-manager}
    spec:
      serviceAccountName: dell-replication-controller-sa
      containers:
      - name: manager
        image: dellemc/dell-replication-controller:v1.5.0
        command: [/dell-replication-controller]
        args: [--enable-leader-election, --prefix=replication.storage.dell.com]
---
apiVersion: v1
kind: Namespace
metadata:
  name: csi-powerstore
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: powerstore-controller
  namespace: csi-powerstore
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: powerstore-controller
rules:
- apiGroups: [""]
  resources: [persistentvolumes]
  verbs: [create, delete, get, list, watch, update, patch]
- apiGroups: [""]
  resources: [persistentvolumeclaims]
  verbs: [get, list, watch, update]
- apiGroups: [storage.k8s.io]
  resources: [storageclasses]
  verbs: [get, list, watch]
- apiGroups: [""]
  resources: [events]
  verbs: [list, watch, create, update, patch]
- apiGroups: [""]
  resources: [nodes]
  verbs: [get, list, watch]
- apiGroups: [storage.k8s.io]
  resources: [volumeattachments]
  verbs: [get, list, watch, update, patch]
- apiGroups: [storage.k8s.io]
  resources: [volumeattachments/status]
  verbs: [patch]
- apiGroups: [storage.k8s.io]
  resources: [csinodes]
  verbs: [get, list, watch, update]
- apiGroups: [snapshot.storage.k8s.io]
  resources: [volumesnapshotclasses, volumesnapshots]
  verbs: [get, list, watch]
- apiGroups: [snapshot.storage.k8s.io]
  resources: [volumesnapshotcontents]
  verbs: [get, list, watch, create, update, delete, patch]
- apiGroups: [snapshot.storage.k8s.io]
  resources: [volumesnapshotcontents/status]
  verbs: [update, patch]
- apiGroups: [""]
  resources: [persistentvolumeclaims/status]
  verbs: [update, patch]
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [get, watch, list, delete, update, create]
- apiGroups: [""]
  resources: [configmaps]
  verbs: [create, delete, get, list, patch, update, watch]
- apiGroups: [replication.storage.dell.com]
  resources: [dellcsireplicationgroups]
  verbs: [create, delete, get, list, patch, update, watch]
- apiGroups: [replication.storage.dell.com]
  resources: [dellcsireplicationgroups/status]
  verbs: [get, patch, update]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: powerstore-controller
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: powerstore-controller
subjects:
- kind: ServiceAccount
  name: powerstore-controller
  namespace: csi-powerstore
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: powerstore-node
  namespace: csi-powerstore
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata:
  name: csi-powerstore.dellemc.com
spec:
  attachRequired: true
  podInfoOnMount: true
  fsGroupPolicy: ReadWriteOnceWithFSType
  volumeLifecycleModes: [Persistent, Ephemeral]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: powerstore-controller
  namespace: csi-powerstore
spec:
  replicas: 2
  selector:
    matchLabels: {app: powerstore-controller}
  template:
    metadata:
      labels: {app: powerstore-controller}
    spec:
      serviceAccountName: powerstore-controller
      containers:
      - name: attacher
        image: registry.k8s.io/sig-storage/csi-attacher:v4.3.0
        args: ["--csi-address=$(ADDRESS)", "--v=5", "--leader-election", "--timeout=130s", "--worker-threads=130"]
      - name: provisioner
        image: registry.k8s.io/sig-storage/csi-provisioner:v3.5.0
        args: ["--csi-address=$(ADDRESS)", "--volume-name-prefix=csivol", "--volume-name-uuid-length=10", "--worker-threads=130", "--timeout=130s", "--extra-create-metadata", "--v=5", "--default-fstype=ext4", "--leader-election", "--enable-capacity=true", "--capacity-ownerref-level=2"]
      - name: snapshotter
        image: registry.k8s.io/sig-storage/csi-snapshotter:v6.2.2
        args: ["--csi-address=$(ADDRESS)", "--v=5", "--snapshot-name-prefix=snapshot", "--snapshot-name-uuid-length=10", "--timeout=180s", "--leader-election"]
      - name: resizer
        image: registry.k8s.io/sig-storage/csi-resizer:v1.8.0
        args: ["--csi-address=$(ADDRESS)", "--v=5", "--leader-election"]
      - name: dell-csi-replicator
        image: dellemc/dell-csi-replicator:v1.5.0
        args: ["--csi-address=$(ADDRESS)", "--leader-election=true", "--worker-threads=2", "--retry-interval-start=1s", "--retry-interval-max=300s", "--timeout=300s", "--context-prefix=powerstore", "--prefix=replication.storage.dell.com"]
      - name: driver
        image: dellemc/csi-powerstore:v2.7.0
        command: ["/csi-powerstore"]
        args: ["--array-config=/powerstore-config/config", "--driver-config-params=/powerstore-config-params/driver-config-params.yaml"]
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: powerstore-node
  namespace: csi-powerstore
spec:
  selector:
    matchLabels: {app: powerstore-node}
  template:
    metadata:
      labels: {app: powerstore-node}
    spec:
      serviceAccountName: powerstore-node
      containers:
      - name: driver
        image: dellemc/csi-powerstore:v2.7.0
        command: ["/csi-powerstore"]
        args: ["--array-config=/powerstore-config/config", "--driver-config-params=/powerstore-config-params/driver-config-params.yaml"]
      - name: registrar
        image: registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.8.0
        args: ["--v=5", "--csi-address=$(ADDRESS)", "--kubelet-registration-path=/var/lib/kubelet/plugins/csi-powerstore.dellemc.com/csi_sock"]
`,
		objects: `
apiVersion: replication.storage.dell.com/v1
kind: DellCSIReplicationGroup
metadata:
  name: ` + rg + `
  labels:
    replication.storage.dell.com/driverName: csi-powerstore.dellemc.com
    replication.storage.dell.com/remoteClusterID: target-cluster
    replication.storage.dell.com/remoteReplicationGroupName: ` + rg + `
  annotations:
    replication.storage.dell.com/contextPrefix: powerstore
    replication.storage.dell.com/remoteClusterID: target-cluster
    replication.storage.dell.com/remoteReplicationGroupName: ` + rg + `
    replication.storage.dell.com/rg_sync_complete: "yes"
  finalizers: [replication.storage.dell.com/replicationProtection]
spec:
  driverName: csi-powerstore.dellemc.com
  action: ""
  remoteClusterId: target-cluster
  protectionGroupId: 5ac8d0ab-9f3e-4d6a-b982-07c4e1f2a9d1
  protectionGroupAttributes:
    globalID: PS123456789
    remoteSystem: RT-D0042
    remoteSystemName: PS-target
    replicationSessionID: 3f6a2b1c-8e0d-4c57-a9b4-6d1e2f7c0a38
  remoteProtectionGroupId: 7e21c9d4-0b3a-4f6e-8c15-92d4a6b7e810
  remoteProtectionGroupAttributes:
    globalID: PS987654321
status:
  state: Deleting
  remoteState: Ready
  replicationLinkState:
    state: SYNCHRONIZED
    isSource: true
    lastSuccessfulUpdate: "2023-08-01T21:15:02Z"
  lastAction:
    condition: "Action SUSPEND succeeded"
    time: "2023-08-01T21:12:40Z"
`,
		finalizersBy: map[string]string{"DellCSIReplicationGroup//" + rg: "dell-csi-replicator"},
		deletes:      []string{"DellCSIReplicationGroup//" + rg},
	}.run(t)

	// The delete "doesn't finish and the test eventually times out".
	d := diagnoseAfter(t, time.Hour, "dellcsireplicationgroups.replication.storage.dell.com", rg)
	d.exit(1, "STUCK")
	f := d.finalizer("dellcsireplicationgroups.replication.storage.dell.com/"+rg, "replication.storage.dell.com/replicationProtection")
	// The replicator sidecar of the driver's controller removes it, and runs: it keeps failing on
	// the array.
	d.remover(f, "deployments.apps/powerstore-controller -n csi-powerstore", true)
	// The fix is on the array (detach the protection policy); a strip first would leave the
	// protection group on both arrays.
	d.notFirstFix(f, stripFinalizer)
	// What a strip leaves: the protection group the RG records.
	d.leaves(f, "5ac8d0ab-9f3e-4d6a-b982-07c4e1f2a9d1")
	d.never(f, reinstall, restoreController)
}
