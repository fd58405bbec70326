package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/elastic/cloud-on-k8s/issues/1384 ("Cannot delete resources created
// with ECK 0.8 if 0.9 is running"): Elasticsearch created by operator 0.8 keeps the 0.8
// finalizers after the upgrade; the 0.9 operator leaves resources marked as created by an older
// version unmodified, so it never removes them and the delete "never succeeds". The resolution
// (documented in the 0.9 upgrade notes, #1378): remove those finalizers by hand.
//
// Modelled on ECK 0.9.0's all-in-one.yaml: the CRDs (v1alpha1), namespace elastic-system,
// ServiceAccount, ClusterRole and ClusterRoleBinding elastic-operator, StatefulSet
// elastic-operator (image docker.elastic.co/eck/eck-operator:0.9.0). The object carries the
// common.k8s.elastic.co/controller-version annotation the 0.8 operator wrote.
func TestCorpusECKFinalizersOfAnOlderOperator(t *testing.T) {
	finalizerNames := []string{
		"expectations.finalizers.elasticsearch.k8s.elastic.co",
		"observer.finalizers.elasticsearch.k8s.elastic.co",
		"secure-settings.finalizers.elasticsearch.k8s.elastic.co",
		"licenses.finalizers.elasticsearch.k8s.elastic.co",
	}
	replay{
		crds: []crd{
			{group: "elasticsearch.k8s.elastic.co", kind: "Elasticsearch", plural: "elasticsearches", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "elasticsearch.k8s.elastic.co", kind: "TrustRelationship", plural: "trustrelationships", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "kibana.k8s.elastic.co", kind: "Kibana", plural: "kibanas", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "apm.k8s.elastic.co", kind: "ApmServer", plural: "apmservers", namespaced: true, versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: elastic-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: elastic-operator
  namespace: elastic-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: elastic-operator
rules:
- apiGroups: [""]
  resources: ["pods", "endpoints", "events", "persistentvolumeclaims", "secrets", "services", "configmaps"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["apps"]
  resources: ["deployments", "statefulsets"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["policy"]
  resources: ["poddisruptionbudgets"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["elasticsearch.k8s.elastic.co"]
  resources: ["elasticsearches", "elasticsearches/status", "elasticsearches/finalizers", "trustrelationships"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["kibana.k8s.elastic.co"]
  resources: ["kibanas", "kibanas/status", "kibanas/finalizers"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["apm.k8s.elastic.co"]
  resources: ["apmservers", "apmservers/status", "apmservers/finalizers"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["associations.k8s.elastic.co"]
  resources: ["apmserverelasticsearchassociations", "apmserverelasticsearchassociations/status"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: elastic-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: elastic-operator
subjects:
- kind: ServiceAccount
  name: elastic-operator
  namespace: elastic-system
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: elastic-operator
  namespace: elastic-system
  labels:
    control-plane: elastic-operator
spec:
  replicas: 1
  serviceName: elastic-operator
  selector:
    matchLabels:
      control-plane: elastic-operator
  template:
    metadata:
      labels:
        control-plane: elastic-operator
    spec:
      serviceAccountName: elastic-operator
      containers:
      - name: manager
        image: docker.elastic.co/eck/eck-operator:0.9.0
        args: ["manager", "--operator-roles", "all", "--enable-debug-logs=false"]
`,
		objects: `
apiVersion: elasticsearch.k8s.elastic.co/v1alpha1
kind: Elasticsearch
metadata:
  name: quickstart
  namespace: default
  annotations:
    common.k8s.elastic.co/controller-version: 0.8.0
  finalizers:
  - expectations.finalizers.elasticsearch.k8s.elastic.co
  - observer.finalizers.elasticsearch.k8s.elastic.co
  - secure-settings.finalizers.elasticsearch.k8s.elastic.co
  - licenses.finalizers.elasticsearch.k8s.elastic.co
spec:
  version: 7.1.0
  nodes:
  - nodeCount: 1
    config:
      node.master: true
      node.data: true
status:
  health: green
  phase: Operational
`,
		deletes: []string{"Elasticsearch/default/quickstart"},
	}.run(t)

	// The report's object had stayed for days ("never succeeds"): diagnosed as of hours after
	// the deletion, with nothing done to the object in between, as the report shows it.
	d := diagnoseAfter(t, 3*time.Hour, "elasticsearches.elasticsearch.k8s.elastic.co", "quickstart", "-n", "default")
	d.exit(1, "STUCK")
	for _, name := range finalizerNames {
		f := d.finalizer("elasticsearches.elasticsearch.k8s.elastic.co/quickstart -n default", name)
		// The running 0.9 operator never removes a 0.8 finalizer: the way out is its logs, then
		// removing that finalizer.
		d.remover(f, "statefulsets.apps/elastic-operator -n elastic-system", true)
		d.verdict(f, removerStalled)
		d.firstFix(f, readLogs)
		d.offers(f, stripFinalizer)
		d.never(f, reinstall)
	}
	// Seconds after the deletion the same running operator has not had the time to act: no
	// stalled verdict, and no strip behind its back.
	now := diagnose(t, "elasticsearches.elasticsearch.k8s.elastic.co", "quickstart", "-n", "default")
	f := now.finalizer("elasticsearches.elasticsearch.k8s.elastic.co/quickstart -n default", finalizerNames[0])
	now.verdict(f, controllerRunning)
	now.never(f, stripFinalizer)
}
