package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/kubernetes-retired/kubefed/issues/591 ("federateddeployment delete
// is stuck waiting for a missing cluster"): a FederatedDeployment was propagated to clusters c1,
// c2 and c3, then cluster c1 was removed (from the cluster registry; the cluster itself is gone).
// `kubectl delete federateddeployment nginx` hangs, also with --force --grace-period 0, and the
// events say: "Warning DeleteFailed ... federateddeployment-controller Failed to delete
// FederatedDeployment "default/nginx": waiting for clusters c1 to become ready to verify that obj
// default/nginx has been deleted". The federated cluster c1 was still registered with the
// federation control plane; after `kubectl delete federatedclusters.core.federation.k8s.io c1
// -n federation-system` the FederatedDeployment disappeared. The maintainer: "This is not a bug,
// it is a feature ... The sync controller adds a finalizer to all federated resources" and
// waits for every member cluster the resource was propagated to, to confirm the deletion there.
// What holds the finalizer is the registration of a cluster that can never answer; unjoining it
// is the fix, and removing the finalizer by hand would leave the deployment running in c2 and c3.
//
// Modelled on the federation-v2 install of that era (v0.0.x, hack/install-latest.yaml with
// `kubefed2 join`): namespace federation-system, its ServiceAccount
// federation-controller-manager, the ClusterRole federation-controller-manager:federation-system
// (rules abbreviated to the groups that bear on the case) and its binding, the Deployment
// federation-controller-manager; the CRDs of core.federation.k8s.io and
// types.federation.k8s.io; the FederatedClusters c1 (not ready: the cluster is gone), c2 and c3
// with their secrets. The event is the one the report quotes, recorded after the deletion.
func TestCorpusKubeFedFederatedObjectWaitsForRemovedCluster(t *testing.T) {
	install := map[string]string{"api": "federation", "kubebuilder.k8s.io": "1.0.3"}
	replay{
		crds: []crd{
			{group: "core.federation.k8s.io", kind: "FederatedCluster", plural: "federatedclusters", namespaced: true, versions: []string{"v1alpha1"}, labels: install, annotations: map[string]string{"api-approved.kubernetes.io": "unapproved, a group the project chose before the policy"}},
			{group: "core.federation.k8s.io", kind: "FederatedTypeConfig", plural: "federatedtypeconfigs", namespaced: true, versions: []string{"v1alpha1"}, labels: install, annotations: map[string]string{"api-approved.kubernetes.io": "unapproved, a group the project chose before the policy"}},
			{group: "core.federation.k8s.io", kind: "PropagatedVersion", plural: "propagatedversions", namespaced: true, versions: []string{"v1alpha1"}, labels: install, annotations: map[string]string{"api-approved.kubernetes.io": "unapproved, a group the project chose before the policy"}},
			{group: "types.federation.k8s.io", kind: "FederatedDeployment", plural: "federateddeployments", namespaced: true, versions: []string{"v1alpha1"}, labels: install, annotations: map[string]string{"api-approved.kubernetes.io": "unapproved, a group the project chose before the policy"}},
			{group: "types.federation.k8s.io", kind: "FederatedNamespace", plural: "federatednamespaces", namespaced: true, versions: []string{"v1alpha1"}, labels: install, annotations: map[string]string{"api-approved.kubernetes.io": "unapproved, a group the project chose before the policy"}},
			{group: "clusterregistry.k8s.io", kind: "Cluster", plural: "clusters", namespaced: true, versions: []string{"v1alpha1"}, annotations: map[string]string{"api-approved.kubernetes.io": "unapproved, a group the project chose before the policy"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: federation-system
---
apiVersion: v1
kind: Namespace
metadata:
  name: kube-multicluster-public
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: federation-controller-manager
  namespace: federation-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: federation-controller-manager:federation-system
rules:
- apiGroups: ["core.federation.k8s.io", "types.federation.k8s.io", "scheduling.federation.k8s.io", "multiclusterdns.federation.k8s.io"]
  resources: ["*"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["clusterregistry.k8s.io"]
  resources: ["clusters"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["get", "create", "update", "patch"]
- apiGroups: [""]
  resources: ["secrets", "namespaces"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: federation-controller-manager:federation-system
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: federation-controller-manager:federation-system
subjects:
- kind: ServiceAccount
  name: federation-controller-manager
  namespace: federation-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: federation-controller-manager
  namespace: federation-system
  labels:
    api: federation
    control-plane: controller-manager
    kubebuilder.k8s.io: 1.0.3
spec:
  replicas: 1
  selector:
    matchLabels:
      api: federation
      control-plane: controller-manager
  template:
    metadata:
      labels:
        api: federation
        control-plane: controller-manager
    spec:
      serviceAccountName: federation-controller-manager
      containers:
      - name: controller-manager
        image: quay.io/kubernetes-multicluster/federation-v2:v0.0.4
        command: ["/root/controller-manager"]
        args: ["--federation-namespace=federation-system", "--registry-namespace=kube-multicluster-public", "--install-crds=false"]
`,
		objects: `
apiVersion: clusterregistry.k8s.io/v1alpha1
kind: Cluster
metadata:
  name: c2
  namespace: kube-multicluster-public
spec:
  kubernetesApiEndpoints:
    serverEndpoints:
    - clientCIDR: 0.0.0.0/0
      serverAddress: https://c2.example.internal:6443
---
apiVersion: clusterregistry.k8s.io/v1alpha1
kind: Cluster
metadata:
  name: c3
  namespace: kube-multicluster-public
spec:
  kubernetesApiEndpoints:
    serverEndpoints:
    - clientCIDR: 0.0.0.0/0
      serverAddress: https://c3.example.internal:6443
---
apiVersion: v1
kind: Secret
metadata:
  name: c1-7xk2p
  namespace: federation-system
type: Opaque
data:
  kubeconfig: ZmFrZQ==
---
apiVersion: v1
kind: Secret
metadata:
  name: c2-9w4rt
  namespace: federation-system
type: Opaque
data:
  kubeconfig: ZmFrZQ==
---
apiVersion: v1
kind: Secret
metadata:
  name: c3-m2q8z
  namespace: federation-system
type: Opaque
data:
  kubeconfig: ZmFrZQ==
---
apiVersion: core.federation.k8s.io/v1alpha1
kind: FederatedCluster
metadata:
  name: c1
  namespace: federation-system
spec:
  clusterRef:
    name: c1
  secretRef:
    name: c1-7xk2p
status:
  conditions:
  - type: Offline
    status: "True"
    reason: ClusterNotReachable
    message: cluster is not reachable
    lastProbeTime: "2019-02-12T10:41:07Z"
    lastTransitionTime: "2019-02-12T10:12:53Z"
---
apiVersion: core.federation.k8s.io/v1alpha1
kind: FederatedCluster
metadata:
  name: c2
  namespace: federation-system
spec:
  clusterRef:
    name: c2
  secretRef:
    name: c2-9w4rt
status:
  conditions:
  - type: Ready
    status: "True"
    reason: ClusterReady
    message: /healthz responded with ok
    lastProbeTime: "2019-02-12T10:41:07Z"
    lastTransitionTime: "2019-02-11T09:02:10Z"
---
apiVersion: core.federation.k8s.io/v1alpha1
kind: FederatedCluster
metadata:
  name: c3
  namespace: federation-system
spec:
  clusterRef:
    name: c3
  secretRef:
    name: c3-m2q8z
status:
  conditions:
  - type: Ready
    status: "True"
    reason: ClusterReady
    message: /healthz responded with ok
    lastProbeTime: "2019-02-12T10:41:07Z"
    lastTransitionTime: "2019-02-11T09:02:10Z"
---
apiVersion: types.federation.k8s.io/v1alpha1
kind: FederatedDeployment
metadata:
  name: nginx
  namespace: default
  finalizers:
  - federation.kubernetes.io/delete-from-underlying-clusters
spec:
  template:
    metadata:
      labels:
        app: nginx
    spec:
      replicas: 3
      selector:
        matchLabels:
          app: nginx
      template:
        metadata:
          labels:
            app: nginx
        spec:
          containers:
          - name: nginx
            image: nginx:1.15
  placement:
    clusterNames: ["c1", "c2", "c3"]
`,
		deletes: []string{"FederatedDeployment/default/nginx"},
		events: []event{{about: "FederatedDeployment/default/nginx", typ: "Warning", reason: "DeleteFailed", component: "federateddeployment-controller", count: 16,
			message: `Failed to delete FederatedDeployment "default/nginx": waiting for clusters c1 to become ready to verify that obj default/nginx has been deleted`}},
	}.run(t)

	d := diagnoseAfter(t, 2*time.Minute, "federateddeployments.types.federation.k8s.io", "nginx", "-n", "default")
	d.exit(1, "STUCK")
	f := d.finalizer("federateddeployments.types.federation.k8s.io/nginx -n default", "federation.kubernetes.io/delete-from-underlying-clusters")
	// The federation controller runs and waits for a member cluster that is gone: it is the
	// remover, and what blocks it is the registration of c1, which the fix removes.
	d.remover(f, "deployments.apps/federation-controller-manager -n federation-system", true)
	d.verdict(f, controllerRunning, removerStalled, blockedByObjects)
	d.names(f, "federatedclusters.core.federation.k8s.io/c1 -n federation-system")
	d.notFirstFix(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
