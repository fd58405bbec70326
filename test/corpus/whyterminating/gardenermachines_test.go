package whyterminating_test

import (
	"strings"
	"testing"
)

// Report: https://github.com/gardener/gardener/issues/238 ("Deletion of a Shoot Namespace on Seed
// stuck in Terminating"): after the Shoot's deletion got stuck, the operator removed the cloud
// provider's resources by hand and deleted the Shoot's namespace on the Seed. It stayed
// Terminating: "The machine-controller-manager in the same namespace is deleted before the CRDs
// are being handled by it, and CRDs with finalizers blocked the deletion of the Namespace. I had
// to go through all resources in the Namespace and manually remove the finalizers". The
// maintainers: nobody should delete things in the seed by hand, and whoever does must know what
// is left. The finalizer machine.sapcloud.io/machine-controller-manager on the Machines,
// MachineSets, MachineDeployment, machine class and its Secret has no remover any more (it ran
// in the namespace being deleted, which refuses it back): removing it by hand is the way out,
// and what it leaves are the virtual machines the Machines record, unless they were deleted at
// the provider (here they were, by hand).
//
// Modelled on what Gardener (0.x, 2018) deploys into a Shoot's namespace on the Seed for the
// machine-controller-manager: the CRDs of machine.sapcloud.io, the AzureMachineClass and its
// Secret, the MachineDeployment, MachineSet and Machines of the worker pool with the finalizer
// and the provider IDs of their VMs. The machine-controller-manager's Deployment and
// ServiceAccount went with the namespace's first sweep.
func TestCorpusGardenerMachinesAfterTheirControllerWasDeletedWithTheNamespace(t *testing.T) {
	const vm = "shoot--garden-dev--gardener-poc-azure-cpu-worker-z1-7f9b8-4x2kq"
	replay{
		crds: []crd{
			{group: "machine.sapcloud.io", kind: "Machine", plural: "machines", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "machine.sapcloud.io", kind: "MachineSet", plural: "machinesets", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "machine.sapcloud.io", kind: "MachineDeployment", plural: "machinedeployments", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "machine.sapcloud.io", kind: "AzureMachineClass", plural: "azuremachineclasses", namespaced: true, versions: []string{"v1alpha1"}},
		},
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: shoot--garden-dev--gardener-poc-azure
  labels:
    garden.sapcloud.io/role: shoot
---
apiVersion: v1
kind: Secret
metadata:
  name: cloudprovider
  namespace: shoot--garden-dev--gardener-poc-azure
  finalizers:
  - machine.sapcloud.io/machine-controller-manager
type: Opaque
data:
  clientID: Y2xpZW50
  clientSecret: c2VjcmV0
---
apiVersion: machine.sapcloud.io/v1alpha1
kind: AzureMachineClass
metadata:
  name: shoot--garden-dev--gardener-poc-azure-cpu-worker-z1-7f9b8
  namespace: shoot--garden-dev--gardener-poc-azure
  finalizers:
  - machine.sapcloud.io/machine-controller-manager
spec:
  location: westeurope
  resourceGroup: shoot--garden-dev--gardener-poc-azure
  properties:
    hardwareProfile:
      vmSize: Standard_D2_v3
  secretRef:
    name: cloudprovider
    namespace: shoot--garden-dev--gardener-poc-azure
---
apiVersion: machine.sapcloud.io/v1alpha1
kind: MachineDeployment
metadata:
  name: shoot--garden-dev--gardener-poc-azure-cpu-worker-z1
  namespace: shoot--garden-dev--gardener-poc-azure
  finalizers:
  - machine.sapcloud.io/machine-controller-manager
spec:
  replicas: 1
  selector:
    matchLabels:
      name: shoot--garden-dev--gardener-poc-azure-cpu-worker-z1
  template:
    metadata:
      labels:
        name: shoot--garden-dev--gardener-poc-azure-cpu-worker-z1
    spec:
      class:
        kind: AzureMachineClass
        name: shoot--garden-dev--gardener-poc-azure-cpu-worker-z1-7f9b8
---
apiVersion: machine.sapcloud.io/v1alpha1
kind: MachineSet
metadata:
  name: shoot--garden-dev--gardener-poc-azure-cpu-worker-z1-7f9b8
  namespace: shoot--garden-dev--gardener-poc-azure
  labels:
    name: shoot--garden-dev--gardener-poc-azure-cpu-worker-z1
  finalizers:
  - machine.sapcloud.io/machine-controller-manager
  ownerReferences:
  - apiVersion: machine.sapcloud.io/v1alpha1
    kind: MachineDeployment
    name: shoot--garden-dev--gardener-poc-azure-cpu-worker-z1
    controller: true
    blockOwnerDeletion: true
spec:
  replicas: 1
  selector:
    matchLabels:
      name: shoot--garden-dev--gardener-poc-azure-cpu-worker-z1
  template:
    spec:
      class:
        kind: AzureMachineClass
        name: shoot--garden-dev--gardener-poc-azure-cpu-worker-z1-7f9b8
---
apiVersion: machine.sapcloud.io/v1alpha1
kind: Machine
metadata:
  name: shoot--garden-dev--gardener-poc-azure-cpu-worker-z1-7f9b8-4x2kq
  namespace: shoot--garden-dev--gardener-poc-azure
  labels:
    name: shoot--garden-dev--gardener-poc-azure-cpu-worker-z1
  finalizers:
  - machine.sapcloud.io/machine-controller-manager
  ownerReferences:
  - apiVersion: machine.sapcloud.io/v1alpha1
    kind: MachineSet
    name: shoot--garden-dev--gardener-poc-azure-cpu-worker-z1-7f9b8
    controller: true
    blockOwnerDeletion: true
spec:
  class:
    kind: AzureMachineClass
    name: shoot--garden-dev--gardener-poc-azure-cpu-worker-z1-7f9b8
  providerID: azure:///subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/shoot--garden-dev--gardener-poc-azure/providers/Microsoft.Compute/virtualMachines/shoot--garden-dev--gardener-poc-azure-cpu-worker-z1-7f9b8-4x2kq
status:
  node: shoot--garden-dev--gardener-poc-azure-cpu-worker-z1-7f9b8-4x2kq
  currentStatus:
    phase: Running
    timeoutActive: false
    lastUpdateTime: "2018-06-23T21:02:44Z"
  lastOperation:
    description: Machine is now ready
    state: Successful
    type: Create
    lastUpdateTime: "2018-06-23T21:02:44Z"
`,
		deletes: []string{"Namespace//shoot--garden-dev--gardener-poc-azure"},
	}.run(t)

	d := diagnose(t, "namespace", "shoot--garden-dev--gardener-poc-azure")
	d.exit(1, "STUCK")
	f := d.finalizer("machines.machine.sapcloud.io/"+vm+" -n shoot--garden-dev--gardener-poc-azure", "machine.sapcloud.io/machine-controller-manager")
	// Nothing runs that removes the finalizer, and its controller cannot come back into the
	// namespace being deleted: the strip is the way out, and it names the virtual machine the
	// Machine records, which stays at the provider unless it was deleted there.
	d.verdict(f, controllerAbsent, finalizerOrphaned)
	d.noRunningRemover(f)
	d.never(f, readLogs, reinstall)
	d.offers(f, stripFinalizer)
	costed := false
	for _, r := range f.Remedies {
		costed = costed || (r.Code == stripFinalizer && strings.Contains(r.Cost, "virtualMachines/"+vm))
	}
	if !costed {
		t.Errorf("the strip's cost does not name the virtual machine of spec.providerID: %q", remedySummaries(f))
	}
	s := d.finalizer("secrets/cloudprovider -n shoot--garden-dev--gardener-poc-azure", "machine.sapcloud.io/machine-controller-manager")
	d.noRunningRemover(s)
	d.offers(s, stripFinalizer)
}
