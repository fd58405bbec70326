package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/TykTechnologies/tyk-docs-hugo/pull/2918 (Tyk Operator's
// "reconciliation troubleshooting" page, written from the operator's users' reports): `kubectl
// delete tykapis httpbin` hangs. The ApiDefinition keeps its finalizer
// finalizers.tyk.io/apidefinition because a SecurityPolicy still grants access to it: the
// operator (running) will not delete an API a policy links, and records why in the object's own
// status (latestTransaction: Failed, "unable to delete api due to security policy
// dependency=default/httpbin"; linked_by_policies: default/httpbin). The page's way out: first
// remove the reference from the SecurityPolicy (edit its access_rights_array, or delete the
// policy), then the ApiDefinition goes. Removing the finalizer by hand would leave the API in the
// Tyk gateway, still granted by the policy. The operator is not to be restarted or reinstalled.
//
// Modelled on the Helm chart tyk-operator 0.15.1 (the operator of the page): in namespace
// tyk-operator-system the ServiceAccount, the ClusterRole tyk-operator-manager-role (every
// tyk.tyk.io resource with its finalizers and status, secrets, configmaps, events, ingresses),
// its binding, the leader-election Role and the Deployment tyk-operator-controller-manager with
// the manager and kube-rbac-proxy containers; the CRDs of tyk.tyk.io, unlabelled, trimmed to the
// kinds the operator of that release serves. The admission webhooks (cert-manager issued) are
// left out: the replay's pods answer no requests, and the page is not about them. The Tyk
// gateway the operator talks to (the tyk-oss chart's Deployment and Service) runs in namespace
// tyk.
func TestCorpusTykApiDefinitionHeldBySecurityPolicy(t *testing.T) {
	tk := func(kind, plural string) crd {
		return crd{group: "tyk.tyk.io", kind: kind, plural: plural, namespaced: true, versions: []string{"v1alpha1"}}
	}
	chart := `{app.kubernetes.io/name: tyk-operator, app.kubernetes.io/instance: tyk-operator, app.kubernetes.io/managed-by: Helm, helm.sh/chart: tyk-operator-0.15.1}`
	replay{
		crds: []crd{
			tk("ApiDefinition", "apidefinitions"),
			tk("SecurityPolicy", "securitypolicies"),
			tk("OperatorContext", "operatorcontexts"),
			tk("APIDescription", "apidescriptions"),
			tk("PortalAPICatalogue", "portalapicatalogues"),
			tk("PortalConfig", "portalconfigs"),
			tk("SubGraph", "subgraphs"),
			tk("SuperGraph", "supergraphs"),
			tk("TykOasApiDefinition", "tykoasapidefinitions"),
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: tyk-operator-system
---
apiVersion: v1
kind: Namespace
metadata:
  name: tyk
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: tyk-operator-controller-manager
  namespace: tyk-operator-system
  labels: ` + chart + `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: tyk-operator-manager-role
  labels: ` + chart + `
rules:
- apiGroups: [""]
  resources: ["configmaps", "secrets"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: ["networking.k8s.io"]
  resources: ["ingresses"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["networking.k8s.io"]
  resources: ["ingresses/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["tyk.tyk.io"]
  resources: ["apidefinitions", "securitypolicies", "operatorcontexts", "apidescriptions", "portalapicatalogues", "portalconfigs", "subgraphs", "supergraphs", "tykoasapidefinitions"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["tyk.tyk.io"]
  resources: ["apidefinitions/finalizers", "securitypolicies/finalizers", "operatorcontexts/finalizers", "apidescriptions/finalizers", "portalapicatalogues/finalizers", "portalconfigs/finalizers", "subgraphs/finalizers", "supergraphs/finalizers", "tykoasapidefinitions/finalizers"]
  verbs: ["update"]
- apiGroups: ["tyk.tyk.io"]
  resources: ["apidefinitions/status", "securitypolicies/status", "operatorcontexts/status", "apidescriptions/status", "portalapicatalogues/status", "portalconfigs/status", "subgraphs/status", "supergraphs/status", "tykoasapidefinitions/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: tyk-operator-manager-rolebinding
  labels: ` + chart + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: tyk-operator-manager-role
subjects:
- kind: ServiceAccount
  name: tyk-operator-controller-manager
  namespace: tyk-operator-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: tyk-operator-leader-election-role
  namespace: tyk-operator-system
  labels: ` + chart + `
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: tyk-operator-leader-election-rolebinding
  namespace: tyk-operator-system
  labels: ` + chart + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: tyk-operator-leader-election-role
subjects:
- kind: ServiceAccount
  name: tyk-operator-controller-manager
  namespace: tyk-operator-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: tyk-operator-controller-manager
  namespace: tyk-operator-system
  labels: {app.kubernetes.io/name: tyk-operator, app.kubernetes.io/instance: tyk-operator, app.kubernetes.io/managed-by: Helm, helm.sh/chart: tyk-operator-0.15.1, control-plane: tyk-operator-controller-manager}
spec:
  replicas: 1
  selector:
    matchLabels: {control-plane: tyk-operator-controller-manager}
  template:
    metadata:
      labels: {control-plane: tyk-operator-controller-manager}
    spec:
      serviceAccountName: tyk-operator-controller-manager
      containers:
      - name: manager
        image: tykio/tyk-operator:v0.15.1
        command: ["/manager"]
        args: ["--metrics-addr=:8080", "--enable-leader-election"]
        envFrom:
        - secretRef:
            name: tyk-operator-conf
      - name: kube-rbac-proxy
        image: gcr.io/kubebuilder/kube-rbac-proxy:v0.8.0
        args: ["--secure-listen-address=0.0.0.0:8443", "--upstream=http://127.0.0.1:8080/", "--logtostderr=true", "--v=10"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: gateway-tyk-oss-tyk-gateway
  namespace: tyk
  labels: {app: gateway-tyk-oss-tyk-gateway, chart: tyk-gateway-1.0.0, release: tyk-oss, heritage: Helm}
spec:
  replicas: 1
  selector:
    matchLabels: {app: gateway-tyk-oss-tyk-gateway, release: tyk-oss}
  template:
    metadata:
      labels: {app: gateway-tyk-oss-tyk-gateway, release: tyk-oss}
    spec:
      containers:
      - name: gateway-tyk-tyk-gateway
        image: docker.tyk.io/tyk-gateway/tyk-gateway:v5.0.2
        ports:
        - containerPort: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: gateway-svc-tyk-oss-tyk-gateway
  namespace: tyk
  labels: {app: gateway-tyk-oss-tyk-gateway, release: tyk-oss}
spec:
  selector: {app: gateway-tyk-oss-tyk-gateway, release: tyk-oss}
  ports:
  - port: 8080
    targetPort: 8080
`,
		objects: `
apiVersion: tyk.tyk.io/v1alpha1
kind: ApiDefinition
metadata:
  name: httpbin
  namespace: default
  finalizers: [finalizers.tyk.io/apidefinition]
spec:
  name: httpbin
  use_keyless: false
  use_standard_auth: true
  protocol: http
  active: true
  proxy:
    target_url: http://httpbin.org
    listen_path: /httpbin
    strip_listen_path: true
status:
  api_id: ZGVmYXVsdC9odHRwYmlu
  latestCRDSpecHash: "9169537376206027578"
  latestTykSpecHash: "14558493065514264307"
  latestTransaction:
    error: unable to delete api due to security policy dependency=default/httpbin
    status: Failed
    time: "2023-07-18T07:26:45Z"
  linked_by_policies:
  - {name: httpbin, namespace: default}
---
apiVersion: tyk.tyk.io/v1alpha1
kind: SecurityPolicy
metadata:
  name: httpbin
  namespace: default
  finalizers: [finalizers.tyk.io/securitypolicy]
spec:
  name: Httpbin Security Policy
  state: active
  active: true
  access_rights_array:
  - name: httpbin
    namespace: default
    versions: [Default]
status:
  pol_id: ZGVmYXVsdC9odHRwYmlu
  linked_apis:
  - {name: httpbin, namespace: default}
`,
		deletes: []string{"ApiDefinition/default/httpbin"},
	}.run(t)

	d := diagnoseAfter(t, 10*time.Minute, "apidefinitions.tyk.tyk.io", "httpbin", "-n", "default")
	d.exit(1, "STUCK")
	ref := "apidefinitions.tyk.tyk.io/httpbin -n default"
	f := d.finalizer(ref, "finalizers.tyk.io/apidefinition")
	d.remover(f, "deployments.apps/tyk-operator-controller-manager -n tyk-operator-system", true)
	d.notRemover(f, "deployments.apps/gateway-tyk-oss-tyk-gateway -n tyk")
	// The operator runs and waits for the SecurityPolicy that still grants access to the API.
	d.verdict(f, blockedByObjects)
	d.blocker(f, "securitypolicies.tyk.tyk.io/httpbin -n default")
	d.notFirstFix(f, stripFinalizer, readLogs)
	d.never(f, reinstall, restoreController)
}
