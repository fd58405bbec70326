package whyterminating_test

import "testing"

// Report: https://github.com/opensearch-project/opensearch-k8s-operator/issues/976: "when we do
// directly kubectl delete namespace, Opensearch Custom Resources are attached with finalizer and
// namespace is stuck in terminating state". The operator (Helm chart 2.6.1) runs in the namespace
// that is deleted, so the namespace controller deletes it with everything else, and the
// OpenSearchCluster's finalizer Opster, which only the operator removes, stays: nothing that runs
// can remove it (the maintainers, in #814: "It is your responsibility to keep an uninstall
// order"). The way out is to remove the finalizer by hand: the operator cannot come back in a
// namespace that refuses new content.
//
// Modelled on the chart charts/opensearch-operator (2.6.1): the ClusterRole
// opensearch-operator-opensearch-manager-role with its rules on opensearch.opster.io
// (abbreviated) and its ClusterRoleBinding to the service account
// opensearch-operator-controller-manager in namespace opensearch, which stay after the
// namespace's own content (the ServiceAccount, the Deployment
// opensearch-operator-controller-manager) is gone; the CRDs of opensearch.opster.io.
func TestCorpusOpenSearchOperatorDeletedWithItsNamespace(t *testing.T) {
	chart := map[string]string{"app.kubernetes.io/managed-by": "Helm"}
	replay{
		crds: []crd{
			{group: "opensearch.opster.io", kind: "OpenSearchCluster", plural: "opensearchclusters", namespaced: true, versions: []string{"v1"}, labels: chart},
			{group: "opensearch.opster.io", kind: "OpensearchRole", plural: "opensearchroles", namespaced: true, versions: []string{"v1"}, labels: chart},
			{group: "opensearch.opster.io", kind: "OpensearchUser", plural: "opensearchusers", namespaced: true, versions: []string{"v1"}, labels: chart},
			{group: "opensearch.opster.io", kind: "OpensearchUserRoleBinding", plural: "opensearchuserrolebindings", namespaced: true, versions: []string{"v1"}, labels: chart},
		},
		install: `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: opensearch-operator-opensearch-manager-role
  labels:
    app.kubernetes.io/managed-by: Helm
  annotations:
    meta.helm.sh/release-name: opensearch-operator
    meta.helm.sh/release-namespace: opensearch
rules:
- apiGroups: ["apps"]
  resources: ["deployments", "statefulsets"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["configmaps", "pods", "secrets", "services", "persistentvolumeclaims"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["opensearch.opster.io"]
  resources: ["opensearchclusters", "opensearchroles", "opensearchusers", "opensearchuserrolebindings"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["opensearch.opster.io"]
  resources: ["opensearchclusters/finalizers", "opensearchroles/finalizers", "opensearchusers/finalizers", "opensearchuserrolebindings/finalizers"]
  verbs: ["update"]
- apiGroups: ["opensearch.opster.io"]
  resources: ["opensearchclusters/status", "opensearchroles/status", "opensearchusers/status", "opensearchuserrolebindings/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: opensearch-operator-opensearch-manager-rolebinding
  labels:
    app.kubernetes.io/managed-by: Helm
  annotations:
    meta.helm.sh/release-name: opensearch-operator
    meta.helm.sh/release-namespace: opensearch
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: opensearch-operator-opensearch-manager-role
subjects:
- kind: ServiceAccount
  name: opensearch-operator-controller-manager
  namespace: opensearch
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: opensearch
---
apiVersion: opensearch.opster.io/v1
kind: OpenSearchCluster
metadata:
  name: opensearch-cluster
  namespace: opensearch
  finalizers:
  - Opster
spec:
  general:
    serviceName: opensearch-cluster
    version: 2.18.0
  dashboards:
    enable: true
    version: 2.18.0
    replicas: 1
  nodePools:
  - component: nodes
    replicas: 3
    diskSize: 30Gi
    roles: ["cluster_manager", "data"]
status:
  phase: RUNNING
  health: green
  availableNodes: 3
  initialized: true
`,
		deletes: []string{"Namespace//opensearch"},
	}.run(t)

	d := diagnose(t, "namespace", "opensearch")
	d.exit(1, "STUCK")
	f := d.finalizer("opensearchclusters.opensearch.opster.io/opensearch-cluster -n opensearch", "Opster")
	d.verdict(f, controllerAbsent)
	d.noRunningRemover(f)
	// The operator cannot be reinstalled where it ran: its namespace is the one being deleted,
	// and refuses new objects. The strip is the way out.
	d.never(f, readLogs, reinstall)
	d.offers(f, stripFinalizer)
	d.mentions(f, "namespaces/opensearch")
}
