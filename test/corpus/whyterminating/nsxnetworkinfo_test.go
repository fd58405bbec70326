package whyterminating_test

import "testing"

// Report: https://github.com/vmware-tanzu/nsx-operator/pull/778 ("Remove NetworkInfo
// Finalizer"): "when a Namespace is created and then deleted, then if we stop the Pod or other
// abnormal conditions in the Pod, the NetworkInfo resource cannot be cleaned up, causing the
// Namespace to remain stuck in the terminating state". The NetworkInfo of each namespace carries
// networkinfo.crd.nsx.vmware.com/finalizer, which nsx-operator removes after deleting the
// namespace's VPC in NSX; the PR's test was to "delete the Namespace and check for any stale VPC
// in NSX". With the operator stopped, the way out is to start it again (it then deletes the VPC
// and lets the namespace go); removing the finalizer by hand leaves the VPC the NetworkInfo
// records in NSX.
//
// Modelled on nsx-operator's build/yaml (v4.2 line): namespace vmware-system-nsx, the
// ServiceAccount ncp-svc-account, the ClusterRole nsx-operator-role (its rules on
// crd.nsx.vmware.com with their finalizers and status, and the namespaces it watches,
// abbreviated) and binding, and the Deployment nsx-operator, scaled to zero: the stopped
// operator. The CRDs of crd.nsx.vmware.com are abbreviated to the VPC types. The namespace's
// NetworkInfo records its VPC as the operator writes it.
func TestCorpusNSXNetworkInfoWhileItsOperatorIsStopped(t *testing.T) {
	replay{
		crds: []crd{
			{group: "crd.nsx.vmware.com", kind: "NetworkInfo", plural: "networkinfos", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "crd.nsx.vmware.com", kind: "VPCNetworkConfiguration", plural: "vpcnetworkconfigurations", versions: []string{"v1alpha1"}},
			{group: "crd.nsx.vmware.com", kind: "SubnetSet", plural: "subnetsets", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "crd.nsx.vmware.com", kind: "SubnetPort", plural: "subnetports", namespaced: true, versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: vmware-system-nsx
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: ncp-svc-account
  namespace: vmware-system-nsx
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: nsx-operator-role
rules:
- apiGroups: ["crd.nsx.vmware.com"]
  resources: ["networkinfos", "vpcnetworkconfigurations", "subnetsets", "subnetports"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["crd.nsx.vmware.com"]
  resources: ["networkinfos/finalizers", "vpcnetworkconfigurations/finalizers", "subnetsets/finalizers", "subnetports/finalizers"]
  verbs: ["update"]
- apiGroups: ["crd.nsx.vmware.com"]
  resources: ["networkinfos/status", "vpcnetworkconfigurations/status", "subnetsets/status", "subnetports/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: [""]
  resources: ["namespaces", "pods", "nodes", "services"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: nsx-operator-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: nsx-operator-role
subjects:
- kind: ServiceAccount
  name: ncp-svc-account
  namespace: vmware-system-nsx
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nsx-operator
  namespace: vmware-system-nsx
  labels:
    component: nsx-operator
spec:
  replicas: 0
  selector:
    matchLabels:
      component: nsx-operator
  template:
    metadata:
      labels:
        component: nsx-operator
        version: v1
    spec:
      serviceAccountName: ncp-svc-account
      hostNetwork: true
      containers:
      - name: nsx-operator
        image: vmware/nsx-container-plugin-operator:v4.2.0
        command: ["/usr/local/bin/nsx-operator"]
        args: ["-nsxconfig", "/etc/nsx-ujo/ncp.ini"]
---
apiVersion: crd.nsx.vmware.com/v1alpha1
kind: VPCNetworkConfiguration
metadata:
  name: default
  annotations:
    nsx.vmware.com/default: "true"
spec:
  defaultSubnetSize: 32
  nsxProject: /orgs/default/projects/project-quality
  vpcConnectivityProfile: /orgs/default/projects/project-quality/vpc-connectivity-profiles/default
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: team-blue
  annotations:
    nsx.vmware.com/vpc_network_config: default
---
apiVersion: crd.nsx.vmware.com/v1alpha1
kind: NetworkInfo
metadata:
  name: team-blue
  namespace: team-blue
  finalizers:
  - networkinfo.crd.nsx.vmware.com/finalizer
vpcs:
- name: team-blue-d3e1a0b7
  defaultSNATIP: 192.168.112.4
  loadBalancerIPAddresses: 10.96.2.0/24
  privateIPs:
  - 172.26.0.0/16
  vpcPath: /orgs/default/projects/project-quality/vpcs/team-blue-d3e1a0b7
  nsxLoadBalancerPath: /orgs/default/projects/project-quality/vpcs/team-blue-d3e1a0b7/vpc-lbs/default
`,
		deletes: []string{"Namespace//team-blue"},
	}.run(t)

	d := diagnose(t, "namespace", "team-blue")
	d.exit(1, "STUCK")
	f := d.finalizer("networkinfos.crd.nsx.vmware.com/team-blue -n team-blue", "networkinfo.crd.nsx.vmware.com/finalizer")
	// The operator is installed and scaled to zero: starting it again is the fix; the strip
	// comes after it and leaves the VPC the NetworkInfo records in NSX.
	d.remover(f, "deployments.apps/nsx-operator -n vmware-system-nsx", false)
	d.firstFix(f, restoreController)
	d.offers(f, stripFinalizer)
	d.stripCosts(f, "/orgs/default/projects/project-quality/vpcs/team-blue-d3e1a0b7")
	d.never(f, reinstall)
}
