package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/Kong/kong-operator/issues/2629 ("`KongPlugin`s hang in deletion"):
// a KongPlugin used by a KongPluginBinding carries gateway.konghq.com/plugin-in-use, which the
// operator keeps while a binding refers to the plugin ("It avoids that KongPlugins get deleted
// when KongPluginBindings are still referencing them"). Deleting the KongPlugin: "The deletion
// hangs because of the finalizer (expected)". The way out is to delete (or repoint) the
// KongPluginBinding whose spec.pluginRef names the plugin; the operator then removes the
// finalizer (the issue itself is about a bug in that second step, fixed by
// https://github.com/Kong/kong-operator/pull/2637). Removing the finalizer by hand would leave
// the binding pointing at a plugin that no longer exists.
//
// Modelled on the kong-operator Helm chart (charts/kong-operator, 2.0): namespace kong-system,
// the ServiceAccount, ClusterRole (rules abbreviated to the groups that bear on the case) and
// binding, the Deployment with the chart's labels and image; the CRDs of
// configuration.konghq.com and konnect.konghq.com the report uses. The replay is the state the
// report describes after step 2: the KongPlugin deleted, the binding still there. The webhooks
// are left out: the replay's pods answer no requests.
func TestCorpusKongPluginHeldByBinding(t *testing.T) {
	chart := map[string]string{"app.kubernetes.io/name": "kong-operator", "app.kubernetes.io/instance": "kong-operator", "app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "kong-operator-1.0.0"}
	replay{
		crds: []crd{
			{group: "configuration.konghq.com", kind: "KongPlugin", plural: "kongplugins", namespaced: true, versions: []string{"v1"}, labels: chart},
			{group: "configuration.konghq.com", kind: "KongPluginBinding", plural: "kongpluginbindings", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
			{group: "configuration.konghq.com", kind: "KongService", plural: "kongservices", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
			{group: "configuration.konghq.com", kind: "KongRoute", plural: "kongroutes", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
			{group: "konnect.konghq.com", kind: "KonnectGatewayControlPlane", plural: "konnectgatewaycontrolplanes", namespaced: true, versions: []string{"v1alpha2", "v1alpha1"}, labels: chart},
			{group: "konnect.konghq.com", kind: "KonnectAPIAuthConfiguration", plural: "konnectapiauthconfigurations", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: kong-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kong-operator-controller-manager
  namespace: kong-system
  labels:
    app.kubernetes.io/name: kong-operator
    app.kubernetes.io/instance: kong-operator
    helm.sh/chart: kong-operator-1.0.0
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kong-operator-manager-role
  labels:
    app.kubernetes.io/name: kong-operator
    app.kubernetes.io/instance: kong-operator
    helm.sh/chart: kong-operator-1.0.0
rules:
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: [""]
  resources: ["secrets", "services", "configmaps"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["configuration.konghq.com"]
  resources: ["kongplugins", "kongplugins/status", "kongplugins/finalizers", "kongpluginbindings", "kongpluginbindings/status", "kongpluginbindings/finalizers", "kongservices", "kongservices/status", "kongservices/finalizers", "kongroutes", "kongroutes/status", "kongroutes/finalizers"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["konnect.konghq.com"]
  resources: ["konnectgatewaycontrolplanes", "konnectgatewaycontrolplanes/status", "konnectgatewaycontrolplanes/finalizers", "konnectapiauthconfigurations", "konnectapiauthconfigurations/status", "konnectapiauthconfigurations/finalizers"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["gateway.networking.k8s.io"]
  resources: ["gateways", "gateways/status", "gatewayclasses", "gatewayclasses/status", "httproutes", "httproutes/status"]
  verbs: ["get", "list", "watch", "update", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kong-operator-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: kong-operator-manager-role
subjects:
- kind: ServiceAccount
  name: kong-operator-controller-manager
  namespace: kong-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kong-operator-controller-manager
  namespace: kong-system
  labels:
    app.kubernetes.io/name: kong-operator
    app.kubernetes.io/instance: kong-operator
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: kong-operator-1.0.0
    control-plane: controller-manager
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: kong-operator
      app.kubernetes.io/instance: kong-operator
  template:
    metadata:
      labels:
        app.kubernetes.io/name: kong-operator
        app.kubernetes.io/instance: kong-operator
        control-plane: controller-manager
    spec:
      serviceAccountName: kong-operator-controller-manager
      containers:
      - name: manager
        image: kong/kong-operator:2.0.5
        args: ["--health-probe-bind-address=:8081", "--metrics-bind-address=0.0.0.0:8080", "--leader-elect"]
        env:
        - name: GATEWAY_OPERATOR_ENABLE_CONTROLLER_KONNECT
          value: "true"
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: httpbin
---
apiVersion: konnect.konghq.com/v1alpha1
kind: KonnectAPIAuthConfiguration
metadata:
  name: konnect-api-auth
  namespace: httpbin
spec:
  type: secretRef
  secretRef:
    name: konnect-pat
  serverURL: eu.api.konghq.com
---
apiVersion: konnect.konghq.com/v1alpha2
kind: KonnectGatewayControlPlane
metadata:
  name: cp-test
  namespace: httpbin
  finalizers:
  - konnect.konghq.com/delete
spec:
  createControlPlaneRequest:
    name: cp-test
  konnect:
    authRef:
      name: konnect-api-auth
status:
  id: 6f2f8e3c-4b7a-4d2e-9a1f-0c8b5e7d3a21
  conditions:
  - type: Programmed
    status: "True"
    reason: Programmed
    message: ""
    lastTransitionTime: "2025-11-17T09:02:11Z"
---
apiVersion: configuration.konghq.com/v1alpha1
kind: KongService
metadata:
  name: httpbin-k8s-managed-service
  namespace: httpbin
  finalizers:
  - konnect.konghq.com/delete
spec:
  host: httpbin.httpbin.svc.cluster.local
  port: 80
  controlPlaneRef:
    type: konnectNamespacedRef
    konnectNamespacedRef:
      name: cp-test
---
apiVersion: configuration.konghq.com/v1alpha1
kind: KongRoute
metadata:
  name: httpbin-k8s-managed-route
  namespace: httpbin
  finalizers:
  - konnect.konghq.com/delete
spec:
  paths: ["/httpbin"]
  serviceRef:
    type: namespacedRef
    namespacedRef:
      name: httpbin-k8s-managed-service
---
apiVersion: configuration.konghq.com/v1
kind: KongPlugin
metadata:
  name: key-auth-kgo
  namespace: httpbin
  annotations:
    kubernetes.io/ingress.class: kong
  finalizers:
  - gateway.konghq.com/plugin-in-use
plugin: key-auth
---
apiVersion: configuration.konghq.com/v1alpha1
kind: KongPluginBinding
metadata:
  name: httpbin-key-auth-kgo
  namespace: httpbin
  finalizers:
  - konnect.konghq.com/delete
spec:
  pluginRef:
    kind: KongPlugin
    name: key-auth-kgo
  targets:
    routeRef:
      group: configuration.konghq.com
      kind: KongRoute
      name: httpbin-k8s-managed-route
  controlPlaneRef:
    type: konnectNamespacedRef
    konnectNamespacedRef:
      name: cp-test
status:
  konnect:
    id: 0d3c9a7e-1f5b-4e8a-b2c6-7a9d4e3f1b08
  conditions:
  - type: Programmed
    status: "True"
    reason: Programmed
    message: ""
    lastTransitionTime: "2025-11-17T09:03:40Z"
`,
		deletes: []string{"KongPlugin/httpbin/key-auth-kgo"},
	}.run(t)

	d := diagnoseAfter(t, 15*time.Minute, "kongplugins.configuration.konghq.com", "key-auth-kgo", "-n", "httpbin")
	d.exit(1, "STUCK")
	f := d.finalizer("kongplugins.configuration.konghq.com/key-auth-kgo -n httpbin", "gateway.konghq.com/plugin-in-use")
	// The operator runs and holds the finalizer on purpose: the binding that refers to the
	// plugin is the blocker, and deleting or repointing it is the fix; never a strip.
	d.verdict(f, blockedByObjects)
	d.blocker(f, "kongpluginbindings.configuration.konghq.com/httpbin-key-auth-kgo -n httpbin")
	d.never(f, stripFinalizer, reinstall)
}
