package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/kubernetes-sigs/cluster-api/issues/7559 ("MachinePool stuck deleting
// if cluster already removed"): while a Cluster was deleted, its infrastructure provider removed
// everything (the AWSMachinePool, the workload cluster itself, its kubeconfig Secret) before the
// core controller finished the MachinePool. Finalizing a MachinePool deletes its Nodes in the
// workload cluster, which no longer exists, so capi-controller-manager fails on every attempt
// ("failed to retrieve kubeconfig secret for Cluster org-giantswarm/marc2: secrets
// "marc2-kubeconfig" not found") and the MachinePool keeps machinepool.cluster.x-k8s.io, which
// in turn keeps the Cluster. Reporters of the same failure (#6049 and CAPA #3608, #4345) removed
// the MachinePool's finalizer by hand once the cloud resources were confirmed gone; the fix made
// the controller skip node deletion when the cluster is being deleted. What the cluster shows:
// the remover runs, the MachinePool's infrastructure object is gone, and its Cluster is being
// deleted; the way out is removing that finalizer (the Nodes it would delete went with the
// workload cluster), once the instances of its spec.providerIDList are confirmed gone in the
// cloud. The replay's spec.providerIDList is the field as the report's MachinePool (marc1,
// ids masked there) shows it, with ids of the replay's own making.
//
// Modelled on clusterctl's install of core Cluster API v1.2 (capi-system: ServiceAccount
// capi-manager, ClusterRole capi-system-capi-manager-role abbreviated, binding, Deployment
// capi-controller-manager with MachinePool enabled) and of the AWS provider v2.0 (capa-system,
// which may read MachinePools and update its own infrastructure objects), the CRDs of both with
// clusterctl's labels, and the Cluster and MachinePool of the report, Deleting.
func TestCorpusCAPIMachinePoolOfAWorkloadClusterAlreadyGone(t *testing.T) {
	core := map[string]string{"cluster.x-k8s.io/provider": "cluster-api", "clusterctl.cluster.x-k8s.io": "", "cluster.x-k8s.io/v1beta1": "v1beta1"}
	aws := map[string]string{"cluster.x-k8s.io/provider": "infrastructure-aws", "clusterctl.cluster.x-k8s.io": "", "cluster.x-k8s.io/v1beta1": "v1beta1_v1beta2"}
	replay{
		crds: []crd{
			{group: "cluster.x-k8s.io", kind: "Cluster", plural: "clusters", namespaced: true, versions: []string{"v1beta1"}, labels: core},
			{group: "cluster.x-k8s.io", kind: "MachinePool", plural: "machinepools", namespaced: true, versions: []string{"v1beta1"}, labels: core},
			{group: "cluster.x-k8s.io", kind: "Machine", plural: "machines", namespaced: true, versions: []string{"v1beta1"}, labels: core},
			{group: "cluster.x-k8s.io", kind: "MachineDeployment", plural: "machinedeployments", namespaced: true, versions: []string{"v1beta1"}, labels: core},
			{group: "infrastructure.cluster.x-k8s.io", kind: "AWSCluster", plural: "awsclusters", namespaced: true, versions: []string{"v1beta2"}, labels: aws},
			{group: "infrastructure.cluster.x-k8s.io", kind: "AWSMachinePool", plural: "awsmachinepools", namespaced: true, versions: []string{"v1beta2"}, labels: aws},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: capi-system
  labels:
    cluster.x-k8s.io/provider: cluster-api
---
apiVersion: v1
kind: Namespace
metadata:
  name: capa-system
  labels:
    cluster.x-k8s.io/provider: infrastructure-aws
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: capi-manager
  namespace: capi-system
  labels:
    cluster.x-k8s.io/provider: cluster-api
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: capi-system-capi-manager-role
  labels:
    cluster.x-k8s.io/provider: cluster-api
rules:
- apiGroups: ["cluster.x-k8s.io"]
  resources: ["*"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["bootstrap.cluster.x-k8s.io", "controlplane.cluster.x-k8s.io", "infrastructure.cluster.x-k8s.io"]
  resources: ["*"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["secrets", "configmaps", "events"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["apiextensions.k8s.io"]
  resources: ["customresourcedefinitions"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: capi-system-capi-manager-rolebinding
  labels:
    cluster.x-k8s.io/provider: cluster-api
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: capi-system-capi-manager-role
subjects:
- kind: ServiceAccount
  name: capi-manager
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
      serviceAccountName: capi-manager
      containers:
      - name: manager
        image: registry.k8s.io/cluster-api/cluster-api-controller:v1.2.5
        command: ["/manager"]
        args: ["--leader-elect", "--metrics-bind-addr=localhost:8080", "--feature-gates=MachinePool=true,ClusterResourceSet=false,ClusterTopology=false"]
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: capa-controller-manager
  namespace: capa-system
  labels:
    cluster.x-k8s.io/provider: infrastructure-aws
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: capa-system-capa-manager-role
  labels:
    cluster.x-k8s.io/provider: infrastructure-aws
rules:
- apiGroups: ["infrastructure.cluster.x-k8s.io"]
  resources: ["*"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["cluster.x-k8s.io"]
  resources: ["clusters", "clusters/status", "machines", "machines/status", "machinepools", "machinepools/status"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["secrets", "events"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: capa-system-capa-manager-rolebinding
  labels:
    cluster.x-k8s.io/provider: infrastructure-aws
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: capa-system-capa-manager-role
subjects:
- kind: ServiceAccount
  name: capa-controller-manager
  namespace: capa-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: capa-controller-manager
  namespace: capa-system
  labels:
    cluster.x-k8s.io/provider: infrastructure-aws
    control-plane: capa-controller-manager
spec:
  replicas: 1
  selector:
    matchLabels:
      cluster.x-k8s.io/provider: infrastructure-aws
      control-plane: capa-controller-manager
  template:
    metadata:
      labels:
        cluster.x-k8s.io/provider: infrastructure-aws
        control-plane: capa-controller-manager
    spec:
      serviceAccountName: capa-controller-manager
      containers:
      - name: manager
        image: registry.k8s.io/cluster-api-aws/cluster-api-aws-controller:v2.0.2
        args: ["--leader-elect", "--feature-gates=EKS=true,MachinePool=true"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: org-giantswarm
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata:
  name: marc2
  namespace: org-giantswarm
  finalizers:
  - cluster.cluster.x-k8s.io
spec:
  infrastructureRef:
    apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
    kind: AWSCluster
    name: marc2
    namespace: org-giantswarm
status:
  phase: Deleting
  infrastructureReady: true
  controlPlaneReady: true
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata:
  name: marc2-pool0
  namespace: org-giantswarm
  labels:
    cluster.x-k8s.io/cluster-name: marc2
  finalizers:
  - machinepool.cluster.x-k8s.io
  ownerReferences:
  - apiVersion: cluster.x-k8s.io/v1beta1
    kind: Cluster
    name: marc2
spec:
  clusterName: marc2
  replicas: 3
  providerIDList:
  - aws:///eu-west-1a/i-0c2f7d41e9a8b3605
  - aws:///eu-west-1b/i-07e1a93b5d2c4f816
  - aws:///eu-west-1c/i-0b94d6e2f1a7c3580
  template:
    spec:
      clusterName: marc2
      version: v1.23.14
      bootstrap:
        dataSecretName: marc2-pool0-bootstrap
      infrastructureRef:
        apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
        kind: AWSMachinePool
        name: marc2-pool0
        namespace: org-giantswarm
status:
  phase: Deleting
  replicas: 3
  readyReplicas: 3
  infrastructureReady: true
  bootstrapReady: true
  nodeRefs:
  - apiVersion: v1
    kind: Node
    name: ip-10-0-81-28.eu-west-1.compute.internal
  - apiVersion: v1
    kind: Node
    name: ip-10-0-113-40.eu-west-1.compute.internal
  - apiVersion: v1
    kind: Node
    name: ip-10-0-142-9.eu-west-1.compute.internal
`,
		deletes: []string{"Cluster/org-giantswarm/marc2", "MachinePool/org-giantswarm/marc2-pool0"},
	}.run(t)

	d := diagnoseAfter(t, 45*time.Minute, "machinepools.cluster.x-k8s.io", "marc2-pool0", "-n", "org-giantswarm")
	d.exit(1, "STUCK")
	f := d.finalizer("machinepools.cluster.x-k8s.io/marc2-pool0 -n org-giantswarm", "machinepool.cluster.x-k8s.io")
	// The core controller is the remover (the infrastructure provider may only read
	// MachinePools); it runs but cannot finish, because what the MachinePool stands on is gone.
	d.remover(f, "deployments.apps/capi-controller-manager -n capi-system", true)
	d.notRemover(f, "deployments.apps/capa-controller-manager -n capa-system")
	d.names(f, "awsmachinepools.infrastructure.cluster.x-k8s.io/marc2-pool0 -n org-giantswarm")
	d.never(f, reinstall, restoreController)
	d.offers(f, stripFinalizer)
	// What the finalizer would have cleaned, named from the object: the instances of its
	// spec.providerIDList (confirm them gone in the cloud, as the reporters did).
	d.stripCosts(f, "aws:///eu-west-1a/i-0c2f7d41e9a8b3605")
}
