package whyterminating_test

import "testing"

// Report: https://github.com/knative/operator/issues/1950 ("Helm: Knative Operator isn't
// removing finalizers when uninstalling"): after the Knative Operator's Helm chart is
// uninstalled, the KnativeServing and KnativeEventing resources "both have finalizers that
// block them from being deleted": the operator that removes them is gone; "Finalizers can be
// removed by editing the resources" (or the operator reinstalled to finish the teardown).
// Knative Serving's own controller, which the operator had installed, still runs, and has no
// business with operator.knative.dev's finalizers.
//
// Modelled on the knative-operator Helm chart v1.16 (config/charts/knative-operator): its CRDs
// (operator.knative.dev v1beta1), kept after the uninstall, and what the operator had
// installed for KnativeServing in knative-serving (the controller Deployment, its
// ServiceAccount and ClusterRole knative-serving-core with its rules on serving.knative.dev);
// the operator's own Deployment, ServiceAccount and ClusterRoles went with the release. The
// finalizers are the names knative.dev/pkg's generated reconcilers use.
func TestCorpusKnativeOperatorUninstalledByHelm(t *testing.T) {
	replay{
		crds: []crd{
			{group: "operator.knative.dev", kind: "KnativeServing", plural: "knativeservings", namespaced: true, versions: []string{"v1beta1"}},
			{group: "operator.knative.dev", kind: "KnativeEventing", plural: "knativeeventings", namespaced: true, versions: []string{"v1beta1"}},
			{group: "serving.knative.dev", kind: "Service", plural: "services", namespaced: true, versions: []string{"v1"}},
			{group: "serving.knative.dev", kind: "Revision", plural: "revisions", namespaced: true, versions: []string{"v1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: knative-serving
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: controller
  namespace: knative-serving
  labels:
    app.kubernetes.io/component: controller
    app.kubernetes.io/name: knative-serving
    app.kubernetes.io/version: 1.16.0
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: knative-serving-core
  labels:
    app.kubernetes.io/name: knative-serving
    app.kubernetes.io/version: 1.16.0
    serving.knative.dev/controller: "true"
rules:
- apiGroups: [""]
  resources: ["pods", "namespaces", "secrets", "configmaps", "endpoints", "services", "events", "serviceaccounts"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
- apiGroups: ["apps"]
  resources: ["deployments", "deployments/finalizers"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
- apiGroups: ["serving.knative.dev", "autoscaling.internal.knative.dev", "networking.internal.knative.dev"]
  resources: ["*", "*/status", "*/finalizers"]
  verbs: ["get", "list", "create", "update", "delete", "deletecollection", "patch", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: knative-serving-controller-admin
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: knative-serving-core
subjects:
- kind: ServiceAccount
  name: controller
  namespace: knative-serving
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: controller
  namespace: knative-serving
  labels:
    app.kubernetes.io/component: controller
    app.kubernetes.io/name: knative-serving
    app.kubernetes.io/version: 1.16.0
spec:
  replicas: 1
  selector:
    matchLabels:
      app: controller
  template:
    metadata:
      labels:
        app: controller
        app.kubernetes.io/component: controller
        app.kubernetes.io/name: knative-serving
    spec:
      serviceAccountName: controller
      containers:
      - name: controller
        image: gcr.io/knative-releases/knative.dev/serving/cmd/controller:v1.16.0
`,
		objects: `
apiVersion: operator.knative.dev/v1beta1
kind: KnativeServing
metadata:
  name: knative-serving
  namespace: knative-serving
  finalizers:
  - knativeservings.operator.knative.dev
spec:
  ingress:
    kourier:
      enabled: true
status:
  version: 1.16.0
---
apiVersion: v1
kind: Namespace
metadata:
  name: knative-eventing
---
apiVersion: operator.knative.dev/v1beta1
kind: KnativeEventing
metadata:
  name: knative-eventing
  namespace: knative-eventing
  finalizers:
  - knativeeventings.operator.knative.dev
status:
  version: 1.16.0
`,
		deletes: []string{"KnativeServing/knative-serving/knative-serving", "KnativeEventing/knative-eventing/knative-eventing"},
	}.run(t)

	for ref, fin := range map[string]string{
		"knativeservings.operator.knative.dev/knative-serving -n knative-serving":    "knativeservings.operator.knative.dev",
		"knativeeventings.operator.knative.dev/knative-eventing -n knative-eventing": "knativeeventings.operator.knative.dev",
	} {
		args := []string{"knativeservings.operator.knative.dev", "knative-serving", "-n", "knative-serving"}
		if fin == "knativeeventings.operator.knative.dev" {
			args = []string{"knativeeventings.operator.knative.dev", "knative-eventing", "-n", "knative-eventing"}
		}
		d := diagnose(t, args...)
		d.exit(1, "STUCK")
		f := d.finalizer(ref, fin)
		d.verdict(f, controllerAbsent)
		d.noRunningRemover(f)
		d.notRemover(f, "deployments.apps/controller -n knative-serving")
		d.offers(f, reinstall, stripFinalizer)
	}
}
