package whyterminating_test

import "testing"

// Report: https://github.com/redpanda-data/redpanda-operator/pull/1626 ("let layered CRs delete
// after their cluster is removed", UX-1351): "A RedpandaRole (and other layered CRs:
// User/Schema/Group/ShadowLink) that references a cluster via clusterRef could get stuck in
// ClusterRefInvalid and, in the v1 teardown case, block deletion of its namespace forever ...
// uninstalling the v1 (vectorized) operator removes the clusters.redpanda.vectorized.io CRD, so
// the lookup returns a *meta.NoKindMatchError instead of NotFound ... the finalizer was never
// removed, and the role hung in Terminating — taking the namespace with it." The operator (v2)
// runs and acts on the role; what it needs, a Cluster of redpanda.vectorized.io, can never exist
// again: that type is no longer served. The fix makes the operator let go when "the whole kind is
// gone"; until then the way out is to remove operator.redpanda.com/finalizer by hand (the role
// and its ACLs lived in a Redpanda cluster that went with the v1 teardown). Neither the operator
// nor the v1 operator is to be brought back for it.
//
// Modelled on the operator chart 26.2.1 (operator/chart: release redpanda-controller in
// namespace redpanda, the ServiceAccount and Deployment redpanda-controller-operator with the
// chart's labels, the ClusterRole of files/rbac/v2-manager.ClusterRole.yaml, abbreviated to the
// rules on cluster.redpanda.com and the core and apps types, and its binding) and the CRDs of
// cluster.redpanda.com its CRD job installs (unlabelled); the v1 CRD
// clusters.redpanda.vectorized.io is gone. The role names its cluster as the operator's docs say for a v1 cluster (clusterRef group
// redpanda.vectorized.io, kind Cluster) and carries the ClusterRefInvalid condition the
// operator writes (operator/api/redpanda/v1alpha2/common.go).
func TestCorpusRedpandaRoleOfAnUninstalledV1Cluster(t *testing.T) {
	crd1 := func(kind, plural string, versions ...string) crd {
		return crd{group: "cluster.redpanda.com", kind: kind, plural: plural, namespaced: true, versions: versions}
	}
	replay{
		crds: []crd{
			crd1("Redpanda", "redpandas", "v1alpha2"),
			crd1("Topic", "topics", "v1alpha2"),
			crd1("User", "users", "v1alpha2"),
			crd1("Schema", "schemas", "v1alpha2"),
			crd1("RedpandaRole", "redpandaroles", "v1alpha2"),
			crd1("Console", "consoles", "v1alpha2"),
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: redpanda
---
apiVersion: v1
kind: Namespace
metadata:
  name: payments
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: redpanda-controller-operator
  namespace: redpanda
  labels:
    app.kubernetes.io/name: operator
    app.kubernetes.io/instance: redpanda-controller
    app.kubernetes.io/managed-by: Helm
    app.kubernetes.io/version: v26.2.1
    helm.sh/chart: operator-26.2.1
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: redpanda-controller-operator-v2-manager
  labels:
    app.kubernetes.io/name: operator
    app.kubernetes.io/instance: redpanda-controller
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: operator-26.2.1
rules:
- apiGroups: [""]
  resources: ["configmaps", "endpoints", "persistentvolumeclaims", "pods", "secrets", "serviceaccounts", "services"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: [""]
  resources: ["namespaces"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["apps"]
  resources: ["deployments", "statefulsets"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["cluster.redpanda.com"]
  resources: ["brokers", "consoles", "nodepools", "redpandabrokerpools", "redpandas"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["cluster.redpanda.com"]
  resources: ["groups", "redpandaroles", "schemas", "shadowlinks", "stretchclusters", "topics", "users"]
  verbs: ["get", "list", "patch", "update", "watch"]
- apiGroups: ["cluster.redpanda.com"]
  resources: ["brokers/finalizers", "groups/finalizers", "nodepools/finalizers", "redpandabrokerpools/finalizers", "redpandaroles/finalizers", "redpandas/finalizers", "schemas/finalizers", "shadowlinks/finalizers", "stretchclusters/finalizers", "topics/finalizers", "users/finalizers"]
  verbs: ["update"]
- apiGroups: ["cluster.redpanda.com"]
  resources: ["brokers/status", "groups/status", "nodepools/status", "redpandabrokerpools/status", "redpandaroles/status", "redpandas/status", "schemas/status", "shadowlinks/status", "stretchclusters/status", "topics/status", "users/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: redpanda-controller-operator-v2-manager
  labels:
    app.kubernetes.io/name: operator
    app.kubernetes.io/instance: redpanda-controller
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: redpanda-controller-operator-v2-manager
subjects:
- kind: ServiceAccount
  name: redpanda-controller-operator
  namespace: redpanda
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: redpanda-controller-operator
  namespace: redpanda
  labels:
    app.kubernetes.io/name: operator
    app.kubernetes.io/instance: redpanda-controller
    app.kubernetes.io/managed-by: Helm
    app.kubernetes.io/version: v26.2.1
    helm.sh/chart: operator-26.2.1
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: operator
      app.kubernetes.io/instance: redpanda-controller
  template:
    metadata:
      labels:
        app.kubernetes.io/name: operator
        app.kubernetes.io/instance: redpanda-controller
    spec:
      serviceAccountName: redpanda-controller-operator
      containers:
      - name: manager
        image: docker.redpanda.com/redpandadata/redpanda-operator:v26.2.1
        command: ["/manager"]
        args: ["run", "--health-probe-bind-address=:8081", "--metrics-bind-address=:8443", "--leader-elect"]
`,
		objects: `
apiVersion: cluster.redpanda.com/v1alpha2
kind: RedpandaRole
metadata:
  name: payments-writer
  namespace: payments
  finalizers:
  - operator.redpanda.com/finalizer
spec:
  cluster:
    clusterRef:
      group: redpanda.vectorized.io
      kind: Cluster
      name: redpanda
      namespace: redpanda
  principals:
  - User:payments-svc
  authorization:
    acls:
    - type: allow
      resource:
        type: topic
        name: payments.
        patternType: prefixed
      operations: [Write, Describe]
status:
  observedGeneration: 1
  managedRole: true
  managedAcls: true
  conditions:
  - type: Synced
    status: "False"
    reason: ClusterRefInvalid
    message: 'Error: no matches for kind "Cluster" in version "redpanda.vectorized.io/v1alpha1"'
    observedGeneration: 1
    lastTransitionTime: "2026-06-24T14:02:51Z"
`,
		deletes: []string{"Namespace//payments"},
	}.run(t)

	d := diagnose(t, "namespace", "payments")
	d.exit(1, "STUCK")
	role := "redpandaroles.cluster.redpanda.com/payments-writer -n payments"
	ns := d.finalizer("namespaces/payments", "kubernetes")
	d.blocker(ns, role)
	f := d.finalizer(role, "operator.redpanda.com/finalizer")
	d.remover(f, "deployments.apps/redpanda-controller-operator -n redpanda", true)
	// What the operator needs is a Cluster of a type the API server no longer serves: that is
	// the blocker, the finalizer is the one to remove, and nothing is to be reinstalled.
	d.names(f, "redpanda.vectorized.io")
	d.never(f, reinstall, restoreController)
	d.notFirstFix(f, readLogs)
	d.offers(f, stripFinalizer)
}
