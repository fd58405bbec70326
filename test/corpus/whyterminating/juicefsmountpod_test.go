package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/juicedata/juicefs-csi-driver/issues/340 ("Mount pod leak when
// deleting node"): after a node pool was deleted, the JuiceFS mount pods of its nodes stayed
// Terminating. A mount pod carries juicefs.com/finalizer, which the CSI node plugin on the pod's
// own node (spec.nodeName; the DaemonSet juicefs-csi-node) removes once it has unmounted the
// volume there: "That's because CSI node is gone when node pool deleted, finalizer of mount pod
// can not be removed." (#460 is the same with the controller restarted.) The fix made the
// driver clean up mount pods of deleted nodes; for pods already stuck the way out is to remove
// the finalizer by hand: the mount lived on the deleted node, so nothing is left anywhere the
// cluster can reach.
//
// Modelled on the JuiceFS CSI driver's deploy/k8s.yaml (v0.14): in kube-system, the
// ServiceAccounts juicefs-csi-controller-sa and juicefs-csi-node-sa, the ClusterRoles
// juicefs-external-provisioner-role and juicefs-csi-external-node-service-role (abbreviated) and
// their bindings, the StatefulSet juicefs-csi-controller and the DaemonSet juicefs-csi-node with
// their labels and images, the CSIDriver csi.juicefs.com. The replay's one node is worker-1; the
// mount pod's node no longer exists.
func TestCorpusJuiceFSMountPodOfDeletedNode(t *testing.T) {
	replay{
		install: `
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata:
  name: csi.juicefs.com
spec:
  attachRequired: false
  podInfoOnMount: false
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: juicefs-csi-controller-sa
  namespace: kube-system
  labels:
    app.kubernetes.io/name: juicefs-csi-driver
    app.kubernetes.io/instance: juicefs-csi-driver
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: juicefs-csi-node-sa
  namespace: kube-system
  labels:
    app.kubernetes.io/name: juicefs-csi-driver
    app.kubernetes.io/instance: juicefs-csi-driver
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: juicefs-external-provisioner-role
  labels:
    app.kubernetes.io/name: juicefs-csi-driver
    app.kubernetes.io/instance: juicefs-csi-driver
rules:
- apiGroups: [""]
  resources: ["persistentvolumes"]
  verbs: ["get", "list", "watch", "create", "delete"]
- apiGroups: [""]
  resources: ["persistentvolumeclaims"]
  verbs: ["get", "list", "watch", "update"]
- apiGroups: ["storage.k8s.io"]
  resources: ["storageclasses", "csinodes"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["get", "list", "watch", "create", "update", "patch"]
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: juicefs-csi-provisioner-binding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: juicefs-external-provisioner-role
subjects:
- kind: ServiceAccount
  name: juicefs-csi-controller-sa
  namespace: kube-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: juicefs-csi-external-node-service-role
  labels:
    app.kubernetes.io/name: juicefs-csi-driver
    app.kubernetes.io/instance: juicefs-csi-driver
rules:
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "list"]
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["get"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: juicefs-csi-node-service-binding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: juicefs-csi-external-node-service-role
subjects:
- kind: ServiceAccount
  name: juicefs-csi-node-sa
  namespace: kube-system
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: juicefs-csi-controller
  namespace: kube-system
  labels:
    app.kubernetes.io/name: juicefs-csi-driver
    app.kubernetes.io/instance: juicefs-csi-driver
    app.kubernetes.io/version: v0.14.1
spec:
  serviceName: juicefs-csi-controller
  replicas: 1
  selector:
    matchLabels:
      app: juicefs-csi-controller
      app.kubernetes.io/name: juicefs-csi-driver
      app.kubernetes.io/instance: juicefs-csi-driver
  template:
    metadata:
      labels:
        app: juicefs-csi-controller
        app.kubernetes.io/name: juicefs-csi-driver
        app.kubernetes.io/instance: juicefs-csi-driver
    spec:
      serviceAccountName: juicefs-csi-controller-sa
      priorityClassName: system-cluster-critical
      containers:
      - name: juicefs-plugin
        image: juicedata/juicefs-csi-driver:v0.14.1
        args: ["--endpoint=$(CSI_ENDPOINT)", "--logtostderr", "--nodeid=$(NODE_NAME)", "--v=5"]
      - name: csi-provisioner
        image: quay.io/k8scsi/csi-provisioner:v1.6.0
        args: ["--csi-address=$(ADDRESS)", "--timeout=60s", "--v=5"]
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: juicefs-csi-node
  namespace: kube-system
  labels:
    app.kubernetes.io/name: juicefs-csi-driver
    app.kubernetes.io/instance: juicefs-csi-driver
    app.kubernetes.io/version: v0.14.1
spec:
  selector:
    matchLabels:
      app: juicefs-csi-node
      app.kubernetes.io/name: juicefs-csi-driver
      app.kubernetes.io/instance: juicefs-csi-driver
  template:
    metadata:
      labels:
        app: juicefs-csi-node
        app.kubernetes.io/name: juicefs-csi-driver
        app.kubernetes.io/instance: juicefs-csi-driver
    spec:
      serviceAccountName: juicefs-csi-node-sa
      priorityClassName: system-node-critical
      containers:
      - name: juicefs-plugin
        image: juicedata/juicefs-csi-driver:v0.14.1
        args: ["--endpoint=$(CSI_ENDPOINT)", "--logtostderr", "--nodeid=$(NODE_NAME)", "--v=5", "--enable-manager=true"]
      - name: node-driver-registrar
        image: quay.io/k8scsi/csi-node-driver-registrar:v2.1.0
`,
		objects: `
apiVersion: v1
kind: Pod
metadata:
  name: juicefs-ip-10-20-7-113.ec2.internal-pvc-4b1d6f0e-93a2-4c7e-8f1a-2d5e6c7b8a90
  namespace: kube-system
  labels:
    app.kubernetes.io/name: juicefs-mount
    volume-id: pvc-4b1d6f0e-93a2-4c7e-8f1a-2d5e6c7b8a90
  annotations:
    juicefs-7a3c19e2f5: /var/lib/kubelet/pods/2f8e1c44-6b0d-4a9e-bc31-7d5a2e9f0c18/volumes/kubernetes.io~csi/pvc-4b1d6f0e-93a2-4c7e-8f1a-2d5e6c7b8a90/mount
  finalizers:
  - juicefs.com/finalizer
spec:
  nodeName: ip-10-20-7-113.ec2.internal
  priorityClassName: system-node-critical
  restartPolicy: Always
  containers:
  - name: jfs-mount
    image: juicedata/mount:v1.0.0-4.8.0
    command: ["sh", "-c", "/bin/mount.juicefs redis://redis.juicefs.svc:6379/1 /jfs/pvc-4b1d6f0e-93a2-4c7e-8f1a-2d5e6c7b8a90 -o metrics=0.0.0.0:9567"]
    securityContext:
      privileged: true
status:
  phase: Running
`,
		deletes: []string{"Pod/kube-system/juicefs-ip-10-20-7-113.ec2.internal-pvc-4b1d6f0e-93a2-4c7e-8f1a-2d5e6c7b8a90"},
	}.run(t)

	d := diagnoseAfter(t, 6*time.Hour, "pod", "juicefs-ip-10-20-7-113.ec2.internal-pvc-4b1d6f0e-93a2-4c7e-8f1a-2d5e6c7b8a90", "-n", "kube-system")
	d.exit(1, "STUCK")
	f := d.finalizer("pods/juicefs-ip-10-20-7-113.ec2.internal-pvc-4b1d6f0e-93a2-4c7e-8f1a-2d5e6c7b8a90 -n kube-system", "juicefs.com/finalizer")
	// What removes it runs on the pod's own node, which no longer exists: the node is named, and
	// the way out is the strip, not logs or a reinstall.
	d.names(f, "nodes/ip-10-20-7-113.ec2.internal")
	d.offers(f, stripFinalizer)
	d.notFirstFix(f, readLogs)
	d.never(f, reinstall)
}
