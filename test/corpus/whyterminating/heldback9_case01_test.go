package whyterminating_test

import "testing"

// Report: https://github.com/k8snetworkplumbingwg/sriov-network-operator/issues/132 ("Deleting
// sriovnetwork hangs when sriov-operator doesn't exist"): the SR-IOV Network Operator was
// deployed, a node policy and a SriovNetwork created, and the operator uninstalled; `kubectl
// delete` of the SriovNetwork then hangs on its finalizer
// netattdef.finalizers.sriovnetwork.openshift.io, which the operator's SriovNetwork controller
// removes after deleting the NetworkAttachmentDefinition it generated in the network's
// spec.networkNamespace. "You can delete finalizer manually to proceed object deletion" (the
// reporter, a contributor); the fix (#174) makes the operator strip its finalizers when it shuts
// down. The uninstall left the config daemon running (sriov-network-operator#564: the
// DaemonSet sriov-network-config-daemon is not deleted), which reconciles the node states, not
// networks. The way out: reinstall the operator, or remove the finalizer, and the generated
// NetworkAttachmentDefinition with it, by hand.
//
// Modelled on the operator's deploy/ (the release of the report, `make deploy-setup` into
// namespace sriov-network-operator): the CRDs of sriovnetwork.openshift.io; what the uninstall
// left: the namespace, the config daemon's ServiceAccount, Role (its rules on the node states and
// policies, abbreviated), binding and DaemonSet with its labels and image; Multus's CRD of
// k8s.cni.cncf.io and the NetworkAttachmentDefinition the operator generated, with the
// resourceName annotation it writes.
func TestCorpusSriovNetworkAfterTheOperatorWasUninstalled(t *testing.T) {
	replay{
		crds: []crd{
			{group: "sriovnetwork.openshift.io", kind: "SriovNetwork", plural: "sriovnetworks", namespaced: true, versions: []string{"v1"}},
			{group: "sriovnetwork.openshift.io", kind: "SriovNetworkNodePolicy", plural: "sriovnetworknodepolicies", namespaced: true, versions: []string{"v1"}},
			{group: "sriovnetwork.openshift.io", kind: "SriovNetworkNodeState", plural: "sriovnetworknodestates", namespaced: true, versions: []string{"v1"}},
			{group: "sriovnetwork.openshift.io", kind: "SriovOperatorConfig", plural: "sriovoperatorconfigs", namespaced: true, versions: []string{"v1"}},
			{group: "k8s.cni.cncf.io", kind: "NetworkAttachmentDefinition", plural: "network-attachment-definitions", namespaced: true, versions: []string{"v1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: sriov-network-operator
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: sriov-network-config-daemon
  namespace: sriov-network-operator
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: sriov-network-config-daemon
  namespace: sriov-network-operator
rules:
- apiGroups: ["sriovnetwork.openshift.io"]
  resources: ["sriovnetworknodestates", "sriovnetworknodestates/status"]
  verbs: ["get", "list", "watch", "patch", "update"]
- apiGroups: ["sriovnetwork.openshift.io"]
  resources: ["sriovnetworknodepolicies", "sriovoperatorconfigs"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["pods", "configmaps"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: sriov-network-config-daemon
  namespace: sriov-network-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: sriov-network-config-daemon
subjects:
- kind: ServiceAccount
  name: sriov-network-config-daemon
  namespace: sriov-network-operator
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: sriov-network-config-daemon
  namespace: sriov-network-operator
  annotations:
    release.openshift.io/version: "4.8"
spec:
  selector:
    matchLabels:
      app: sriov-network-config-daemon
  template:
    metadata:
      labels:
        app: sriov-network-config-daemon
        component: network
        type: infra
        openshift.io/component: network
    spec:
      hostNetwork: true
      hostPID: true
      serviceAccountName: sriov-network-config-daemon
      containers:
      - name: sriov-network-config-daemon
        image: quay.io/openshift/origin-sriov-network-config-daemon:4.8
        command: ["sriov-network-config-daemon"]
        args: ["start"]
        securityContext:
          privileged: true
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: sriov-test
---
apiVersion: sriovnetwork.openshift.io/v1
kind: SriovNetworkNodePolicy
metadata:
  name: policy-intel-xxv710
  namespace: sriov-network-operator
spec:
  resourceName: intelnics
  nodeSelector:
    feature.node.kubernetes.io/network-sriov.capable: "true"
  numVfs: 8
  nicSelector:
    vendor: "8086"
    pfNames: ["ens785f0"]
  deviceType: netdevice
---
apiVersion: sriovnetwork.openshift.io/v1
kind: SriovNetwork
metadata:
  name: sriov-net-a
  namespace: sriov-network-operator
  finalizers:
  - netattdef.finalizers.sriovnetwork.openshift.io
spec:
  resourceName: intelnics
  networkNamespace: sriov-test
  vlan: 100
  ipam: |
    {"type": "host-local", "subnet": "10.56.217.0/24", "rangeStart": "10.56.217.171", "rangeEnd": "10.56.217.181", "gateway": "10.56.217.1"}
---
apiVersion: k8s.cni.cncf.io/v1
kind: NetworkAttachmentDefinition
metadata:
  name: sriov-net-a
  namespace: sriov-test
  annotations:
    k8s.v1.cni.cncf.io/resourceName: openshift.io/intelnics
spec:
  config: '{"cniVersion":"0.3.1","name":"sriov-net-a","type":"sriov","vlan":100,"ipam":{"type":"host-local","subnet":"10.56.217.0/24","rangeStart":"10.56.217.171","rangeEnd":"10.56.217.181","gateway":"10.56.217.1"}}'
`,
		deletes: []string{"SriovNetwork/sriov-network-operator/sriov-net-a"},
	}.run(t)

	d := diagnose(t, "sriovnetworks.sriovnetwork.openshift.io", "sriov-net-a", "-n", "sriov-network-operator")
	d.exit(1, "STUCK")
	f := d.finalizer("sriovnetworks.sriovnetwork.openshift.io/sriov-net-a -n sriov-network-operator", "netattdef.finalizers.sriovnetwork.openshift.io")
	// The operator is gone; the config daemon runs but may not touch SriovNetworks: it is not the
	// remover. Reinstall, or strip — which leaves the NetworkAttachmentDefinition the operator
	// generated in the network's namespace.
	d.verdict(f, controllerAbsent)
	d.noRunningRemover(f)
	d.notRemover(f, "daemonsets.apps/sriov-network-config-daemon -n sriov-network-operator")
	d.offers(f, reinstall, restoreController)
	d.offers(f, stripFinalizer)
	d.stripCosts(f, "network-attachment-definitions.k8s.cni.cncf.io/sriov-net-a -n sriov-test")
}
