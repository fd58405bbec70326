package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/submariner-io/subctl/issues/31 ("`subctl uninstall` times out if
// the operator isn't running"), fixed by https://github.com/submariner-io/subctl/pull/542:
// `subctl uninstall` deletes the ServiceDiscovery resource and waits for the operator to clean
// up and remove its finalizer controllers.submariner.io/cleanup; with the operator's Deployment
// deleted beforehand, nothing removes it and the uninstall times out: "Error deleting
// ServiceDiscovery resource \"service-discovery\": timed out waiting for the condition". The
// components the operator deployed (the gateway, the Lighthouse agent) keep running, but none of
// them acts on ServiceDiscovery. The fix: when the operator is not running, "force delete the
// resource by removing the finalizer" (or bring the operator back so it cleans up).
//
// Modelled on what `subctl join` (0.12) installs: namespace submariner-operator, the
// ServiceAccounts, ClusterRoles (rules abbreviated to the groups that bear on the case) and
// bindings of the operator, the gateway and the Lighthouse agent, the operands' DaemonSet and
// Deployment with their labels and images; the CRDs of submariner.io. The operator's own
// Deployment is gone, as the reporter left it.
func TestCorpusSubmarinerServiceDiscoveryOperatorGone(t *testing.T) {
	replay{
		crds: []crd{
			{group: "submariner.io", kind: "Submariner", plural: "submariners", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "submariner.io", kind: "ServiceDiscovery", plural: "servicediscoveries", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "submariner.io", kind: "Broker", plural: "brokers", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "submariner.io", kind: "Cluster", plural: "clusters", namespaced: true, versions: []string{"v1"}},
			{group: "submariner.io", kind: "Endpoint", plural: "endpoints", namespaced: true, versions: []string{"v1"}},
			{group: "submariner.io", kind: "Gateway", plural: "gateways", namespaced: true, versions: []string{"v1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: submariner-operator
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: submariner-operator
  namespace: submariner-operator
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: submariner-gateway
  namespace: submariner-operator
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: submariner-lighthouse-agent
  namespace: submariner-operator
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: submariner-operator
rules:
- apiGroups: ["submariner.io"]
  resources: ["*"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["apps"]
  resources: ["deployments", "daemonsets"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["pods", "services", "configmaps", "nodes"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["operator.openshift.io"]
  resources: ["dnses"]
  verbs: ["get", "list", "watch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: submariner-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: submariner-operator
subjects:
- kind: ServiceAccount
  name: submariner-operator
  namespace: submariner-operator
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: submariner-gateway
rules:
- apiGroups: ["submariner.io"]
  resources: ["clusters", "endpoints", "gateways"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["nodes", "pods", "services"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: submariner-gateway
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: submariner-gateway
subjects:
- kind: ServiceAccount
  name: submariner-gateway
  namespace: submariner-operator
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: submariner-lighthouse-agent
rules:
- apiGroups: ["submariner.io"]
  resources: ["gateways", "clusters", "endpoints"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["services", "namespaces", "endpoints"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["discovery.k8s.io"]
  resources: ["endpointslices"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["multicluster.x-k8s.io"]
  resources: ["serviceimports", "serviceexports", "serviceexports/status"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: submariner-lighthouse-agent
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: submariner-lighthouse-agent
subjects:
- kind: ServiceAccount
  name: submariner-lighthouse-agent
  namespace: submariner-operator
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: submariner-gateway
  namespace: submariner-operator
  labels:
    app: submariner-gateway
    component: gateway
spec:
  selector:
    matchLabels:
      app: submariner-gateway
  template:
    metadata:
      labels:
        app: submariner-gateway
        component: gateway
    spec:
      serviceAccountName: submariner-gateway
      hostNetwork: true
      containers:
      - name: submariner-gateway
        image: quay.io/submariner/submariner-gateway:0.12.0
        command: ["submariner.sh"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: submariner-lighthouse-agent
  namespace: submariner-operator
  labels:
    app: submariner-lighthouse-agent
    component: submariner-lighthouse
spec:
  replicas: 1
  selector:
    matchLabels:
      app: submariner-lighthouse-agent
  template:
    metadata:
      labels:
        app: submariner-lighthouse-agent
        component: submariner-lighthouse
    spec:
      serviceAccountName: submariner-lighthouse-agent
      containers:
      - name: submariner-lighthouse-agent
        image: quay.io/submariner/lighthouse-agent:0.12.0
        env:
        - name: SUBMARINER_NAMESPACE
          value: submariner-operator
        - name: SUBMARINER_CLUSTERID
          value: cluster-east
`,
		objects: `
apiVersion: submariner.io/v1alpha1
kind: ServiceDiscovery
metadata:
  name: service-discovery
  namespace: submariner-operator
  finalizers:
  - controllers.submariner.io/cleanup
spec:
  brokerK8sApiServer: 172.18.0.4:6443
  brokerK8sRemoteNamespace: submariner-k8s-broker
  clusterID: cluster-east
  namespace: submariner-operator
  repository: quay.io/submariner
  version: 0.12.0
  globalnetEnabled: false
status:
  deploymentInfo:
    kubernetesType: kind
---
apiVersion: submariner.io/v1alpha1
kind: Submariner
metadata:
  name: submariner
  namespace: submariner-operator
  finalizers:
  - controllers.submariner.io/cleanup
spec:
  broker: k8s
  brokerK8sApiServer: 172.18.0.4:6443
  brokerK8sRemoteNamespace: submariner-k8s-broker
  cableDriver: libreswan
  clusterID: cluster-east
  namespace: submariner-operator
  repository: quay.io/submariner
  version: 0.12.0
  serviceDiscoveryEnabled: true
`,
		deletes: []string{"ServiceDiscovery/submariner-operator/service-discovery"},
	}.run(t)

	d := diagnoseAfter(t, 10*time.Minute, "servicediscoveries.submariner.io", "service-discovery", "-n", "submariner-operator")
	d.exit(1, "STUCK")
	f := d.finalizer("servicediscoveries.submariner.io/service-discovery -n submariner-operator", "controllers.submariner.io/cleanup")
	// The remover is the operator, whose service account alone may update ServiceDiscovery and
	// which no workload runs as any more; the gateway and the Lighthouse agent run but never act
	// on it. Nothing running will remove it: no logs to read; the strip (or the operator back)
	// is the way out.
	d.noRunningRemover(f)
	d.notRemover(f, "daemonsets.apps/submariner-gateway -n submariner-operator")
	d.notRemover(f, "deployments.apps/submariner-lighthouse-agent -n submariner-operator")
	named := false
	for _, c := range f.Controllers {
		if c.Object.String() == "serviceaccounts/submariner-operator -n submariner-operator" {
			named = true
		}
	}
	if !named {
		t.Errorf("the operator's service account serviceaccounts/submariner-operator -n submariner-operator, the only one that may update the object, is not named among the removers")
	}
	d.never(f, readLogs)
	d.offers(f, stripFinalizer)
}
