package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/topolvm/topolvm/issues/715 ("LogicalVolumes \"leak\" and slow down
// provisioning"), fixed by https://github.com/topolvm/topolvm/pull/723: nodes managed by
// Karpenter are drained and deleted; LogicalVolumes of volumes that lived on them stay deleted
// but "hung waiting on the finalizer to be removed on the LogicalVolume". Only topolvm-node, the
// DaemonSet pod on the volume's own node (spec.nodeName), removes topolvm.io/logicalvolume once
// it has removed the logical volume from that node's volume group; the node is gone, so "the node
// is gone so topolvm-node isn't around to remove the finalizer again", and they pile up. The way
// out for the ones already stuck: remove the finalizer by hand; the logical volume lived on the
// gone node's disks, so nothing is left anywhere the cluster can reach.
//
// Modelled on TopoLVM's Helm chart (charts/topolvm, v0.18 era): namespace topolvm-system, the
// ServiceAccounts, ClusterRoles topolvm-system:controller and topolvm-system:node with their
// rules on topolvm.io (abbreviated) and bindings, the Deployment topolvm-controller and the
// DaemonSet topolvm-node with the chart's labels and images, the CSIDriver topolvm.io and the
// CRD logicalvolumes.topolvm.io. The webhooks are left out: the replay's pods answer no
// requests. The replay's one node is worker-1; the LogicalVolume's node no longer exists.
func TestCorpusTopoLVMLogicalVolumeOfDeletedNode(t *testing.T) {
	chart := map[string]string{"app.kubernetes.io/name": "topolvm", "app.kubernetes.io/instance": "topolvm", "app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "topolvm-11.2.1"}
	replay{
		crds: []crd{{group: "topolvm.io", kind: "LogicalVolume", plural: "logicalvolumes", versions: []string{"v1"}, labels: chart}},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: topolvm-system
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata:
  name: topolvm.io
spec:
  attachRequired: false
  podInfoOnMount: true
  storageCapacity: true
  volumeLifecycleModes: ["Persistent", "Ephemeral"]
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: topolvm-controller
  namespace: topolvm-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: topolvm-node
  namespace: topolvm-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: topolvm-system:controller
  labels:
    app.kubernetes.io/name: topolvm
    app.kubernetes.io/instance: topolvm
    helm.sh/chart: topolvm-11.2.1
rules:
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["get", "list", "watch", "patch", "update"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "delete"]
- apiGroups: [""]
  resources: ["persistentvolumeclaims"]
  verbs: ["get", "list", "watch", "update", "delete"]
- apiGroups: ["storage.k8s.io"]
  resources: ["storageclasses", "csidrivers"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["topolvm.io"]
  resources: ["logicalvolumes", "logicalvolumes/status"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: topolvm-system:controller
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: topolvm-system:controller
subjects:
- kind: ServiceAccount
  name: topolvm-controller
  namespace: topolvm-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: topolvm-system:node
  labels:
    app.kubernetes.io/name: topolvm
    app.kubernetes.io/instance: topolvm
    helm.sh/chart: topolvm-11.2.1
rules:
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["get", "list", "watch", "update", "patch"]
- apiGroups: ["topolvm.io"]
  resources: ["logicalvolumes", "logicalvolumes/status"]
  verbs: ["get", "list", "watch", "create", "update", "delete", "patch"]
- apiGroups: ["storage.k8s.io"]
  resources: ["csidrivers"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: topolvm-system:node
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: topolvm-system:node
subjects:
- kind: ServiceAccount
  name: topolvm-node
  namespace: topolvm-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: topolvm-controller
  namespace: topolvm-system
  labels:
    app.kubernetes.io/name: topolvm
    app.kubernetes.io/instance: topolvm
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: topolvm-11.2.1
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/component: controller
      app.kubernetes.io/name: topolvm
  template:
    metadata:
      labels:
        app.kubernetes.io/component: controller
        app.kubernetes.io/name: topolvm
    spec:
      serviceAccountName: topolvm-controller
      containers:
      - name: topolvm-controller
        image: ghcr.io/topolvm/topolvm-with-sidecar:0.18.1
        command: ["/topolvm-controller", "--cert-dir=/certs"]
      - name: csi-provisioner
        image: ghcr.io/topolvm/topolvm-with-sidecar:0.18.1
        command: ["/csi-provisioner", "--csi-address=/run/topolvm/csi-topolvm.sock", "--feature-gates=Topology=true", "--leader-election"]
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: topolvm-node
  namespace: topolvm-system
  labels:
    app.kubernetes.io/name: topolvm
    app.kubernetes.io/instance: topolvm
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: topolvm-11.2.1
spec:
  selector:
    matchLabels:
      app.kubernetes.io/component: node
      app.kubernetes.io/name: topolvm
  template:
    metadata:
      labels:
        app.kubernetes.io/component: node
        app.kubernetes.io/name: topolvm
    spec:
      serviceAccountName: topolvm-node
      containers:
      - name: topolvm-node
        image: ghcr.io/topolvm/topolvm-with-sidecar:0.18.1
        command: ["/topolvm-node", "--embed-lvmd"]
        env:
        - name: NODE_NAME
          valueFrom:
            fieldRef:
              fieldPath: spec.nodeName
`,
		objects: `
apiVersion: topolvm.io/v1
kind: LogicalVolume
metadata:
  name: pvc-3f2a9c1e-8d4b-4f6a-b1e2-7c9d0a5e4f31
  finalizers:
  - topolvm.io/logicalvolume
spec:
  name: pvc-3f2a9c1e-8d4b-4f6a-b1e2-7c9d0a5e4f31
  nodeName: ip-10-0-41-17.eu-west-1.compute.internal
  deviceClass: ssd
  size: 20Gi
  source: ""
  accessType: ""
status:
  volumeID: 6c1f7a0e-2b9d-4d8e-9a41-5e0c3b7d2f18
  currentSize: 20Gi
`,
		deletes: []string{"LogicalVolume//pvc-3f2a9c1e-8d4b-4f6a-b1e2-7c9d0a5e4f31"},
	}.run(t)

	d := diagnoseAfter(t, 24*time.Hour, "logicalvolumes.topolvm.io", "pvc-3f2a9c1e-8d4b-4f6a-b1e2-7c9d0a5e4f31")
	d.exit(1, "STUCK")
	f := d.finalizer("logicalvolumes.topolvm.io/pvc-3f2a9c1e-8d4b-4f6a-b1e2-7c9d0a5e4f31", "topolvm.io/logicalvolume")
	// What removes it would run on a node that no longer exists: the node is named, and the way
	// out is the strip, not logs or a reinstall.
	d.names(f, "nodes/ip-10-0-41-17.eu-west-1.compute.internal")
	d.offers(f, stripFinalizer)
	d.notFirstFix(f, readLogs)
	d.never(f, reinstall)
}
