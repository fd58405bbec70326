package whyterminating_test

import "testing"

// Report: https://github.com/kubernetes-sigs/vsphere-csi-driver/issues/502: a PersistentVolume
// stays Terminating with external-attacher/csi-vsphere-vmware-com after its claim was deleted;
// "there's a corresponding VolumeAttachment object that refers to that PV, so the finalizer
// needs to be removed from it" — the attacher cannot detach a volume the backend no longer
// has, so the VolumeAttachment (itself being deleted, its status carrying the detach error)
// holds the volume. The documented workaround (known issue 5) acts on the VolumeAttachment, not
// on the volume.
//
// Modelled on vsphere-csi-driver v2.0 manifests/v2.0.0/vsphere-67u3/vanilla/deploy
// (vsphere-csi-controller-rbac.yaml, vsphere-csi-controller-deployment.yaml,
// vsphere-csi-node-ds.yaml): namespace kube-system, ServiceAccount vsphere-csi-controller,
// ClusterRole vsphere-csi-controller-role with its rules and binding, the controller Deployment
// (csi-attacher, vsphere-csi-controller, csi-provisioner containers) and the node DaemonSet,
// and the CSIDriver csi.vsphere.vmware.com.
func TestCorpusVSphereCSIVolumeAttachmentHoldsVolume(t *testing.T) {
	replay{
		install: `
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata:
  name: csi.vsphere.vmware.com
spec:
  attachRequired: true
  podInfoOnMount: false
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: vsphere-csi-controller
  namespace: kube-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: vsphere-csi-controller-role
rules:
- apiGroups: [""]
  resources: ["nodes", "persistentvolumeclaims", "pods"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["persistentvolumes"]
  verbs: ["get", "list", "watch", "create", "update", "delete", "patch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["get", "list", "watch", "create", "update", "patch"]
- apiGroups: ["storage.k8s.io"]
  resources: ["storageclasses", "csinodes"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["storage.k8s.io"]
  resources: ["volumeattachments"]
  verbs: ["get", "list", "watch", "update", "patch"]
- apiGroups: ["cns.vmware.com"]
  resources: ["cnsvspherevolumemigrations"]
  verbs: ["create", "get", "list", "watch", "update", "delete"]
- apiGroups: ["apiextensions.k8s.io"]
  resources: ["customresourcedefinitions"]
  verbs: ["get", "create"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: vsphere-csi-controller-binding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: vsphere-csi-controller-role
subjects:
- kind: ServiceAccount
  name: vsphere-csi-controller
  namespace: kube-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vsphere-csi-controller
  namespace: kube-system
spec:
  replicas: 1
  selector:
    matchLabels:
      app: vsphere-csi-controller
  template:
    metadata:
      labels:
        app: vsphere-csi-controller
        role: vsphere-csi
    spec:
      serviceAccountName: vsphere-csi-controller
      containers:
      - name: csi-attacher
        image: quay.io/k8scsi/csi-attacher:v2.0.0
        args: ["--v=4", "--timeout=300s", "--csi-address=$(ADDRESS)", "--leader-election"]
      - name: vsphere-csi-controller
        image: gcr.io/cloud-provider-vsphere/csi/release/driver:v2.0.0
      - name: csi-provisioner
        image: quay.io/k8scsi/csi-provisioner:v1.4.0
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: vsphere-csi-node
  namespace: kube-system
spec:
  selector:
    matchLabels:
      app: vsphere-csi-node
  template:
    metadata:
      labels:
        app: vsphere-csi-node
        role: vsphere-csi
    spec:
      containers:
      - name: node-driver-registrar
        image: quay.io/k8scsi/csi-node-driver-registrar:v1.2.0
      - name: vsphere-csi-node
        image: gcr.io/cloud-provider-vsphere/csi/release/driver:v2.0.0
`,
		objects: `
apiVersion: v1
kind: PersistentVolume
metadata:
  name: pvc-6e1e0d9f-4d1b-4c55-9f5b-1a0c5a2d6b7e
  annotations:
    pv.kubernetes.io/provisioned-by: csi.vsphere.vmware.com
  finalizers:
  - kubernetes.io/pv-protection
  - external-attacher/csi-vsphere-vmware-com
spec:
  capacity:
    storage: 5Gi
  accessModes: ["ReadWriteOnce"]
  persistentVolumeReclaimPolicy: Delete
  storageClassName: vsphere-sc
  claimRef:
    kind: PersistentVolumeClaim
    namespace: default
    name: data-postgres-0
    uid: 0b9c3f1e-2a8d-4f5e-9c1a-7d6e5f4a3b2c
  csi:
    driver: csi.vsphere.vmware.com
    volumeHandle: 9d1c6a52-6d0b-4f8c-a1e7-3b2f5c8d9e10
    fsType: ext4
status:
  phase: Released
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata:
  name: csi-5a0c2f7b3e9d4c1a8b6f0e2d7c9a1b3e5f7d9c0b2a4e6f8d1c3b5a7e9f0d2c4b
  finalizers:
  - external-attacher/csi-vsphere-vmware-com
spec:
  attacher: csi.vsphere.vmware.com
  nodeName: worker-1
  source:
    persistentVolumeName: pvc-6e1e0d9f-4d1b-4c55-9f5b-1a0c5a2d6b7e
status:
  attached: true
  detachError:
    time: "2020-12-15T08:21:40Z"
    message: 'rpc error: code = Internal desc = failed to detach disk: 9d1c6a52-6d0b-4f8c-a1e7-3b2f5c8d9e10 from node: worker-1. Error: volume not found'
`,
		deletes: []string{
			"VolumeAttachment//csi-5a0c2f7b3e9d4c1a8b6f0e2d7c9a1b3e5f7d9c0b2a4e6f8d1c3b5a7e9f0d2c4b",
			"PersistentVolume//pvc-6e1e0d9f-4d1b-4c55-9f5b-1a0c5a2d6b7e",
		},
	}.run(t)

	d := diagnose(t, "persistentvolume", "pvc-6e1e0d9f-4d1b-4c55-9f5b-1a0c5a2d6b7e")
	d.exit(1, "STUCK")
	f := d.finalizer("persistentvolumes/pvc-6e1e0d9f-4d1b-4c55-9f5b-1a0c5a2d6b7e", "external-attacher/csi-vsphere-vmware-com")
	d.verdict(f, blockedByObjects)
	d.blocker(f, "volumeattachments.storage.k8s.io/csi-5a0c2f7b3e9d4c1a8b6f0e2d7c9a1b3e5f7d9c0b2a4e6f8d1c3b5a7e9f0d2c4b")
	d.notFirstFix(f, stripFinalizer, reinstall)
}
