package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/wso2/api-platform/issues/3323 ("gateway-controller: LlmProxy
// finalizer never removed when internal delete-retry gets 404 (already deleted)"): WSO2 API
// Platform's gateway operator (wso2-gateway-operator) reconciles LlmProxy custom resources
// (gateway.api-platform.wso2.com/v1alpha1) against the management API of the gateway-controller
// of an APIGateway. Deleting an LlmProxy whose configuration is already gone from the gateway
// (the management API answers 404 to the DELETE) never completes: the reconciler retries the
// delete, never counts "already gone" as done, and keeps its finalizer; the object stays
// Terminating, and so does whatever waits for it (OpenChoreo's RenderedRelease that owns it).
// "Reproduced independently five times in one afternoon, always requiring a manual kubectl patch
// ... '{"metadata":{"finalizers":[]}}' to unblock." The report asks for 404 to count as deleted;
// until then removing the finalizer is the way out (nothing is left in the gateway to clean up).
//
// Modelled on the gateway operator's Helm chart (kubernetes/helm/gateway-operator-helm-chart;
// namespace wso2-gateway-operator): the ServiceAccount, the ClusterRole on
// gateway.api-platform.wso2.com (the API kinds with their finalizers and status; abbreviated to
// the ones that bear on the case) with its binding, the Deployment wso2-gateway-operator,
// running; the CRDs of gateway.api-platform.wso2.com; one APIGateway, ai-gateway, with its
// gateway-controller Deployment (the data plane, which answers the management API) running in
// namespace ai-gateway. The LlmProxy of the report with the operator's finalizer
// (gateway.api-platform.wso2.com/llmproxy-finalizer, named as the operator names its kinds'
// finalizers), deployed before.
func TestCorpusWSO2LlmProxyAlreadyGoneFromTheGateway(t *testing.T) {
	wg := func(kind, plural string) crd {
		return crd{group: "gateway.api-platform.wso2.com", kind: kind, plural: plural, namespaced: true, versions: []string{"v1alpha1"},
			labels: map[string]string{"app.kubernetes.io/name": "gateway-operator", "app.kubernetes.io/managed-by": "Helm"}}
	}
	chart := `{app.kubernetes.io/name: gateway-operator, app.kubernetes.io/instance: wso2-gateway-operator, app.kubernetes.io/managed-by: Helm, helm.sh/chart: gateway-operator-1.0.0}`
	replay{
		crds: []crd{
			wg("APIGateway", "apigateways"),
			wg("RestApi", "restapis"),
			wg("LlmProvider", "llmproviders"),
			wg("LlmProviderTemplate", "llmprovidertemplates"),
			wg("LlmProxy", "llmproxies"),
			wg("Mcp", "mcps"),
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: wso2-gateway-operator
---
apiVersion: v1
kind: Namespace
metadata:
  name: ai-gateway
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: wso2-gateway-operator
  namespace: wso2-gateway-operator
  labels: ` + chart + `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: wso2-gateway-operator
  labels: ` + chart + `
rules:
- apiGroups: ["gateway.api-platform.wso2.com"]
  resources: ["apigateways", "restapis", "llmproviders", "llmprovidertemplates", "llmproxies", "mcps"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["gateway.api-platform.wso2.com"]
  resources: ["apigateways/finalizers", "restapis/finalizers", "llmproviders/finalizers", "llmprovidertemplates/finalizers", "llmproxies/finalizers", "mcps/finalizers"]
  verbs: ["update"]
- apiGroups: ["gateway.api-platform.wso2.com"]
  resources: ["apigateways/status", "restapis/status", "llmproviders/status", "llmprovidertemplates/status", "llmproxies/status", "mcps/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["", "apps"]
  resources: ["services", "configmaps", "secrets", "deployments"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: wso2-gateway-operator
  labels: ` + chart + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: wso2-gateway-operator
subjects:
- kind: ServiceAccount
  name: wso2-gateway-operator
  namespace: wso2-gateway-operator
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: wso2-gateway-operator
  namespace: wso2-gateway-operator
  labels: ` + chart + `
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: gateway-operator}
  template:
    metadata:
      labels: {app.kubernetes.io/name: gateway-operator}
    spec:
      serviceAccountName: wso2-gateway-operator
      containers:
      - name: manager
        image: ghcr.io/wso2/api-platform/gateway-operator:1.0.0
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ai-gateway-gateway-controller
  namespace: ai-gateway
  labels: {app.kubernetes.io/name: gateway-controller, app.kubernetes.io/instance: ai-gateway, app.kubernetes.io/part-of: api-platform}
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: gateway-controller, app.kubernetes.io/instance: ai-gateway}
  template:
    metadata:
      labels: {app.kubernetes.io/name: gateway-controller, app.kubernetes.io/instance: ai-gateway}
    spec:
      containers:
      - name: gateway-controller
        image: ghcr.io/wso2/api-platform/gateway-controller:1.0.0
        ports:
        - {containerPort: 9090, name: management}
---
apiVersion: v1
kind: Service
metadata:
  name: ai-gateway-gateway-controller
  namespace: ai-gateway
spec:
  selector: {app.kubernetes.io/name: gateway-controller, app.kubernetes.io/instance: ai-gateway}
  ports:
  - {name: management, port: 9090}
`,
		objects: `
apiVersion: gateway.api-platform.wso2.com/v1alpha1
kind: APIGateway
metadata:
  name: ai-gateway
  namespace: ai-gateway
spec:
  gatewayClassName: wso2-api-platform
status:
  phase: Ready
---
apiVersion: gateway.api-platform.wso2.com/v1alpha1
kind: LlmProxy
metadata:
  name: support-assistant-proxy
  namespace: ai-gateway
  finalizers: [gateway.api-platform.wso2.com/llmproxy-finalizer]
spec:
  displayName: support-assistant
  version: v1.0
  context: /support-assistant
  provider:
    id: openai-provider
status:
  conditions:
  - type: Programmed
    status: "True"
    reason: Deployed
    message: deployed to gateway ai-gateway
    lastTransitionTime: "2026-08-27T13:02:41Z"
`,
		deletes: []string{"LlmProxy/ai-gateway/support-assistant-proxy"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "llmproxies.gateway.api-platform.wso2.com", "support-assistant-proxy", "-n", "ai-gateway")
	d.exit(1, "STUCK")
	f := d.finalizer("llmproxies.gateway.api-platform.wso2.com/support-assistant-proxy -n ai-gateway", "gateway.api-platform.wso2.com/llmproxy-finalizer")
	// The operator runs and retries a delete of what is already gone: it will never finish, and
	// removing the finalizer is the way out (nothing is left in the gateway).
	d.remover(f, "deployments.apps/wso2-gateway-operator -n wso2-gateway-operator", true)
	d.notRemover(f, "deployments.apps/ai-gateway-gateway-controller -n ai-gateway")
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
