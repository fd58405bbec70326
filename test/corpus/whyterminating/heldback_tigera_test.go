package whyterminating_test

import "testing"

// Report: https://github.com/tigera/operator/pull/5292 ("Recover a GatewayClass wedged in
// Terminating"): deleting the GatewayAPI resource marks the GatewayClass for deletion (the
// operator is its controller owner); "Envoy Gateway's gateway-exists-finalizer blocks that
// delete while any Gateway still uses the class, so it never finishes". Envoy Gateway runs and
// keeps managing the class; what holds it is the Gateways that use it (spec.gatewayClassName).
// Removing or repointing them releases the class; stripping the finalizer, as the PR does,
// leaves those Gateways without a class.
//
// Modelled on the Tigera operator's Gateway API support (pkg/render/gateway_api.go: namespace
// tigera-gateway, the Envoy Gateway Deployment, ServiceAccount and ClusterRole with its rules on
// gateway.networking.k8s.io, the GatewayClass it owns) and its own Deployment in
// tigera-operator; the Gateway API CRDs with their approval annotation.
func TestCorpusTigeraGatewayClassHeldByGateways(t *testing.T) {
	gw := map[string]string{"api-approved.kubernetes.io": "https://github.com/kubernetes-sigs/gateway-api/pull/3328",
		"gateway.networking.k8s.io/bundle-version": "v1.2.1", "gateway.networking.k8s.io/channel": "standard"}
	replay{
		crds: []crd{
			{group: "gateway.networking.k8s.io", kind: "GatewayClass", plural: "gatewayclasses", versions: []string{"v1", "v1beta1"}, annotations: gw},
			{group: "gateway.networking.k8s.io", kind: "Gateway", plural: "gateways", namespaced: true, versions: []string{"v1", "v1beta1"}, annotations: gw},
			{group: "gateway.networking.k8s.io", kind: "HTTPRoute", plural: "httproutes", namespaced: true, versions: []string{"v1", "v1beta1"}, annotations: gw},
			{group: "gateway.envoyproxy.io", kind: "EnvoyProxy", plural: "envoyproxies", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "operator.tigera.io", kind: "GatewayAPI", plural: "gatewayapis", versions: []string{"v1"}},
			{group: "operator.tigera.io", kind: "Installation", plural: "installations", versions: []string{"v1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: tigera-operator
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: tigera-operator
  namespace: tigera-operator
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: tigera-operator
rules:
- apiGroups: ["operator.tigera.io"]
  resources: ["*"]
  verbs: ["create", "get", "list", "update", "patch", "delete", "watch"]
- apiGroups: ["gateway.networking.k8s.io"]
  resources: ["gatewayclasses"]
  verbs: ["create", "get", "list", "update", "patch", "delete", "watch"]
- apiGroups: ["apps"]
  resources: ["deployments", "daemonsets"]
  verbs: ["create", "get", "list", "update", "patch", "delete", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: tigera-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: tigera-operator
subjects:
- kind: ServiceAccount
  name: tigera-operator
  namespace: tigera-operator
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: tigera-operator
  namespace: tigera-operator
  labels:
    k8s-app: tigera-operator
spec:
  replicas: 1
  selector:
    matchLabels:
      name: tigera-operator
  template:
    metadata:
      labels:
        name: tigera-operator
        k8s-app: tigera-operator
    spec:
      serviceAccountName: tigera-operator
      containers:
      - name: tigera-operator
        image: quay.io/tigera/operator:v1.40.0
---
apiVersion: v1
kind: Namespace
metadata:
  name: tigera-gateway
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: envoy-gateway
  namespace: tigera-gateway
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: tigera-gateway-api-gateway-helm-envoy-gateway-role
rules:
- apiGroups: ["gateway.networking.k8s.io"]
  resources: ["gatewayclasses", "gateways", "grpcroutes", "httproutes", "referencegrants", "tcproutes", "tlsroutes", "udproutes", "backendtlspolicies"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["gateway.networking.k8s.io"]
  resources: ["gatewayclasses/status", "gateways/status", "grpcroutes/status", "httproutes/status", "tcproutes/status", "tlsroutes/status", "udproutes/status", "backendtlspolicies/status"]
  verbs: ["update"]
- apiGroups: ["gateway.networking.k8s.io"]
  resources: ["gatewayclasses"]
  verbs: ["update", "patch"]
- apiGroups: ["gateway.envoyproxy.io"]
  resources: ["envoyproxies", "envoypatchpolicies", "clienttrafficpolicies", "backendtrafficpolicies", "securitypolicies", "envoyextensionpolicies", "backends", "httproutefilters"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["namespaces", "secrets", "services", "configmaps"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: tigera-gateway-api-gateway-helm-envoy-gateway-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: tigera-gateway-api-gateway-helm-envoy-gateway-role
subjects:
- kind: ServiceAccount
  name: envoy-gateway
  namespace: tigera-gateway
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: envoy-gateway
  namespace: tigera-gateway
  labels:
    app.kubernetes.io/name: gateway-helm
    app.kubernetes.io/instance: tigera-gateway-api
    control-plane: envoy-gateway
spec:
  replicas: 1
  selector:
    matchLabels:
      control-plane: envoy-gateway
      app.kubernetes.io/name: gateway-helm
  template:
    metadata:
      labels:
        control-plane: envoy-gateway
        app.kubernetes.io/name: gateway-helm
        app.kubernetes.io/instance: tigera-gateway-api
    spec:
      serviceAccountName: envoy-gateway
      containers:
      - name: envoy-gateway
        image: quay.io/tigera/envoy-gateway:v1.8.3
`,
		objects: `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: tigera-gateway-class
  finalizers:
  - gateway-exists-finalizer.gateway.networking.k8s.io
spec:
  controllerName: gateway.envoyproxy.io/gatewayclass-controller
  parametersRef:
    group: gateway.envoyproxy.io
    kind: EnvoyProxy
    name: tigera-gateway-class
    namespace: tigera-gateway
status:
  conditions:
  - type: Accepted
    status: "True"
    reason: Accepted
    message: Valid GatewayClass
    lastTransitionTime: "2026-08-30T10:02:11Z"
---
apiVersion: v1
kind: Namespace
metadata:
  name: storefront
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: storefront
  namespace: storefront
spec:
  gatewayClassName: tigera-gateway-class
  listeners:
  - name: http
    protocol: HTTP
    port: 80
`,
		deletes: []string{"GatewayClass//tigera-gateway-class"},
	}.run(t)

	d := diagnose(t, "gatewayclasses.gateway.networking.k8s.io", "tigera-gateway-class")
	d.exit(1, "STUCK")
	f := d.finalizer("gatewayclasses.gateway.networking.k8s.io/tigera-gateway-class", "gateway-exists-finalizer.gateway.networking.k8s.io")
	d.remover(f, "deployments.apps/envoy-gateway -n tigera-gateway", true)
	d.notRemover(f, "deployments.apps/tigera-operator -n tigera-operator")
	d.blocker(f, "gateways.gateway.networking.k8s.io/storefront -n storefront")
	d.notFirstFix(f, stripFinalizer, readLogs)
}
