package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/kgateway-dev/kgateway/issues/5840 ("FailoverScheme can't be deleted
// if the status is FAILED"): Gloo Federation 1.9 on Kubernetes 1.21. A FailoverScheme
// (fed.solo.io) whose primary names the cluster use1 was never accepted: its status is FAILED
// with "failed to get client for cluster use1: Failed to get manager for cluster use1" (use1 is
// not a cluster gloo-fed has a connection to). Deleting it hangs on fed.solo.io/finalizer, which
// gloo-fed removes once it has undone the failover configuration on the clusters involved; it
// never can here. "This can't be removed unless you set the finalizer as null", the way out the
// thread reached; expected: a finalizer should not keep an object that was never applied.
//
// Modelled on the gloo-fed chart 1.9 (namespace gloo-system): the ServiceAccount gloo-fed, its
// ClusterRole on fed.solo.io, fed.gloo.solo.io, fed.gateway.solo.io and multicluster.solo.io
// (the failover schemes with their finalizers and status, the registered clusters; abbreviated
// to those) with its binding, the Deployments gloo-fed and gloo-fed-console (the console runs as
// its own account and reads), running; the CRDs of fed.solo.io and multicluster.solo.io. The
// one cluster gloo-fed knows is euc1 (its KubernetesCluster); use1 is not registered.
func TestCorpusGlooFedFailoverSchemeOfAnUnreachableCluster(t *testing.T) {
	lbl := map[string]string{"app": "gloo-fed", "app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "gloo-fed-1.9.0"}
	replay{
		crds: []crd{
			{group: "fed.solo.io", kind: "FailoverScheme", plural: "failoverschemes", namespaced: true, versions: []string{"v1"}, labels: lbl},
			{group: "fed.solo.io", kind: "GlooInstance", plural: "glooinstances", namespaced: true, versions: []string{"v1"}, labels: lbl},
			{group: "multicluster.solo.io", kind: "KubernetesCluster", plural: "kubernetesclusters", namespaced: true, versions: []string{"v1alpha1"}, labels: lbl},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: gloo-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: gloo-fed
  namespace: gloo-system
  labels: {app: gloo-fed, gloo-fed: gloo-fed}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: gloo-fed-console
  namespace: gloo-system
  labels: {app: gloo-fed, gloo-fed: console}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: gloo-fed
  labels: {app: gloo-fed}
rules:
- apiGroups: ["fed.solo.io"]
  resources: ["failoverschemes", "glooinstances"]
  verbs: ["*"]
- apiGroups: ["fed.solo.io"]
  resources: ["failoverschemes/status", "glooinstances/status"]
  verbs: ["get", "update", "patch"]
- apiGroups: ["multicluster.solo.io"]
  resources: ["kubernetesclusters"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: gloo-fed
  labels: {app: gloo-fed}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: gloo-fed
subjects:
- kind: ServiceAccount
  name: gloo-fed
  namespace: gloo-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: gloo-fed-console
  labels: {app: gloo-fed}
rules:
- apiGroups: ["fed.solo.io", "multicluster.solo.io"]
  resources: ["*"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: gloo-fed-console
  labels: {app: gloo-fed}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: gloo-fed-console
subjects:
- kind: ServiceAccount
  name: gloo-fed-console
  namespace: gloo-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: gloo-fed
  namespace: gloo-system
  labels: {app: gloo-fed, gloo-fed: gloo-fed}
spec:
  replicas: 1
  selector:
    matchLabels: {app: gloo-fed, gloo-fed: gloo-fed}
  template:
    metadata:
      labels: {app: gloo-fed, gloo-fed: gloo-fed}
    spec:
      serviceAccountName: gloo-fed
      containers:
      - name: gloo-fed
        image: quay.io/solo-io/gloo-fed:1.9.0
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: gloo-fed-console
  namespace: gloo-system
  labels: {app: gloo-fed, gloo-fed: console}
spec:
  replicas: 1
  selector:
    matchLabels: {app: gloo-fed, gloo-fed: console}
  template:
    metadata:
      labels: {app: gloo-fed, gloo-fed: console}
    spec:
      serviceAccountName: gloo-fed-console
      containers:
      - name: apiserver
        image: quay.io/solo-io/gloo-fed-apiserver:1.9.0
      - name: console
        image: quay.io/solo-io/gloo-federation-console:1.9.0
---
apiVersion: multicluster.solo.io/v1alpha1
kind: KubernetesCluster
metadata:
  name: euc1
  namespace: gloo-system
spec:
  clusterDomain: cluster.local
  secretName: euc1
`,
		objects: `
apiVersion: fed.solo.io/v1
kind: FailoverScheme
metadata:
  name: sample-backend-use1
  namespace: default
  finalizers: [fed.solo.io/finalizer]
spec:
  failoverGroups:
  - priorityGroup:
    - cluster: euc1
      upstreams:
      - name: sample-backend-service
        namespace: default
  primary:
    clusterName: use1
    name: sample-backend-service
    namespace: default
status:
  message: 'failed to get client for cluster use1: Failed to get manager for cluster use1'
  observedGeneration: 1
  processingTime: "2022-01-28T11:18:25.958294021Z"
  state: FAILED
`,
		deletes: []string{"FailoverScheme/default/sample-backend-use1"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "failoverschemes.fed.solo.io", "sample-backend-use1", "-n", "default")
	d.exit(1, "STUCK")
	f := d.finalizer("failoverschemes.fed.solo.io/sample-backend-use1 -n default", "fed.solo.io/finalizer")
	// gloo-fed runs and owns the finalizer; the scheme was never applied (FAILED: the cluster it
	// names has no connection), so there is nothing to undo: removing the finalizer is the way out.
	d.remover(f, "deployments.apps/gloo-fed -n gloo-system", true)
	d.notRemover(f, "deployments.apps/gloo-fed-console -n gloo-system")
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
