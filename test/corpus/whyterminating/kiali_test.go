package whyterminating_test

import "testing"

// Report: https://github.com/kiali/kiali/issues/2866 ("Kiali CR finalizer not removed when
// deleting the operator"): the Kiali operator (1.18.1) was deleted, then the Kiali CR; the CR
// stays with its finalizer. The maintainer: "you cannot blindly delete the Kiali Operator
// without first deleting all Kiali CRs it is managing. Deleting the Kiali Operator is
// effectively removing the object responsible for cleaning up/uninstalling all Kialis (that's
// what the finalizer is for)". The way out: install the operator again so that it finalizes
// the CR (uninstalling the Kiali server it deployed), or remove the finalizer by hand and the
// Kiali server's resources with it.
//
// Modelled on the operator's install of that era (deploy/ of kiali-operator: namespace
// kiali-operator, which stays, its ServiceAccount, ClusterRole and Deployment deleted) and on
// what the operator deployed for the CR in istio-system, which still runs: the Deployment
// kiali, its ServiceAccount kiali-service-account, the ClusterRole kiali (reads the mesh and
// monitoring.kiali.io) and its binding.
func TestCorpusKialiCROfADeletedOperator(t *testing.T) {
	kiali := map[string]string{"app": "kiali", "version": "v1.18.1", "app.kubernetes.io/name": "kiali", "app.kubernetes.io/part-of": "kiali"}
	replay{
		crds: []crd{
			{group: "kiali.io", kind: "Kiali", plural: "kialis", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "monitoring.kiali.io", kind: "MonitoringDashboard", plural: "monitoringdashboards", namespaced: true, versions: []string{"v1alpha1"}, labels: kiali},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: kiali-operator
---
apiVersion: v1
kind: Namespace
metadata:
  name: istio-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kiali-service-account
  namespace: istio-system
  labels:
    app: kiali
    version: v1.18.1
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kiali
  labels:
    app: kiali
    version: v1.18.1
rules:
- apiGroups: [""]
  resources: ["configmaps", "endpoints", "namespaces", "nodes", "pods", "pods/log", "replicationcontrollers", "services"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["apps"]
  resources: ["deployments", "replicasets", "statefulsets"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["networking.istio.io", "security.istio.io", "config.istio.io"]
  resources: ["*"]
  verbs: ["create", "delete", "get", "list", "patch", "watch"]
- apiGroups: ["monitoring.kiali.io"]
  resources: ["monitoringdashboards"]
  verbs: ["get", "list"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kiali
  labels:
    app: kiali
    version: v1.18.1
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: kiali
subjects:
- kind: ServiceAccount
  name: kiali-service-account
  namespace: istio-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kiali
  namespace: istio-system
  labels:
    app: kiali
    version: v1.18.1
spec:
  replicas: 1
  selector:
    matchLabels:
      app: kiali
  template:
    metadata:
      labels:
        app: kiali
        version: v1.18.1
    spec:
      serviceAccountName: kiali-service-account
      containers:
      - name: kiali
        image: quay.io/kiali/kiali:v1.18.1
        command: ["/opt/kiali/kiali", "-config", "/kiali-configuration/config.yaml", "-v", "3"]
`,
		objects: `
apiVersion: kiali.io/v1alpha1
kind: Kiali
metadata:
  name: kiali
  namespace: istio-system
  finalizers:
  - finalizer.kiali
spec:
  istio_namespace: istio-system
  auth:
    strategy: anonymous
  deployment:
    accessible_namespaces: ["**"]
    namespace: istio-system
`,
		deletes: []string{"Kiali/istio-system/kiali"},
	}.run(t)

	d := diagnose(t, "kialis.kiali.io", "kiali", "-n", "istio-system")
	d.exit(1, "STUCK")
	f := d.finalizer("kialis.kiali.io/kiali -n istio-system", "finalizer.kiali")
	// The Kiali server the operator deployed runs but removes nothing; the operator is gone and
	// can be installed again (its namespace is not being deleted), which the maintainer names
	// first; the strip is there for whoever cleans the server up by hand.
	d.verdict(f, controllerAbsent)
	d.noRunningRemover(f)
	d.notRemover(f, "deployments.apps/kiali -n istio-system")
	d.firstFix(f, reinstall, restoreController)
	d.offers(f, stripFinalizer)
}
