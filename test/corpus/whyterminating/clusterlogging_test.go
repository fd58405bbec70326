package whyterminating_test

import "testing"

// Report: https://github.com/openshift/cluster-logging-operator/pull/1992 (LOG-3316,
// "openshift-logging namespace can not be deleted"): with Loki as the log store, the
// ClusterLogging instance carries the operator's finalizer logging.openshift.io/lokistack-rbac,
// which tracks the cluster-wide ClusterRole and ClusterRoleBinding logging-collector-logs-writer
// it made for the collector (cluster-logging-operator#1641: "Because ClusterRole and
// ClusterRoleBinding are not namespaced we can not use the usual way of garbage collection").
// Deleting openshift-logging deletes the operator with the rest, and the ClusterLogging keeps
// the finalizer. The fix drops the finalizer; its known issue names the cost of the way out for
// the ones already stuck: the LokiStack ClusterRoles and bindings are left orphaned.
//
// Modelled on the operator's OLM install (5.6) in openshift-logging as the namespace's deletion
// leaves it: the OLM ClusterRole and binding of the CSV stay, the namespace's content is gone;
// the ClusterRole and ClusterRoleBinding logging-collector-logs-writer the operator created stay.
func TestCorpusClusterLoggingLokiStackRBACFinalizer(t *testing.T) {
	olm := map[string]string{"operators.coreos.com/cluster-logging.openshift-logging": ""}
	replay{
		crds: []crd{
			{group: "logging.openshift.io", kind: "ClusterLogging", plural: "clusterloggings", namespaced: true, versions: []string{"v1"}, labels: olm},
			{group: "logging.openshift.io", kind: "ClusterLogForwarder", plural: "clusterlogforwarders", namespaced: true, versions: []string{"v1"}, labels: olm},
		},
		install: `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: cluster-logging.v5.6.5-7c9d8f6b5
  labels:
    olm.owner: cluster-logging.v5.6.5
    olm.owner.kind: ClusterServiceVersion
    olm.owner.namespace: openshift-logging
rules:
- apiGroups: ["logging.openshift.io"]
  resources: ["*"]
  verbs: ["*"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["clusterroles", "clusterrolebindings"]
  verbs: ["*"]
- apiGroups: ["loki.grafana.com"]
  resources: ["application", "infrastructure", "audit"]
  verbs: ["create", "get"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: cluster-logging.v5.6.5-7c9d8f6b5
  labels:
    olm.owner: cluster-logging.v5.6.5
    olm.owner.kind: ClusterServiceVersion
    olm.owner.namespace: openshift-logging
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-logging.v5.6.5-7c9d8f6b5
subjects:
- kind: ServiceAccount
  name: cluster-logging-operator
  namespace: openshift-logging
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: logging-collector-logs-writer
rules:
- apiGroups: ["loki.grafana.com"]
  resourceNames: ["logs"]
  resources: ["application", "infrastructure", "audit"]
  verbs: ["create"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: logging-collector-logs-writer
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: logging-collector-logs-writer
subjects:
- kind: ServiceAccount
  name: logcollector
  namespace: openshift-logging
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: openshift-logging
---
apiVersion: logging.openshift.io/v1
kind: ClusterLogging
metadata:
  name: instance
  namespace: openshift-logging
  finalizers:
  - logging.openshift.io/lokistack-rbac
spec:
  managementState: Managed
  logStore:
    type: lokistack
    lokistack:
      name: logging-loki
  collection:
    type: vector
`,
		deletes: []string{"Namespace//openshift-logging"},
	}.run(t)

	d := diagnose(t, "namespace", "openshift-logging")
	d.exit(1, "STUCK")
	f := d.finalizer("clusterloggings.logging.openshift.io/instance -n openshift-logging", "logging.openshift.io/lokistack-rbac")
	d.verdict(f, controllerAbsent)
	d.noRunningRemover(f)
	d.never(f, readLogs, reinstall)
	d.offers(f, stripFinalizer)
	// The strip's cost is the cluster-wide RBAC the finalizer tracks, which stays behind.
	d.names(f, "clusterrolebindings.rbac.authorization.k8s.io/logging-collector-logs-writer")
}
