package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/apache/flink-kubernetes-operator/pull/1079 ("Stateless Flink State
// Snapshot"): "When a FlinkStateSnapshot CR is deleted before the FlinkStateSnapshotController
// has reconciled it, the cleanup() method throws a NullPointerException on
// getStatus().getState(). The exception is caught in a way that prevents the finalizer from
// being removed, causing the CR to be permanently stuck in a terminating state. This blocks
// namespace deletion ... an infinite retry loop where every attempt crashes the same way." The
// operator runs and acts on the snapshot; it never will remove the finalizer of a snapshot with
// no status. What the finalizer guards (disposing of the savepoint the snapshot took) has nothing
// to dispose of: the snapshot never ran. The way out until the fix: remove
// flinkstatesnapshots.flink.apache.org/finalizer by hand; nothing is to be reinstalled.
//
// Modelled on the Helm chart helm/flink-kubernetes-operator (1.15-SNAPSHOT, the PR's tree):
// release flink-kubernetes-operator in namespace flink-operator, the ServiceAccount flink-operator,
// its ClusterRole flink-operator (templates/rbac/_helpers.tpl: the core and apps types, and
// flink.apache.org's four kinds with their finalizers and status) and binding, the Deployment
// flink-kubernetes-operator with the chart's labels; the job ServiceAccount flink in the watched
// namespace; the four CRDs of flink.apache.org. The finalizer is the Java Operator SDK's default
// (<plural>.<group>/finalizer). The namespace analytics is deleted with a snapshot created moments
// before, never reconciled (no status); the FlinkDeployment it refers to is gone already.
func TestCorpusFlinkStateSnapshotDeletedBeforeReconcile(t *testing.T) {
	flink := func(kind, plural string, versions ...string) crd {
		return crd{group: "flink.apache.org", kind: kind, plural: plural, namespaced: true, versions: versions}
	}
	replay{
		crds: []crd{
			flink("FlinkDeployment", "flinkdeployments", "v1beta1"),
			flink("FlinkSessionJob", "flinksessionjobs", "v1beta1"),
			flink("FlinkStateSnapshot", "flinkstatesnapshots", "v1beta1"),
			flink("FlinkBlueGreenDeployment", "flinkbluegreendeployments", "v1beta1"),
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: flink-operator
---
apiVersion: v1
kind: Namespace
metadata:
  name: analytics
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: flink-operator
  namespace: flink-operator
  labels:
    app.kubernetes.io/name: flink-kubernetes-operator
    app.kubernetes.io/version: 1.15-SNAPSHOT
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: flink-kubernetes-operator-1.15-SNAPSHOT
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: flink
  namespace: analytics
  annotations:
    helm.sh/resource-policy: keep
  labels:
    app.kubernetes.io/name: flink-kubernetes-operator
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: flink-operator
  labels:
    app.kubernetes.io/name: flink-kubernetes-operator
    app.kubernetes.io/version: 1.15-SNAPSHOT
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: flink-kubernetes-operator-1.15-SNAPSHOT
rules:
- apiGroups: [""]
  resources: ["pods", "services", "events", "configmaps", "secrets"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"]
- apiGroups: ["apps"]
  resources: ["deployments", "deployments/finalizers", "replicasets"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["apps"]
  resources: ["deployments/scale"]
  verbs: ["get", "update", "patch"]
- apiGroups: ["flink.apache.org"]
  resources: ["flinkbluegreendeployments", "flinkbluegreendeployments/finalizers", "flinkdeployments", "flinkdeployments/finalizers", "flinksessionjobs", "flinksessionjobs/finalizers", "flinkstatesnapshots", "flinkstatesnapshots/finalizers"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["flink.apache.org"]
  resources: ["flinkbluegreendeployments/status", "flinkdeployments/status", "flinksessionjobs/status", "flinkstatesnapshots/status"]
  verbs: ["get", "update", "patch"]
- apiGroups: ["networking.k8s.io"]
  resources: ["ingresses"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: flink-operator-role-binding
  labels:
    app.kubernetes.io/name: flink-kubernetes-operator
    helm.sh/chart: flink-kubernetes-operator-1.15-SNAPSHOT
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: flink-operator
subjects:
- kind: ServiceAccount
  name: flink-operator
  namespace: flink-operator
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: flink-kubernetes-operator
  namespace: flink-operator
  labels:
    app.kubernetes.io/name: flink-kubernetes-operator
    app.kubernetes.io/version: 1.15-SNAPSHOT
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: flink-kubernetes-operator-1.15-SNAPSHOT
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: flink-kubernetes-operator
  template:
    metadata:
      labels:
        app.kubernetes.io/name: flink-kubernetes-operator
    spec:
      serviceAccountName: flink-operator
      containers:
      - name: flink-kubernetes-operator
        image: ghcr.io/apache/flink-kubernetes-operator:1.15-SNAPSHOT
        command: ["/docker-entrypoint.sh", "operator"]
        env:
        - name: OPERATOR_NAMESPACE
          value: flink-operator
        - name: OPERATOR_NAME
          value: flink-kubernetes-operator
`,
		objects: `
apiVersion: flink.apache.org/v1beta1
kind: FlinkStateSnapshot
metadata:
  name: orders-pipeline-savepoint-1743330000
  namespace: analytics
  finalizers:
  - flinkstatesnapshots.flink.apache.org/finalizer
spec:
  backoffLimit: 1
  jobReference:
    kind: FlinkDeployment
    name: orders-pipeline
  savepoint:
    alreadyExists: false
    disposeOnDelete: true
    formatType: CANONICAL
`,
		deletes: []string{"Namespace//analytics"},
	}.run(t)

	d := diagnoseAfter(t, 20*time.Minute, "namespace", "analytics")
	d.exit(1, "STUCK")
	snap := "flinkstatesnapshots.flink.apache.org/orders-pipeline-savepoint-1743330000 -n analytics"
	ns := d.finalizer("namespaces/analytics", "kubernetes")
	d.blocker(ns, snap)
	f := d.finalizer(snap, "flinkstatesnapshots.flink.apache.org/finalizer")
	d.remover(f, "deployments.apps/flink-kubernetes-operator -n flink-operator", true)
	d.never(f, reinstall, restoreController)
	d.notDeleting(snap, "a snapshot unfinalized for 20 minutes")
	// The snapshot never ran: removing its finalizer by hand is the way out.
	d.offers(f, stripFinalizer)
}
