package whyterminating_test

import "testing"

// Report: https://github.com/Azure/azure-service-operator/issues/1267 ("Unable to delete
// failed mysqluser resource"): deleting a MySQLUser hangs; the operator runs and records
// FailedDelete again and again: "mysql.DatabasesClient#Get: ... StatusCode=403 ...
// AuthorizationFailed ..." (the resource group in the spec was wrong). The deletion is not on
// course: the running operator keeps failing against Azure, which the events show; that is
// where to look, and what to fix.
//
// Modelled on Azure Service Operator v1's Helm chart (charts/azure-service-operator, v1.0):
// namespace azureoperator-system, ServiceAccount, ClusterRole azureoperator-manager-role with
// its rules on azure.microsoft.com, binding, Deployment azureoperator-controller-manager; the
// finalizer azure.microsoft.com/finalizer and the events as the report's log shows them.
func TestCorpusAzureServiceOperatorFailingDelete(t *testing.T) {
	replay{
		crds: []crd{
			{group: "azure.microsoft.com", kind: "MySQLUser", plural: "mysqlusers", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "azure.microsoft.com", kind: "MySQLServer", plural: "mysqlservers", namespaced: true, versions: []string{"v1alpha2", "v1alpha1"}},
			{group: "azure.microsoft.com", kind: "MySQLDatabase", plural: "mysqldatabases", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "azure.microsoft.com", kind: "MySQLFirewallRule", plural: "mysqlfirewallrules", namespaced: true, versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: azureoperator-system
  labels:
    control-plane: controller-manager
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: azureoperator-default
  namespace: azureoperator-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: azureoperator-manager-role
rules:
- apiGroups: ["azure.microsoft.com"]
  resources: ["mysqlusers", "mysqlservers", "mysqldatabases", "mysqlfirewallrules", "resourcegroups", "keyvaults", "storageaccounts"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["azure.microsoft.com"]
  resources: ["mysqlusers/status", "mysqlservers/status", "mysqldatabases/status", "mysqlfirewallrules/status", "resourcegroups/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: [""]
  resources: ["secrets", "events"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: azureoperator-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: azureoperator-manager-role
subjects:
- kind: ServiceAccount
  name: azureoperator-default
  namespace: azureoperator-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: azureoperator-controller-manager
  namespace: azureoperator-system
  labels:
    control-plane: controller-manager
spec:
  replicas: 1
  selector:
    matchLabels:
      control-plane: controller-manager
  template:
    metadata:
      labels:
        control-plane: controller-manager
    spec:
      serviceAccountName: azureoperator-default
      containers:
      - name: manager
        image: mcr.microsoft.com/k8s/azureserviceoperator:1.0.22801
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: monitoring
---
apiVersion: azure.microsoft.com/v1alpha1
kind: MySQLUser
metadata:
  name: grafana
  namespace: monitoring
  finalizers:
  - azure.microsoft.com/finalizer
spec:
  server: monitoring-grafana-database
  dbName: grafana
  resourceGroup: resourcegroup-azure-operators
  roles:
  - SELECT
status:
  provisioned: false
  provisioning: false
  failedProvisioning: true
  message: 'mysql.DatabasesClient#Get: Failure responding to request: StatusCode=403'
`,
		deletes: []string{"MySQLUser/monitoring/grafana"},
		events: []event{{about: "MySQLUser/monitoring/grafana", typ: "Warning", reason: "FailedDelete", component: "MySQLUser-controller", count: 23,
			message: "Failed to delete resource: 1 error occurred:\n\t* mysql.DatabasesClient#Get: Failure responding to request: StatusCode=403 -- Original Error: autorest/azure: Service returned an error. Status=403 Code=\"AuthorizationFailed\" Message=\"The client does not have authorization to perform action 'Microsoft.DBforMySQL/servers/databases/read' over scope '/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/resourcegroup-azure-operators/providers/Microsoft.DBforMySQL/servers/monitoring-grafana-database/databases/grafana' or the scope is invalid.\""}},
	}.run(t)

	d := diagnose(t, "mysqlusers.azure.microsoft.com", "grafana", "-n", "monitoring")
	d.exit(1, "STUCK")
	e := d.object("mysqlusers.azure.microsoft.com/grafana -n monitoring")
	if e.Deleting {
		t.Errorf("repeated FailedDelete events reported as a deletion on course")
	}
	seen := false
	for _, ev := range e.Events {
		seen = seen || ev.Reason == "FailedDelete"
	}
	if !seen {
		t.Errorf("the FailedDelete events are not shown: %+v", e.Events)
	}
	f := d.finalizer("mysqlusers.azure.microsoft.com/grafana -n monitoring", "azure.microsoft.com/finalizer")
	d.remover(f, "deployments.apps/azureoperator-controller-manager -n azureoperator-system", true)
	d.notFirstFix(f, stripFinalizer)
}
