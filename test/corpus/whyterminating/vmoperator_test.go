package whyterminating_test

import "testing"

// Report: https://github.com/vmware-tanzu/vm-operator/pull/620 ("Revert to returning early if
// the pause annotation is present on the VM"): with the vmoperator.vmware.com/paused annotation
// on a VirtualMachine, VM Operator returns early from both reconcile paths, "Create/Update and
// Delete", so a paused VM being deleted keeps its finalizer until the annotation is removed.
// Unpausing is the fix; stripping the finalizer would leave the vSphere VM behind.
//
// Modelled on vm-operator's config (config/default, config/rbac/role.yaml): namespace
// vmware-system-vmop, ServiceAccount, ClusterRole vmware-system-vmop-manager-role with its rules
// on vmoperator.vmware.com, binding, Deployment vmware-system-vmop-controller-manager; the
// finalizer vmoperator.vmware.com/virtualmachine and the annotation as the e2e tests set it
// (present, empty value).
func TestCorpusVMOperatorPausedVirtualMachine(t *testing.T) {
	replay{
		crds: []crd{
			{group: "vmoperator.vmware.com", kind: "VirtualMachine", plural: "virtualmachines", namespaced: true, versions: []string{"v1alpha2", "v1alpha1"}},
			{group: "vmoperator.vmware.com", kind: "VirtualMachineClass", plural: "virtualmachineclasses", namespaced: true, versions: []string{"v1alpha2", "v1alpha1"}},
			{group: "vmoperator.vmware.com", kind: "VirtualMachineImage", plural: "virtualmachineimages", namespaced: true, versions: []string{"v1alpha2", "v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: vmware-system-vmop
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: vmware-system-vmop-controller-manager
  namespace: vmware-system-vmop
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: vmware-system-vmop-manager-role
rules:
- apiGroups: ["vmoperator.vmware.com"]
  resources: ["virtualmachines", "virtualmachineclasses", "virtualmachineimages", "virtualmachineservices", "virtualmachinesetresourcepolicies"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["vmoperator.vmware.com"]
  resources: ["virtualmachines/status", "virtualmachineclasses/status", "virtualmachineimages/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: [""]
  resources: ["configmaps", "secrets", "services", "endpoints", "events"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: vmware-system-vmop-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: vmware-system-vmop-manager-role
subjects:
- kind: ServiceAccount
  name: vmware-system-vmop-controller-manager
  namespace: vmware-system-vmop
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vmware-system-vmop-controller-manager
  namespace: vmware-system-vmop
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
      serviceAccountName: vmware-system-vmop-controller-manager
      containers:
      - name: manager
        image: vmoperator-controller:1.8.6
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: ns-dev
---
apiVersion: vmoperator.vmware.com/v1alpha2
kind: VirtualMachine
metadata:
  name: db-vm-01
  namespace: ns-dev
  annotations:
    vmoperator.vmware.com/paused: ""
  finalizers:
  - vmoperator.vmware.com/virtualmachine
spec:
  className: best-effort-small
  imageName: vmi-0a0044d7c690bcbea
  powerState: PoweredOn
  storageClass: wcpglobal-storage-profile
status:
  uniqueID: vm-1042
  biosUUID: 4231bcd5-51ab-8a0e-12e1-8ec0d3d1b4f6
  powerState: PoweredOn
`,
		deletes: []string{"VirtualMachine/ns-dev/db-vm-01"},
	}.run(t)

	d := diagnose(t, "virtualmachines.vmoperator.vmware.com", "db-vm-01", "-n", "ns-dev")
	d.exit(1, "STUCK")
	f := d.finalizer("virtualmachines.vmoperator.vmware.com/db-vm-01 -n ns-dev", "vmoperator.vmware.com/virtualmachine")
	d.remover(f, "deployments.apps/vmware-system-vmop-controller-manager -n vmware-system-vmop", true)
	d.verdict(f, reconcilePaused)
	d.firstFix(f, unpause)
	d.never(f, stripFinalizer, readLogs)
}
