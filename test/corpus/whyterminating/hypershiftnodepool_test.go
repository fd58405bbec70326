package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/openshift/hypershift/issues/1216 ("Nodepool can not be deleted"):
// a HostedCluster and its NodePool were deleted; "the hosted cluster is deleted successfully, but
// the nodepool is stuck in deleting status", its finalizer hypershift.openshift.io/finalizer kept,
// its ownerReference naming the HostedCluster hypershift-demo that no longer exists. The
// HyperShift operator runs and reconciles NodePools, but its NodePool deletion needs the
// HostedCluster (the fix, openshift/hypershift#1408: "nodepool deletion will fail if the
// hostedcluster doesn't exist anymore which means that if nodepool deletion is too slow, we will
// deadlock"). Until then the way out is to remove the finalizer by hand: what it guarded, the
// hosted cluster's machines, went with the hosted cluster's control-plane namespace.
//
// Modelled on `hypershift install` of the report's commit: namespace hypershift, the
// ServiceAccount and Deployment operator (its labels and image), the ClusterRole
// hypershift-operator (its rules on hypershift.openshift.io and cluster.x-k8s.io, with the core
// objects it manages, abbreviated) and binding; the CRDs of hypershift.openshift.io (v1alpha1).
// The NodePool is the report's, in namespace clusters.
func TestCorpusHyperShiftNodePoolOfADeletedHostedCluster(t *testing.T) {
	hs := map[string]string{"hypershift.openshift.io/managed": "true"}
	replay{
		crds: []crd{
			{group: "hypershift.openshift.io", kind: "HostedCluster", plural: "hostedclusters", namespaced: true, versions: []string{"v1alpha1"}, labels: hs},
			{group: "hypershift.openshift.io", kind: "NodePool", plural: "nodepools", namespaced: true, versions: []string{"v1alpha1"}, labels: hs},
			{group: "hypershift.openshift.io", kind: "HostedControlPlane", plural: "hostedcontrolplanes", namespaced: true, versions: []string{"v1alpha1"}, labels: hs},
			{group: "hypershift.openshift.io", kind: "AWSEndpointService", plural: "awsendpointservices", namespaced: true, versions: []string{"v1alpha1"}, labels: hs},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: hypershift
  labels:
    openshift.io/cluster-monitoring: "true"
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: operator
  namespace: hypershift
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: hypershift-operator
rules:
- apiGroups: ["hypershift.openshift.io"]
  resources: ["*"]
  verbs: ["*"]
- apiGroups: ["cluster.x-k8s.io", "infrastructure.cluster.x-k8s.io", "bootstrap.cluster.x-k8s.io"]
  resources: ["*"]
  verbs: ["*"]
- apiGroups: [""]
  resources: ["namespaces", "secrets", "configmaps", "services", "serviceaccounts", "events", "pods"]
  verbs: ["*"]
- apiGroups: ["apps"]
  resources: ["deployments", "statefulsets"]
  verbs: ["*"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["roles", "rolebindings", "clusterroles", "clusterrolebindings"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: hypershift-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: hypershift-operator
subjects:
- kind: ServiceAccount
  name: operator
  namespace: hypershift
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: operator
  namespace: hypershift
spec:
  replicas: 1
  selector:
    matchLabels:
      name: operator
  template:
    metadata:
      labels:
        name: operator
        app: operator
        hypershift.openshift.io/operator-component: operator
    spec:
      serviceAccountName: operator
      containers:
      - name: operator
        image: quay.io/hypershift/hypershift-operator:latest
        command: ["/usr/bin/hypershift-operator"]
        args: ["run", "--namespace=$(MY_NAMESPACE)", "--deployment-name=operator", "--metrics-addr=:9000", "--enable-ocp-cluster-monitoring=false", "--enable-ci-debug-output=false", "--private-platform=None"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: clusters
---
apiVersion: hypershift.openshift.io/v1alpha1
kind: NodePool
metadata:
  name: hypershift-demo
  namespace: clusters
  finalizers:
  - hypershift.openshift.io/finalizer
  labels:
    hypershift.openshift.io/auto-created-for-infra: hypershift-demo-m52br
  ownerReferences:
  - apiVersion: hypershift.openshift.io/v1alpha1
    kind: HostedCluster
    name: hypershift-demo
    uid: 87ddd643-41d6-4c3b-a911-e9f5dc6738a4
spec:
  clusterName: hypershift-demo
  management:
    autoRepair: false
    replace:
      rollingUpdate:
        maxSurge: 1
        maxUnavailable: 0
      strategy: RollingUpdate
    upgradeType: Replace
  nodeCount: 2
  platform:
    aws:
      instanceProfile: hypershift-demo-m52br-worker
      instanceType: t3.large
      rootVolume:
        size: 35
        type: gp3
      securityGroups:
      - id: sg-074e860253bf072e5
      subnet:
        id: subnet-0af15a69cd0658ba8
    type: AWS
  release:
    image: quay.io/openshift-release-dev/ocp-release:4.10.6-x86_64
status:
  nodeCount: 2
  version: 4.10.6
`,
		deletes: []string{"NodePool/clusters/hypershift-demo"},
	}.run(t)

	d := diagnoseAfter(t, 40*time.Minute, "nodepools.hypershift.openshift.io", "hypershift-demo", "-n", "clusters")
	d.exit(1, "STUCK")
	f := d.finalizer("nodepools.hypershift.openshift.io/hypershift-demo -n clusters", "hypershift.openshift.io/finalizer")
	d.remover(f, "deployments.apps/operator -n hypershift", true)
	// What the NodePool's finalization waits for is the HostedCluster it belongs to, which no
	// longer exists: it is the blocker, and nothing brings it back; the strip is the way out.
	d.verdict(f, removerStalled, finalizerOrphaned, blockedByObjects)
	d.names(f, "hostedclusters.hypershift.openshift.io/hypershift-demo -n clusters")
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
