package whyterminating_test

import "testing"

// Report: https://github.com/foundation-model-stack/multi-nic-cni/issues/74 ("IPPool cannot be
// deleted after live migration 1.0.2 to 1.0.3"): multi-nic-cni v1.0.2 put the wrong finalizer on
// its IPPools, finalizers.cidr.multinic.fms.io (the one it puts on CIDRs); v1.0.3 puts and removes
// finalizers.ippool.multinic.fms.io on IPPools. After the migration (the v1.0.2 resources saved
// and applied again under v1.0.3) an IPPool that carries the old finalizer "cannot be deleted by
// v1.0.3": the running operator removes only the finalizer it puts on IPPools. Nothing is wrong
// with the operator; the way out is removing that one stale finalizer by hand (the IPPool's
// allocations are the operator's own bookkeeping, recomputed from the CIDR).
//
// Modelled on the operator's config/ (kubebuilder layout, v1.0.3): namespace
// multi-nic-cni-operator-system, the ServiceAccount and Deployment
// multi-nic-cni-operator-controller-manager with its image, the ClusterRole
// multi-nic-cni-operator-manager-role (its rules on multinic.fms.io with their finalizers and
// status, the pods, nodes and network-attachment-definitions it reads or writes, abbreviated)
// and binding; the cluster-scoped CRDs of multinic.fms.io. The CIDR keeps its own finalizer; a
// second IPPool, created by v1.0.3, carries the new one; the stuck IPPool is the migrated one.
func TestCorpusMultiNicIPPoolWithTheFinalizerOfAnOlderRelease(t *testing.T) {
	replay{
		crds: []crd{
			{group: "multinic.fms.io", kind: "MultiNicNetwork", plural: "multinicnetworks", versions: []string{"v1"}},
			{group: "multinic.fms.io", kind: "CIDR", plural: "cidrs", versions: []string{"v1"}},
			{group: "multinic.fms.io", kind: "IPPool", plural: "ippools", versions: []string{"v1"}},
			{group: "multinic.fms.io", kind: "HostInterface", plural: "hostinterfaces", versions: []string{"v1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: multi-nic-cni-operator-system
  labels:
    control-plane: controller-manager
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: multi-nic-cni-operator-controller-manager
  namespace: multi-nic-cni-operator-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: multi-nic-cni-operator-manager-role
rules:
- apiGroups: ["multinic.fms.io"]
  resources: ["cidrs", "hostinterfaces", "ippools", "multinicnetworks"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["multinic.fms.io"]
  resources: ["cidrs/finalizers", "hostinterfaces/finalizers", "ippools/finalizers", "multinicnetworks/finalizers"]
  verbs: ["update"]
- apiGroups: ["multinic.fms.io"]
  resources: ["cidrs/status", "hostinterfaces/status", "ippools/status", "multinicnetworks/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["k8s.cni.cncf.io"]
  resources: ["network-attachment-definitions"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["configmaps", "pods", "nodes"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["apps"]
  resources: ["daemonsets"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: multi-nic-cni-operator-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: multi-nic-cni-operator-manager-role
subjects:
- kind: ServiceAccount
  name: multi-nic-cni-operator-controller-manager
  namespace: multi-nic-cni-operator-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: multi-nic-cni-operator-controller-manager
  namespace: multi-nic-cni-operator-system
  labels:
    control-plane: controller-manager
spec:
  replicas: 1
  selector:
    matchLabels:
      control-plane: controller-manager
  template:
    metadata:
      labels:
        control-plane: controller-manager
    spec:
      serviceAccountName: multi-nic-cni-operator-controller-manager
      containers:
      - name: manager
        image: ghcr.io/foundation-model-stack/multi-nic-cni-controller:v1.0.3
        command: ["/manager"]
        args: ["--leader-elect"]
`,
		objects: `
apiVersion: multinic.fms.io/v1
kind: MultiNicNetwork
metadata:
  name: multi-nic-sample
spec:
  subnet: 192.168.0.0/16
  ipam: |
    {"type": "multi-nic-ipam", "hostBlock": 6, "interfaceBlock": 2, "vlanMode": "l3"}
  multiNICIPAM: true
  plugin:
    cniVersion: "0.3.0"
    type: ipvlan
    args:
      mode: l3
---
apiVersion: multinic.fms.io/v1
kind: CIDR
metadata:
  name: multi-nic-sample
  finalizers:
  - finalizers.cidr.multinic.fms.io
spec:
  config:
    name: multi-nic-sample
    type: ipvlan
    subnet: 192.168.0.0/16
    hostBlock: 6
    interfaceBlock: 2
    masterNets: ["10.242.0.0/24", "10.242.1.0/24"]
  cidr:
  - netAddress: 10.242.0.0/24
    interfaceIndex: 0
    vlanCIDR: 192.168.0.0/18
    hosts:
    - hostName: worker-1
      hostIndex: 0
      podCIDR: 192.168.0.0/26
      ippool: multi-nic-sample-192.168.0.0-26
    - hostName: worker-2
      hostIndex: 1
      podCIDR: 192.168.0.64/26
      ippool: multi-nic-sample-192.168.0.64-26
---
apiVersion: multinic.fms.io/v1
kind: IPPool
metadata:
  name: multi-nic-sample-192.168.0.64-26
  finalizers:
  - finalizers.ippool.multinic.fms.io
spec:
  subnetCIDR: 192.168.0.0/16
  netAttachDef: multi-nic-sample
  hostName: worker-2
  interfaceName: eth1
  podCIDR: 192.168.0.64/26
  vlanCIDR: 192.168.0.0/18
  excludes: []
status:
  allocations: []
---
apiVersion: multinic.fms.io/v1
kind: IPPool
metadata:
  name: multi-nic-sample-192.168.0.0-26
  finalizers:
  - finalizers.cidr.multinic.fms.io
spec:
  subnetCIDR: 192.168.0.0/16
  netAttachDef: multi-nic-sample
  hostName: worker-1
  interfaceName: eth1
  podCIDR: 192.168.0.0/26
  vlanCIDR: 192.168.0.0/18
  excludes: []
status:
  allocations: []
`,
		deletes: []string{"IPPool//multi-nic-sample-192.168.0.0-26"},
	}.run(t)

	d := diagnose(t, "ippools.multinic.fms.io", "multi-nic-sample-192.168.0.0-26")
	d.exit(1, "STUCK")
	f := d.finalizer("ippools.multinic.fms.io/multi-nic-sample-192.168.0.0-26", "finalizers.cidr.multinic.fms.io")
	// The operator runs and may update IPPools, but the finalizer it puts on (and takes off)
	// IPPools is another one, which the other IPPool carries; this one is its CIDR finalizer,
	// left by an older release. Nothing will remove it: remove that one finalizer by hand.
	d.verdict(f, finalizerOrphaned)
	d.firstFix(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
