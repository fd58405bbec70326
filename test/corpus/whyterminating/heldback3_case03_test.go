package whyterminating_test

import "testing"

// Report: https://github.com/Altinity/clickhouse-operator/issues/1043 ("Finalizer & namespace
// deletion issue", clickhouse-operator 0.18.4): "Deleting the namespace without having deleted
// first the chi- resources will make the delete command hang indefinitely." The maintainer: "it
// will happens if clickhouse-operator install in the same namespace with chi ... use separate
// namespace for installation clickhouse-operator": the namespace controller deletes the operator
// with everything else, and the ClickHouseInstallation's finalizer
// finalizer.clickhouseinstallation.altinity.com, which only the operator removes, stays (#1142 is
// the same with SigNoz's bundled operator). The operator cannot come back into a namespace that
// refuses new content; the way out is to remove the finalizer by hand.
//
// Modelled on deploy/operator/clickhouse-operator-install-template.yaml (0.18.4) rendered for
// namespace clickhouse: the ClusterRole clickhouse-operator-clickhouse (its rules on
// clickhouse.altinity.com and the types it manages, abbreviated) and the ClusterRoleBinding to
// the service account clickhouse-operator in namespace clickhouse, which stay after the
// namespace's own content (the ServiceAccount, the Deployment clickhouse-operator, its
// ConfigMaps) is gone; the CRDs of clickhouse.altinity.com.
func TestCorpusClickHouseOperatorDeletedWithItsNamespace(t *testing.T) {
	replay{
		crds: []crd{
			{group: "clickhouse.altinity.com", kind: "ClickHouseInstallation", plural: "clickhouseinstallations", namespaced: true, versions: []string{"v1"}},
			{group: "clickhouse.altinity.com", kind: "ClickHouseInstallationTemplate", plural: "clickhouseinstallationtemplates", namespaced: true, versions: []string{"v1"}},
			{group: "clickhouse.altinity.com", kind: "ClickHouseOperatorConfiguration", plural: "clickhouseoperatorconfigurations", namespaced: true, versions: []string{"v1"}},
		},
		install: `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: clickhouse-operator-clickhouse
  labels:
    clickhouse.altinity.com/chop: 0.18.4
rules:
- apiGroups: [""]
  resources: ["configmaps", "services", "persistentvolumeclaims", "secrets"]
  verbs: ["get", "list", "patch", "update", "watch", "create", "delete"]
- apiGroups: [""]
  resources: ["endpoints", "persistentvolumes", "pods"]
  verbs: ["get", "list", "patch", "update", "watch", "delete"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create"]
- apiGroups: ["apps"]
  resources: ["statefulsets", "replicasets"]
  verbs: ["get", "list", "patch", "update", "watch", "create", "delete"]
- apiGroups: ["policy"]
  resources: ["poddisruptionbudgets"]
  verbs: ["get", "list", "patch", "update", "watch", "create", "delete"]
- apiGroups: ["clickhouse.altinity.com"]
  resources: ["clickhouseinstallations"]
  verbs: ["get", "patch", "update", "delete"]
- apiGroups: ["clickhouse.altinity.com"]
  resources: ["clickhouseinstallations", "clickhouseinstallationtemplates", "clickhouseoperatorconfigurations"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["clickhouse.altinity.com"]
  resources: ["clickhouseinstallations/finalizers", "clickhouseinstallationtemplates/finalizers", "clickhouseoperatorconfigurations/finalizers"]
  verbs: ["update"]
- apiGroups: ["clickhouse.altinity.com"]
  resources: ["clickhouseinstallations/status", "clickhouseinstallationtemplates/status", "clickhouseoperatorconfigurations/status"]
  verbs: ["get", "update", "patch", "create", "delete"]
- apiGroups: ["apiextensions.k8s.io"]
  resources: ["customresourcedefinitions"]
  verbs: ["get", "list"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: clickhouse-operator-clickhouse
  labels:
    clickhouse.altinity.com/chop: 0.18.4
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: clickhouse-operator-clickhouse
subjects:
- kind: ServiceAccount
  name: clickhouse-operator
  namespace: clickhouse
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: clickhouse
---
apiVersion: clickhouse.altinity.com/v1
kind: ClickHouseInstallation
metadata:
  name: analytics
  namespace: clickhouse
  finalizers:
  - finalizer.clickhouseinstallation.altinity.com
spec:
  configuration:
    clusters:
    - name: main
      layout:
        shardsCount: 1
        replicasCount: 1
status:
  status: Completed
  chop-version: 0.18.4
`,
		deletes: []string{"Namespace//clickhouse"},
	}.run(t)

	d := diagnose(t, "namespace", "clickhouse")
	d.exit(1, "STUCK")
	f := d.finalizer("clickhouseinstallations.clickhouse.altinity.com/analytics -n clickhouse", "finalizer.clickhouseinstallation.altinity.com")
	d.verdict(f, controllerAbsent, finalizerOrphaned)
	d.noRunningRemover(f)
	// The operator cannot be reinstalled where it ran: its namespace is the one being deleted.
	d.never(f, readLogs, reinstall)
	d.offers(f, stripFinalizer)
	d.mentions(f, "namespaces/clickhouse")
}
