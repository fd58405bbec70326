package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/fluxcd/flagger/issues/1357 ("RevertOnDeletion prevents helm
// uninstall from working correctly"): an application chart ships a Deployment and the Canary
// that targets it, with revertOnDeletion: true. `helm uninstall` deletes the Deployment and the
// Canary together; Flagger's finalizer finalizer.flagger.app, which reverts what Flagger changed
// on the target (scales it back up, restores the Service) before it goes, cannot finish: the
// target Deployment its spec.targetRef names no longer exists, so every attempt fails and the
// Canary stays Terminating. "Flagger will never delete the original deployment object ... any
// time that the original deployment doesn't exist would be due to an external action." Flagger
// runs and keeps retrying; there is nothing left to revert, so the way out is to remove that
// finalizer by hand (or recreate the Deployment so the revert can run, then delete both).
//
// Modelled on Flagger's Helm chart (charts/flagger, v1.29): namespace flagger-system, the
// ServiceAccount flagger, ClusterRole flagger (its rules abbreviated to the groups that bear on
// the case) and binding, the Deployment flagger with the chart's labels and image; the CRDs of
// flagger.app. The application's Deployment is gone (helm deleted it); the Canary is as the
// reporter's chart left it.
func TestCorpusFlaggerCanaryOfDeletedTarget(t *testing.T) {
	chart := map[string]string{"app.kubernetes.io/name": "flagger", "app.kubernetes.io/instance": "flagger", "app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "flagger-1.29.0"}
	replay{
		crds: []crd{
			{group: "flagger.app", kind: "Canary", plural: "canaries", namespaced: true, versions: []string{"v1beta1"}, labels: chart},
			{group: "flagger.app", kind: "MetricTemplate", plural: "metrictemplates", namespaced: true, versions: []string{"v1beta1"}, labels: chart},
			{group: "flagger.app", kind: "AlertProvider", plural: "alertproviders", namespaced: true, versions: []string{"v1beta1"}, labels: chart},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: flagger-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: flagger
  namespace: flagger-system
  labels:
    app.kubernetes.io/name: flagger
    app.kubernetes.io/instance: flagger
    helm.sh/chart: flagger-1.29.0
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: flagger
  labels:
    app.kubernetes.io/name: flagger
    app.kubernetes.io/instance: flagger
    helm.sh/chart: flagger-1.29.0
rules:
- apiGroups: [""]
  resources: ["events", "configmaps", "configmaps/finalizers", "secrets", "secrets/finalizers", "services", "services/finalizers"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["apps"]
  resources: ["daemonsets", "daemonsets/finalizers", "deployments", "deployments/finalizers"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["autoscaling"]
  resources: ["horizontalpodautoscalers", "horizontalpodautoscalers/finalizers"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["networking.k8s.io"]
  resources: ["ingresses", "ingresses/status"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["flagger.app"]
  resources: ["canaries", "canaries/status", "canaries/finalizers", "metrictemplates", "metrictemplates/status", "alertproviders", "alertproviders/status"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["networking.istio.io"]
  resources: ["virtualservices", "virtualservices/finalizers", "destinationrules", "destinationrules/finalizers"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- nonResourceURLs: ["/version"]
  verbs: ["get"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: flagger
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: flagger
subjects:
- kind: ServiceAccount
  name: flagger
  namespace: flagger-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: flagger
  namespace: flagger-system
  labels:
    app.kubernetes.io/name: flagger
    app.kubernetes.io/instance: flagger
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: flagger-1.29.0
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: flagger
      app.kubernetes.io/instance: flagger
  template:
    metadata:
      labels:
        app.kubernetes.io/name: flagger
        app.kubernetes.io/instance: flagger
    spec:
      serviceAccountName: flagger
      containers:
      - name: flagger
        image: ghcr.io/fluxcd/flagger:1.29.0
        command: ["./flagger", "-log-level=info", "-mesh-provider=istio", "-metrics-server=http://prometheus:9090", "-enable-leader-election=true", "-leader-election-namespace=flagger-system"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: payments
---
apiVersion: flagger.app/v1beta1
kind: Canary
metadata:
  name: checkout-api
  namespace: payments
  labels:
    app.kubernetes.io/name: checkout-api
    app.kubernetes.io/instance: checkout-api
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: checkout-api-3.4.1
  finalizers:
  - finalizer.flagger.app
spec:
  revertOnDeletion: true
  provider: istio
  targetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: checkout-api
  autoscalerRef:
    apiVersion: autoscaling/v2
    kind: HorizontalPodAutoscaler
    name: checkout-api
  progressDeadlineSeconds: 600
  service:
    port: 8080
    targetPort: 8080
  analysis:
    interval: 1m
    threshold: 5
    maxWeight: 50
    stepWeight: 10
status:
  phase: Succeeded
  canaryWeight: 0
  failedChecks: 0
  iterations: 0
  lastAppliedSpec: 5d7f8c6b9
  conditions:
  - type: Promoted
    status: "True"
    reason: Succeeded
    message: Canary analysis completed successfully, promotion finished.
    lastUpdateTime: "2023-02-10T09:12:44Z"
    lastTransitionTime: "2023-02-10T09:12:44Z"
`,
		deletes: []string{"Canary/payments/checkout-api"},
	}.run(t)

	d := diagnoseAfter(t, 2*time.Hour, "canaries.flagger.app", "checkout-api", "-n", "payments")
	d.exit(1, "STUCK")
	f := d.finalizer("canaries.flagger.app/checkout-api -n payments", "finalizer.flagger.app")
	d.remover(f, "deployments.apps/flagger -n flagger-system", true)
	// What the revert needs, the target its spec.targetRef names, does not exist: it is named,
	// and since there is nothing left to revert, removing the finalizer is the way out, not the
	// controller's logs, nor a reinstall of a controller that runs.
	d.names(f, "deployments.apps/checkout-api -n payments")
	d.offers(f, stripFinalizer)
	d.notFirstFix(f, readLogs)
	d.never(f, reinstall, restoreController)
}
