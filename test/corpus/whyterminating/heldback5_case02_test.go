package whyterminating_test

import "testing"

// Report: https://github.com/aquasecurity/trivy-operator/issues/1224 ("Cant remove the
// namespace because of the reports"): deleting namespace01 with Terraform leaves it Terminating
// with "Some content in the namespace has finalizers remaining:
// starboard-exporter.giantswarm.io/configauditreport in 3 resource instances"; the reports are
// Trivy Operator's ConfigAuditReports (aquasecurity.github.io), but the finalizer is not
// Trivy's: it is Giant Swarm's starboard-exporter's, a Prometheus exporter of those reports
// that added it to clear its metrics before a report goes (and later dropped it,
// giantswarm/starboard-exporter#115). The exporter is not installed, so nothing removes it;
// the reporter's "temp solution": remove the finalizers by hand, which loses nothing but
// stale metrics of a gone exporter.
//
// Modelled on the Trivy Operator Helm chart 0.13.0 (namespace trivy-system, ServiceAccount,
// ClusterRole trivy-operator with its rules on aquasecurity.github.io and the workloads it
// scans, abbreviated, its binding, the Deployment trivy-operator running) and its CRDs; the
// exporter is absent. namespace01 holds the report of a ReplicaSet already deleted.
func TestCorpusTrivyReportsWithAThirdPartyFinalizer(t *testing.T) {
	chart := map[string]string{"app.kubernetes.io/name": "trivy-operator", "app.kubernetes.io/instance": "trivy-operator", "app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "trivy-operator-0.13.0"}
	replay{
		crds: []crd{
			{group: "aquasecurity.github.io", kind: "ConfigAuditReport", plural: "configauditreports", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
			{group: "aquasecurity.github.io", kind: "VulnerabilityReport", plural: "vulnerabilityreports", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
			{group: "aquasecurity.github.io", kind: "ExposedSecretReport", plural: "exposedsecretreports", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: trivy-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: trivy-operator
  namespace: trivy-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: trivy-operator
  labels:
    app.kubernetes.io/name: trivy-operator
    app.kubernetes.io/instance: trivy-operator
    app.kubernetes.io/managed-by: Helm
rules:
- apiGroups: [""]
  resources: ["pods", "pods/log", "replicationcontrollers", "services", "resourcequotas", "limitranges", "nodes", "namespaces", "configmaps", "secrets", "serviceaccounts"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["apps"]
  resources: ["replicasets", "statefulsets", "daemonsets", "deployments"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["batch"]
  resources: ["jobs", "cronjobs"]
  verbs: ["create", "delete", "get", "list", "watch"]
- apiGroups: ["aquasecurity.github.io"]
  resources: ["vulnerabilityreports", "configauditreports", "exposedsecretreports", "clustercompliancereports"]
  verbs: ["create", "get", "list", "watch", "update", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: trivy-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: trivy-operator
subjects:
- kind: ServiceAccount
  name: trivy-operator
  namespace: trivy-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: trivy-operator
  namespace: trivy-system
  labels:
    app.kubernetes.io/name: trivy-operator
    app.kubernetes.io/instance: trivy-operator
    app.kubernetes.io/managed-by: Helm
    app.kubernetes.io/version: 0.13.0
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: trivy-operator
      app.kubernetes.io/instance: trivy-operator
  template:
    metadata:
      labels:
        app.kubernetes.io/name: trivy-operator
        app.kubernetes.io/instance: trivy-operator
    spec:
      serviceAccountName: trivy-operator
      containers:
      - name: trivy-operator
        image: ghcr.io/aquasecurity/trivy-operator:0.13.0
        env:
        - name: OPERATOR_NAMESPACE
          value: trivy-system
        - name: OPERATOR_CONFIG_AUDIT_SCANNER_ENABLED
          value: "true"
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: namespace01
---
apiVersion: aquasecurity.github.io/v1alpha1
kind: ConfigAuditReport
metadata:
  name: replicaset-rs-5987c949f2
  namespace: namespace01
  finalizers:
  - starboard-exporter.giantswarm.io/configauditreport
  labels:
    trivy-operator.resource.kind: ReplicaSet
    trivy-operator.resource.name: rs-5987c949f2
    trivy-operator.resource.namespace: namespace01
    plugin-config-hash: 659b7b9c46
    resource-spec-hash: 5c8b6b8f9d
report:
  scanner:
    name: Trivy
    vendor: Aqua Security
    version: 0.41.0
  summary:
    criticalCount: 0
    highCount: 1
    lowCount: 9
    mediumCount: 2
  checks: []
`,
		deletes: []string{"Namespace//namespace01"},
	}.run(t)

	d := diagnose(t, "namespace", "namespace01")
	d.exit(1, "STUCK")
	f := d.finalizer("configauditreports.aquasecurity.github.io/replicaset-rs-5987c949f2 -n namespace01", "starboard-exporter.giantswarm.io/configauditreport")
	// Trivy Operator writes the reports but the finalizer is the exporter's, which is not
	// installed: Trivy is not its remover, its logs are not the step, the strip is the way out.
	d.verdict(f, controllerAbsent, finalizerOrphaned)
	d.notRemover(f, "deployments.apps/trivy-operator -n trivy-system")
	d.noRunningRemover(f)
	d.notFirstFix(f, readLogs)
	d.offers(f, stripFinalizer)
}
