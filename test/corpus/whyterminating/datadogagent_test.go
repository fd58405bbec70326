package whyterminating_test

import "testing"

// Report: https://github.com/DataDog/datadog-operator/issues/654 ("Finalizers block deletion of
// namespace and agent"): the Datadog Operator and its DatadogAgent live in one namespace;
// deleting the namespace deletes the operator with the rest, and the namespace stays
// Terminating ("Some resources are remaining: datadogagents.datadoghq.com has 1 resource
// instances"). The documented answer (DataDog/documentation#24723): delete the DatadogAgent
// first and let the operator clean up; once the operator is gone, "a workaround in this
// situation is to remove the metadata.finalizers value from DatadogAgent resource". What the
// finalizer would have cleaned up stays: the cluster-scoped ClusterRoles and bindings the
// operator created for the agent and the cluster agent (datadog-operator#576).
//
// Modelled on the datadog-operator Helm chart (0.8/1.0 era): its ClusterRole datadog-operator
// (rules on datadoghq.com and what it creates, abbreviated) and binding to the service account
// in namespace datadog stay; the namespace's own content (the operator's Deployment and
// ServiceAccount) is gone. The agents' ClusterRoles and bindings the operator created stay too.
func TestCorpusDatadogAgentOfOperatorDeletedWithNamespace(t *testing.T) {
	owned := "    app.kubernetes.io/managed-by: datadog-operator\n    app.kubernetes.io/part-of: datadog-datadog\n    app.kubernetes.io/instance: "
	replay{
		crds: []crd{
			{group: "datadoghq.com", kind: "DatadogAgent", plural: "datadogagents", namespaced: true, versions: []string{"v2alpha1", "v1alpha1"}, labels: map[string]string{"app.kubernetes.io/managed-by": "Helm"}},
			{group: "datadoghq.com", kind: "DatadogMonitor", plural: "datadogmonitors", namespaced: true, versions: []string{"v1alpha1"}, labels: map[string]string{"app.kubernetes.io/managed-by": "Helm"}},
		},
		install: `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: datadog-operator
  labels:
    app.kubernetes.io/name: datadog-operator
    app.kubernetes.io/instance: datadog-operator
    app.kubernetes.io/managed-by: Helm
rules:
- apiGroups: ["datadoghq.com"]
  resources: ["datadogagents", "datadogagents/status", "datadogagents/finalizers", "datadogmonitors", "datadogmonitors/status"]
  verbs: ["*"]
- apiGroups: ["apps"]
  resources: ["daemonsets", "deployments"]
  verbs: ["*"]
- apiGroups: [""]
  resources: ["configmaps", "secrets", "services", "serviceaccounts", "pods", "events"]
  verbs: ["*"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["clusterroles", "clusterrolebindings", "roles", "rolebindings"]
  verbs: ["*"]
- apiGroups: ["apiregistration.k8s.io"]
  resources: ["apiservices"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: datadog-operator
  labels:
    app.kubernetes.io/name: datadog-operator
    app.kubernetes.io/managed-by: Helm
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: datadog-operator
subjects:
- kind: ServiceAccount
  name: datadog-operator
  namespace: datadog
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: datadog-agent
  labels:
` + owned + `datadog-agent
rules:
- nonResourceURLs: ["/metrics"]
  verbs: ["get"]
- apiGroups: [""]
  resources: ["nodes/metrics", "nodes/spec", "nodes/proxy", "nodes/stats"]
  verbs: ["get"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: datadog-agent
  labels:
` + owned + `datadog-agent
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: datadog-agent
subjects:
- kind: ServiceAccount
  name: datadog-agent
  namespace: datadog
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: datadog-cluster-agent
  labels:
` + owned + `datadog-cluster-agent
rules:
- apiGroups: [""]
  resources: ["services", "events", "endpoints", "pods", "nodes", "componentstatuses", "namespaces"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: datadog-cluster-agent
  labels:
` + owned + `datadog-cluster-agent
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: datadog-cluster-agent
subjects:
- kind: ServiceAccount
  name: datadog-cluster-agent
  namespace: datadog
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: datadog
---
apiVersion: datadoghq.com/v2alpha1
kind: DatadogAgent
metadata:
  name: datadog
  namespace: datadog
  finalizers:
  - finalizer.agent.datadoghq.com
spec:
  global:
    site: datadoghq.com
    credentials:
      apiSecret:
        secretName: datadog-secret
        keyName: api-key
  features:
    apm:
      enabled: true
`,
		deletes: []string{"Namespace//datadog"},
	}.run(t)

	d := diagnose(t, "namespace", "datadog")
	d.exit(1, "STUCK")
	f := d.finalizer("datadogagents.datadoghq.com/datadog -n datadog", "finalizer.agent.datadoghq.com")
	d.verdict(f, controllerAbsent)
	d.noRunningRemover(f)
	// The operator cannot come back into the namespace being deleted; the strip is the way out,
	// and it leaves the agents' cluster-scoped RBAC the finalizer would have removed.
	d.never(f, readLogs, reinstall)
	d.offers(f, stripFinalizer)
	d.names(f, "clusterroles.rbac.authorization.k8s.io/datadog-cluster-agent")
}
