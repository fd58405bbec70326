package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/kubernetes-sigs/cluster-api-provider-openstack/issues/906 ("The
// Cluster status is stuck in \"Deleting\""): a workload cluster was created with a wrong
// clouds.yaml; CAPO failed with "providerClient authentication err: Authentication failed".
// Deleting the Cluster hangs: the OpenStackCluster keeps its finalizer
// openstackcluster.infrastructure.cluster.x-k8s.io, because CAPO (running) must delete what it
// created in OpenStack and cannot authenticate to do so ("the deletion process also meets the
// \"Authentication failed\" error", in CAPO's log). The maintainers: "I don't think we should
// skip our delete logic when we're unable to communicate with OpenStack. If this is a use case
// you regularly encounter you can always remove finalizer from CAPO resources so they get
// deleted." So: fix the credentials so CAPO can finish, or, as the last resort, remove the
// finalizer, leaving whatever it created in the OpenStack project.
//
// Modelled on the provider components of CAPO v0.3.4 and Cluster API v0.3.15 (as clusterctl
// init installs them): namespaces capo-system and capi-system, the managers' ClusterRoles
// (rules abbreviated to the groups that bear on the case) and bindings, the Deployments
// capo-controller-manager and capi-controller-manager with their provider labels and images;
// the CRDs of infrastructure.cluster.x-k8s.io and cluster.x-k8s.io (v1alpha3). The webhooks are
// left out: the replay's pods answer no requests.
func TestCorpusOpenStackClusterDeleteAuthenticationFailed(t *testing.T) {
	capo := map[string]string{"cluster.x-k8s.io/provider": "infrastructure-openstack", "clusterctl.cluster.x-k8s.io": ""}
	capi := map[string]string{"cluster.x-k8s.io/provider": "cluster-api", "clusterctl.cluster.x-k8s.io": ""}
	replay{
		crds: []crd{
			{group: "cluster.x-k8s.io", kind: "Cluster", plural: "clusters", namespaced: true, versions: []string{"v1alpha3"}, labels: capi},
			{group: "cluster.x-k8s.io", kind: "Machine", plural: "machines", namespaced: true, versions: []string{"v1alpha3"}, labels: capi},
			{group: "infrastructure.cluster.x-k8s.io", kind: "OpenStackCluster", plural: "openstackclusters", namespaced: true, versions: []string{"v1alpha3"}, labels: capo},
			{group: "infrastructure.cluster.x-k8s.io", kind: "OpenStackMachine", plural: "openstackmachines", namespaced: true, versions: []string{"v1alpha3"}, labels: capo},
			{group: "infrastructure.cluster.x-k8s.io", kind: "OpenStackMachineTemplate", plural: "openstackmachinetemplates", namespaced: true, versions: []string{"v1alpha3"}, labels: capo},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: capi-system
  labels:
    cluster.x-k8s.io/provider: cluster-api
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: capi-manager-role
  labels:
    cluster.x-k8s.io/provider: cluster-api
rules:
- apiGroups: [""]
  resources: ["events", "secrets", "configmaps", "nodes"]
  verbs: ["get", "list", "watch", "create", "patch", "update", "delete"]
- apiGroups: ["cluster.x-k8s.io"]
  resources: ["*"]
  verbs: ["get", "list", "watch", "create", "patch", "update", "delete"]
- apiGroups: ["addons.cluster.x-k8s.io", "bootstrap.cluster.x-k8s.io", "controlplane.cluster.x-k8s.io", "infrastructure.cluster.x-k8s.io"]
  resources: ["*"]
  verbs: ["get", "list", "watch", "create", "patch", "update", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: capi-manager-rolebinding
  labels:
    cluster.x-k8s.io/provider: cluster-api
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: capi-manager-role
subjects:
- kind: ServiceAccount
  name: default
  namespace: capi-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: capi-controller-manager
  namespace: capi-system
  labels:
    cluster.x-k8s.io/provider: cluster-api
    control-plane: controller-manager
spec:
  replicas: 1
  selector:
    matchLabels:
      cluster.x-k8s.io/provider: cluster-api
      control-plane: controller-manager
  template:
    metadata:
      labels:
        cluster.x-k8s.io/provider: cluster-api
        control-plane: controller-manager
    spec:
      containers:
      - name: manager
        image: us.gcr.io/k8s-artifacts-prod/cluster-api/cluster-api-controller:v0.3.15
        command: ["/manager"]
        args: ["--metrics-addr=127.0.0.1:8080", "--enable-leader-election", "--feature-gates=MachinePool=false,ClusterResourceSet=false"]
---
apiVersion: v1
kind: Namespace
metadata:
  name: capo-system
  labels:
    cluster.x-k8s.io/provider: infrastructure-openstack
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: capo-manager-role
  labels:
    cluster.x-k8s.io/provider: infrastructure-openstack
rules:
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["cluster.x-k8s.io"]
  resources: ["clusters", "clusters/status", "machines", "machines/status"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["infrastructure.cluster.x-k8s.io"]
  resources: ["openstackclusters", "openstackclusters/status", "openstackmachines", "openstackmachines/status"]
  verbs: ["get", "list", "watch", "create", "patch", "update", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: capo-manager-rolebinding
  labels:
    cluster.x-k8s.io/provider: infrastructure-openstack
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: capo-manager-role
subjects:
- kind: ServiceAccount
  name: default
  namespace: capo-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: capo-controller-manager
  namespace: capo-system
  labels:
    cluster.x-k8s.io/provider: infrastructure-openstack
    control-plane: capo-controller-manager
spec:
  replicas: 1
  selector:
    matchLabels:
      cluster.x-k8s.io/provider: infrastructure-openstack
      control-plane: capo-controller-manager
  template:
    metadata:
      labels:
        cluster.x-k8s.io/provider: infrastructure-openstack
        control-plane: capo-controller-manager
    spec:
      containers:
      - name: manager
        image: us.gcr.io/k8s-artifacts-prod/capi-openstack/capi-openstack-controller:v0.3.4
        command: ["/manager"]
        args: ["--enable-leader-election", "--v=2"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: capo-clusters
---
apiVersion: v1
kind: Secret
metadata:
  name: capi-quickstart-cloud-config
  namespace: capo-clusters
  labels:
    clusterctl.cluster.x-k8s.io/move: "true"
type: Opaque
stringData:
  cacert: ""
  clouds.yaml: "redacted"
---
apiVersion: cluster.x-k8s.io/v1alpha3
kind: Cluster
metadata:
  name: capi-quickstart
  namespace: capo-clusters
  finalizers:
  - cluster.cluster.x-k8s.io
spec:
  clusterNetwork:
    pods:
      cidrBlocks: ["192.168.0.0/16"]
    serviceDomain: cluster.local
  infrastructureRef:
    apiVersion: infrastructure.cluster.x-k8s.io/v1alpha3
    kind: OpenStackCluster
    name: capi-quickstart
  controlPlaneRef:
    apiVersion: controlplane.cluster.x-k8s.io/v1alpha3
    kind: KubeadmControlPlane
    name: capi-quickstart-control-plane
status:
  phase: Provisioning
  infrastructureReady: false
  controlPlaneInitialized: false
---
apiVersion: infrastructure.cluster.x-k8s.io/v1alpha3
kind: OpenStackCluster
metadata:
  name: capi-quickstart
  namespace: capo-clusters
  labels:
    cluster.x-k8s.io/cluster-name: capi-quickstart
  finalizers:
  - openstackcluster.infrastructure.cluster.x-k8s.io
spec:
  cloudName: openstack
  cloudsSecret:
    name: capi-quickstart-cloud-config
    namespace: capo-clusters
  externalNetworkId: 5f2b7c0e-9a43-4c1d-8e6f-3b1a2d4c5e60
  managedAPIServerLoadBalancer: true
  managedSecurityGroups: true
  nodeCidr: 10.6.0.0/24
  dnsNameservers: ["10.12.4.53"]
status:
  ready: false
`,
		deletes: []string{"Cluster/capo-clusters/capi-quickstart", "OpenStackCluster/capo-clusters/capi-quickstart"},
	}.run(t)

	d := diagnoseAfter(t, 2*time.Hour, "openstackclusters.infrastructure.cluster.x-k8s.io", "capi-quickstart", "-n", "capo-clusters")
	d.exit(1, "STUCK")
	f := d.finalizer("openstackclusters.infrastructure.cluster.x-k8s.io/capi-quickstart -n capo-clusters", "openstackcluster.infrastructure.cluster.x-k8s.io")
	// CAPO removes this finalizer, not the core Cluster API manager that may also update the
	// type; it runs and fails to authenticate (its log says so). Removing the finalizer is the
	// way out only as the last resort: it leaves what CAPO created in the OpenStack project.
	d.remover(f, "deployments.apps/capo-controller-manager -n capo-system", true)
	d.never(f, reinstall, restoreController)
	d.notFirstFix(f, stripFinalizer)
	d.offers(f, stripFinalizer)
}
