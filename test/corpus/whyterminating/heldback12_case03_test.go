package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/harvester/harvester/issues/3529 ("There's a VM stuck in terminating
// after upgrade"), with its cause and fix in harvester/harvester#3508 ("additional logic to remove
// legacy wrangler finalizer on VM", for #2677): after an upgrade of Harvester from v1.1.1 to
// v1.1.2-rc1, the upgrade's repository VM in harvester-system, deleted at the end of the upgrade,
// stays Terminating. Its finalizer wrangler.cattle.io/VMController.UnsetOwnerOfPVCs was put by the
// v1.1.1 VM controller through wrangler's OnRemove handler; v1.1.2 (#3255) manages its own
// finalizer harvesterhci.io/VMController.UnsetOwnerOfPVCs instead and no longer registers that
// handler, so nothing running removes the old one. The maintainers' fix has the controller remove
// the legacy finalizer; until then, removing that one finalizer by hand is the way out (the VMI
// and the volume are already gone). Harvester and KubeVirt run, Ready.
//
// Modelled on the Harvester chart of v1.1.2 (deploy/charts/harvester: the ServiceAccount harvester
// bound to cluster-admin, the Deployments harvester and harvester-webhook with their
// app.kubernetes.io labels) and the KubeVirt it bundles in harvester-system (virt-operator's
// virt-controller with the kubevirt-controller ClusterRole, abbreviated to kubevirt.io
// virtualmachines, virtualmachineinstances and their finalizers and status); the CRDs of
// kubevirt.io and harvesterhci.io that bear on the case, unlabelled. A user VM created before the
// upgrade, still running, carries KubeVirt's finalizer, the legacy one and the new one, as the
// v1.1.2-rc1 controller leaves it.
func TestCorpusVirtualMachineWithALegacyFinalizerAfterAnUpgrade(t *testing.T) {
	replay{
		crds: []crd{
			{group: "kubevirt.io", kind: "VirtualMachine", plural: "virtualmachines", namespaced: true, versions: []string{"v1", "v1alpha3"}},
			{group: "kubevirt.io", kind: "VirtualMachineInstance", plural: "virtualmachineinstances", namespaced: true, versions: []string{"v1", "v1alpha3"}},
			{group: "kubevirt.io", kind: "KubeVirt", plural: "kubevirts", namespaced: true, versions: []string{"v1", "v1alpha3"}},
			{group: "harvesterhci.io", kind: "VirtualMachineImage", plural: "virtualmachineimages", namespaced: true, versions: []string{"v1beta1"}},
			{group: "harvesterhci.io", kind: "Upgrade", plural: "upgrades", namespaced: true, versions: []string{"v1beta1"}},
			{group: "harvesterhci.io", kind: "Setting", plural: "settings", namespaced: false, versions: []string{"v1beta1"}},
			{group: "harvesterhci.io", kind: "KeyPair", plural: "keypairs", namespaced: true, versions: []string{"v1beta1"}},
			{group: "harvesterhci.io", kind: "VirtualMachineBackup", plural: "virtualmachinebackups", namespaced: true, versions: []string{"v1beta1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: harvester-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: harvester
  namespace: harvester-system
  labels: {app.kubernetes.io/name: harvester, app.kubernetes.io/component: apiserver, helm.sh/chart: harvester-1.1.2-rc1, app.kubernetes.io/managed-by: Helm}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: harvester
  labels: {app.kubernetes.io/name: harvester, app.kubernetes.io/component: apiserver, helm.sh/chart: harvester-1.1.2-rc1, app.kubernetes.io/managed-by: Helm}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-admin
subjects:
- kind: ServiceAccount
  name: harvester
  namespace: harvester-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: harvester
  namespace: harvester-system
  labels: {app.kubernetes.io/name: harvester, app.kubernetes.io/component: apiserver, helm.sh/chart: harvester-1.1.2-rc1, app.kubernetes.io/managed-by: Helm, app.kubernetes.io/version: v1.1.2-rc1}
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: harvester, app.kubernetes.io/component: apiserver}
  template:
    metadata:
      labels: {app.kubernetes.io/name: harvester, app.kubernetes.io/component: apiserver, app.kubernetes.io/version: v1.1.2-rc1}
    spec:
      serviceAccountName: harvester
      containers:
      - name: apiserver
        image: rancher/harvester:v1.1.2-rc1
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: harvester-webhook
  namespace: harvester-system
  labels: {app.kubernetes.io/name: harvester-webhook, app.kubernetes.io/component: webhook-server, helm.sh/chart: harvester-1.1.2-rc1, app.kubernetes.io/managed-by: Helm}
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: harvester, app.kubernetes.io/component: webhook-server}
  template:
    metadata:
      labels: {app.kubernetes.io/name: harvester, app.kubernetes.io/component: webhook-server}
    spec:
      serviceAccountName: harvester
      containers:
      - name: harvester-webhook
        image: rancher/harvester-webhook:v1.1.2-rc1
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kubevirt-controller
  namespace: harvester-system
  labels: {kubevirt.io: "", app.kubernetes.io/managed-by: virt-operator}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kubevirt-controller
  labels: {kubevirt.io: "", app.kubernetes.io/managed-by: virt-operator}
rules:
- apiGroups: ["kubevirt.io"]
  resources: ["*"]
  verbs: ["*"]
- apiGroups: [""]
  resources: ["pods", "persistentvolumeclaims"]
  verbs: ["get", "list", "watch", "create", "update", "delete", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kubevirt-controller
  labels: {kubevirt.io: "", app.kubernetes.io/managed-by: virt-operator}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: kubevirt-controller
subjects:
- kind: ServiceAccount
  name: kubevirt-controller
  namespace: harvester-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: virt-controller
  namespace: harvester-system
  labels: {kubevirt.io: virt-controller, app.kubernetes.io/managed-by: virt-operator, app.kubernetes.io/component: kubevirt, app.kubernetes.io/version: v0.54.0}
spec:
  replicas: 1
  selector:
    matchLabels: {kubevirt.io: virt-controller}
  template:
    metadata:
      labels: {kubevirt.io: virt-controller, app.kubernetes.io/managed-by: virt-operator}
    spec:
      serviceAccountName: kubevirt-controller
      containers:
      - name: virt-controller
        image: registry.suse.com/suse/sles/15.4/virt-controller:0.54.0-150400.3.7.1
`,
		objects: `
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: vm1
  namespace: default
  labels: {harvesterhci.io/creator: harvester}
  annotations: {kubevirt.io/latest-observed-api-version: v1, kubevirt.io/storage-observed-api-version: v1alpha3}
  finalizers:
  - kubevirt.io/virtualMachineControllerFinalize
  - wrangler.cattle.io/VMController.UnsetOwnerOfPVCs
  - harvesterhci.io/VMController.UnsetOwnerOfPVCs
spec:
  running: true
  template:
    spec:
      domain:
        devices:
          disks:
          - name: disk-0
            disk: {bus: virtio}
        resources:
          requests: {memory: 2Gi}
      volumes:
      - name: disk-0
        persistentVolumeClaim: {claimName: vm1-disk-0-x2k7d}
status:
  created: true
  ready: true
  printableStatus: Running
---
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: upgrade-repo-hvst-upgrade-bh6tz
  namespace: harvester-system
  labels: {harvesterhci.io/upgrade: hvst-upgrade-bh6tz, harvesterhci.io/upgradeComponent: repo}
  annotations: {kubevirt.io/latest-observed-api-version: v1, kubevirt.io/storage-observed-api-version: v1alpha3}
  finalizers:
  - wrangler.cattle.io/VMController.UnsetOwnerOfPVCs
spec:
  running: false
  template:
    spec:
      domain:
        devices:
          disks:
          - name: disk-0
            cdrom: {bus: sata}
        resources:
          requests: {memory: 1Gi}
      volumes:
      - name: disk-0
        persistentVolumeClaim: {claimName: upgrade-repo-hvst-upgrade-bh6tz-disk-0}
status:
  printableStatus: Stopped
`,
		deletes: []string{"VirtualMachine/harvester-system/upgrade-repo-hvst-upgrade-bh6tz"},
	}.run(t)

	// Found once the upgrade had finished, well after the VM's deletion.
	d := diagnoseAfter(t, time.Hour, "virtualmachines.kubevirt.io", "upgrade-repo-hvst-upgrade-bh6tz", "-n", "harvester-system")
	d.exit(1, "STUCK")
	ref := "virtualmachines.kubevirt.io/upgrade-repo-hvst-upgrade-bh6tz -n harvester-system"
	f := d.finalizer(ref, "wrangler.cattle.io/VMController.UnsetOwnerOfPVCs")
	// Nothing running removes the legacy finalizer any more: remove it by hand.
	d.verdict(f, finalizerOrphaned, removerStalled)
	d.firstFix(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
