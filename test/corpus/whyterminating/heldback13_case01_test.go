package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/kgateway-dev/kgateway/issues/6543 ("gloo validation hook rejects
// upstream deletion because linked service is already gone"): Gloo Edge 1.10 on Kubernetes 1.21.
// A namespace held a Service and a Gloo Upstream (gloo.solo.io) that refers to it; the namespace
// was deleted. The namespace controller deleted the Service, then every DELETE of the Upstream was
// refused by Gloo's own validating webhook (gloo.gloo-system.svc), "complaining that the service
// on which it depends was missing": the namespace hangs in Terminating with the Upstream left. The
// reporter expected the DELETE to be allowed when what it refers to is gone; the maintainers fixed
// the validation of deletions (kgateway#9392, "validation rejects kube US deletion"). The way out
// until then: set the validating webhook aside (its configuration deleted, or validation told to
// accept), let the namespace controller finish, and apply it again.
//
// Modelled on the gloo chart 1.10 (namespace gloo-system): the ServiceAccounts gloo, discovery
// and gateway-proxy, the ClusterRoles the chart gives gloo and discovery on gloo.solo.io and
// gateway.solo.io (abbreviated to upstreams and the resources that bear on them) with their
// bindings, the Deployments gloo (the controller that serves the validation webhook on its
// Service gloo, port 443), discovery and gateway-proxy, running; the
// ValidatingWebhookConfiguration gloo-gateway-validation-webhook-gloo-system, which validates
// CREATE, UPDATE and DELETE of gateway.solo.io and gloo.solo.io resources. The replay's pods
// answer no requests: the webhook's call fails instead of being answered "denied", and
// failurePolicy Fail (the reporter's strict validation) makes that failure refuse the DELETE
// as the real answer did. The CRDs of gloo.solo.io and gateway.solo.io, with the chart's labels.
// The user's namespace team-a with the Service petstore (deleted with the namespace's content) and
// the Upstream team-a-petstore-8080 that names it, Accepted.
func TestCorpusGlooUpstreamWhoseDeleteTheValidationWebhookDenies(t *testing.T) {
	lbl := map[string]string{"app": "gloo", "app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "gloo-1.10.0"}
	gl := func(group, kind, plural string) crd {
		return crd{group: group, kind: kind, plural: plural, namespaced: true, versions: []string{"v1"}, labels: lbl}
	}
	chart := `{app: gloo, app.kubernetes.io/managed-by: Helm, helm.sh/chart: gloo-1.10.0}`
	replay{
		crds: []crd{
			gl("gloo.solo.io", "Upstream", "upstreams"),
			gl("gloo.solo.io", "UpstreamGroup", "upstreamgroups"),
			gl("gloo.solo.io", "Settings", "settings"),
			gl("gloo.solo.io", "Proxy", "proxies"),
			gl("gateway.solo.io", "Gateway", "gateways"),
			gl("gateway.solo.io", "VirtualService", "virtualservices"),
			gl("gateway.solo.io", "RouteTable", "routetables"),
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: gloo-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: gloo
  namespace: gloo-system
  labels: ` + chart + `
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: discovery
  namespace: gloo-system
  labels: ` + chart + `
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: gateway-proxy
  namespace: gloo-system
  labels: ` + chart + `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: gloo-resource-reader-gloo-system
  labels: ` + chart + `
rules:
- apiGroups: ["gloo.solo.io"]
  resources: ["upstreams", "upstreamgroups", "proxies"]
  verbs: ["get", "list", "watch", "update"]
- apiGroups: ["gloo.solo.io"]
  resources: ["settings"]
  verbs: ["get", "list", "watch", "create"]
- apiGroups: ["gateway.solo.io"]
  resources: ["gateways", "virtualservices", "routetables"]
  verbs: ["get", "list", "watch", "update"]
- apiGroups: [""]
  resources: ["pods", "services", "secrets", "endpoints", "configmaps", "namespaces"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: gloo-resource-reader-binding-gloo-system
  labels: ` + chart + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: gloo-resource-reader-gloo-system
subjects:
- kind: ServiceAccount
  name: gloo
  namespace: gloo-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: gloo-upstream-mutator-gloo-system
  labels: ` + chart + `
rules:
- apiGroups: ["gloo.solo.io"]
  resources: ["upstreams"]
  verbs: ["get", "list", "watch", "create", "update", "delete"]
- apiGroups: [""]
  resources: ["pods", "services", "endpoints", "namespaces"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: gloo-upstream-mutator-binding-gloo-system
  labels: ` + chart + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: gloo-upstream-mutator-gloo-system
subjects:
- kind: ServiceAccount
  name: discovery
  namespace: gloo-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: gloo
  namespace: gloo-system
  labels: {app: gloo, gloo: gloo, app.kubernetes.io/managed-by: Helm, helm.sh/chart: gloo-1.10.0}
spec:
  replicas: 1
  selector:
    matchLabels: {gloo: gloo}
  template:
    metadata:
      labels: {gloo: gloo}
    spec:
      serviceAccountName: gloo
      containers:
      - name: gloo
        image: quay.io/solo-io/gloo:1.10.0
        ports:
        - {containerPort: 9977, name: grpc-xds}
        - {containerPort: 8443, name: https}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: discovery
  namespace: gloo-system
  labels: {app: gloo, gloo: discovery, app.kubernetes.io/managed-by: Helm, helm.sh/chart: gloo-1.10.0}
spec:
  replicas: 1
  selector:
    matchLabels: {gloo: discovery}
  template:
    metadata:
      labels: {gloo: discovery}
    spec:
      serviceAccountName: discovery
      containers:
      - name: discovery
        image: quay.io/solo-io/discovery:1.10.0
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: gateway-proxy
  namespace: gloo-system
  labels: {app: gloo, gloo: gateway-proxy, gateway-proxy-id: gateway-proxy, app.kubernetes.io/managed-by: Helm, helm.sh/chart: gloo-1.10.0}
spec:
  replicas: 1
  selector:
    matchLabels: {gloo: gateway-proxy, gateway-proxy-id: gateway-proxy}
  template:
    metadata:
      labels: {gloo: gateway-proxy, gateway-proxy-id: gateway-proxy}
    spec:
      serviceAccountName: gateway-proxy
      containers:
      - name: gateway-proxy
        image: quay.io/solo-io/gloo-envoy-wrapper:1.10.0
---
apiVersion: v1
kind: Service
metadata:
  name: gloo
  namespace: gloo-system
  labels: {app: gloo, gloo: gloo}
spec:
  selector: {gloo: gloo}
  ports:
  - {name: grpc-xds, port: 9977, protocol: TCP}
  - {name: https, port: 443, targetPort: 8443, protocol: TCP}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: gloo-gateway-validation-webhook-gloo-system
  labels: {app: gloo, gloo: gateway, app.kubernetes.io/managed-by: Helm, helm.sh/chart: gloo-1.10.0}
webhooks:
- name: gloo.gloo-system.svc
  admissionReviewVersions: ["v1beta1"]
  sideEffects: None
  failurePolicy: Fail
  timeoutSeconds: 10
  clientConfig:
    service:
      name: gloo
      namespace: gloo-system
      path: /validation
      port: 443
  rules:
  - apiGroups: ["gateway.solo.io"]
    apiVersions: ["*"]
    operations: ["CREATE", "UPDATE", "DELETE"]
    resources: ["*"]
  - apiGroups: ["gloo.solo.io"]
    apiVersions: ["*"]
    operations: ["CREATE", "UPDATE", "DELETE"]
    resources: ["upstreams"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: team-a
---
apiVersion: v1
kind: Service
metadata:
  name: petstore
  namespace: team-a
  labels: {app: petstore}
spec:
  selector: {app: petstore}
  ports:
  - {name: http, port: 8080, protocol: TCP}
---
apiVersion: gloo.solo.io/v1
kind: Upstream
metadata:
  name: team-a-petstore-8080
  namespace: team-a
spec:
  kube:
    serviceName: petstore
    serviceNamespace: team-a
    servicePort: 8080
status:
  statuses:
    gloo-system:
      reportedBy: gloo
      state: 1
`,
		deletes: []string{"Namespace//team-a"},
	}.run(t)

	// "watch the delete hang": found a while later.
	d := diagnoseAfter(t, time.Hour, "namespace", "team-a")
	d.exit(1, "STUCK")
	f := d.finalizer("namespaces/team-a", "kubernetes")
	// Gloo's own running validation webhook refuses the Upstream's DELETE: it is the blocker, and
	// the way out is to set it aside (then apply it again), not to reinstall anything.
	d.blocker(f, "validatingwebhookconfigurations.admissionregistration.k8s.io/gloo-gateway-validation-webhook-gloo-system")
	d.names(f, "upstreams.gloo.solo.io/team-a-petstore-8080 -n team-a")
	d.offers(f, deleteWebhookConfig)
	d.never(f, reinstall, restoreController)
}
