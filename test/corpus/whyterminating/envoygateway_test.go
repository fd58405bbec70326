package whyterminating_test

import "testing"

// Report: https://github.com/envoyproxy/gateway/issues/1362 ("finalizers on gatewayclass is
// not clean"): after `helm install eg ...`, the quickstart, and `helm uninstall eg`, the
// GatewayClass eg keeps gateway-exists-finalizer.gateway.networking.k8s.io, which only Envoy
// Gateway's controller (now uninstalled) removes, and its Gateway eg still uses it; deleting the
// class hangs. The maintainers' answer: delete the Gateways before uninstalling Envoy Gateway;
// with the controller gone, nothing removes the finalizer any more.
//
// Modelled on the gateway-helm chart v0.4.0 (envoyproxy/gateway charts/gateway-helm): its
// crds/ (the Gateway API CRDs and gateway.envoyproxy.io's), which `helm uninstall` keeps, and
// the namespace envoy-gateway-system it was installed into; the Deployment envoy-gateway, its
// ServiceAccount and ClusterRole went with the release. The objects are
// examples/kubernetes/quickstart.yaml's.
func TestCorpusEnvoyGatewayUninstalledBeforeItsGatewayClass(t *testing.T) {
	gw := map[string]string{"api-approved.kubernetes.io": "https://github.com/kubernetes-sigs/gateway-api/pull/1538",
		"gateway.networking.k8s.io/bundle-version": "v0.6.2", "gateway.networking.k8s.io/channel": "experimental"}
	replay{
		crds: []crd{
			{group: "gateway.networking.k8s.io", kind: "GatewayClass", plural: "gatewayclasses", versions: []string{"v1beta1", "v1alpha2"}, annotations: gw},
			{group: "gateway.networking.k8s.io", kind: "Gateway", plural: "gateways", namespaced: true, versions: []string{"v1beta1", "v1alpha2"}, annotations: gw},
			{group: "gateway.networking.k8s.io", kind: "HTTPRoute", plural: "httproutes", namespaced: true, versions: []string{"v1beta1", "v1alpha2"}, annotations: gw},
			{group: "gateway.envoyproxy.io", kind: "EnvoyProxy", plural: "envoyproxies", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "gateway.envoyproxy.io", kind: "AuthenticationFilter", plural: "authenticationfilters", namespaced: true, versions: []string{"v1alpha1"}},
		},
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: envoy-gateway-system
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: GatewayClass
metadata:
  name: eg
  finalizers:
  - gateway-exists-finalizer.gateway.networking.k8s.io
spec:
  controllerName: gateway.envoyproxy.io/gatewayclass-controller
status:
  conditions:
  - type: Accepted
    status: "True"
    reason: Accepted
    message: Valid GatewayClass
    lastTransitionTime: "2023-04-25T06:32:39Z"
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: Gateway
metadata:
  name: eg
  namespace: default
spec:
  gatewayClassName: eg
  listeners:
  - name: http
    protocol: HTTP
    port: 80
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: HTTPRoute
metadata:
  name: backend
  namespace: default
spec:
  parentRefs:
  - name: eg
  hostnames: ["www.example.com"]
  rules:
  - backendRefs:
    - name: backend
      port: 3000
`,
		deletes: []string{"GatewayClass//eg"},
	}.run(t)

	d := diagnose(t, "gatewayclasses.gateway.networking.k8s.io", "eg")
	d.exit(1, "STUCK")
	f := d.finalizer("gatewayclasses.gateway.networking.k8s.io/eg", "gateway-exists-finalizer.gateway.networking.k8s.io")
	d.verdict(f, controllerAbsent, blockedByObjects)
	d.noRunningRemover(f)
	d.offers(f, reinstall, stripFinalizer)
}
