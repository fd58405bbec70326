//go:build corpusopen

// Open (corpusopen): after conditionfailure.go the binding's own failure condition (the DELETE to
// SAP Service Manager answered 401) leads its steps and the false blame on the ServiceInstance
// being deleted (which waits for this very binding) is gone; but the way out the maintainer gave,
// the namespace's credentials Secret s-test-app-sap-btp-service-operator in the management
// namespace sap-btp-operator, is where the operator looks by its own naming convention
// (<namespace>-sap-btp-service-operator), which nothing in the cluster shows once the namespace's
// own Secret is gone. Failure class: credentials found by a product's naming convention.

package whyterminating_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kubeforensics/suite/internal/finalizers"
)

// Report: https://github.com/SAP/sap-btp-service-operator/issues/493 ("Service binding could not
// be deleted"): deleting a namespace with all its resources, the namespace stays Terminating on a
// ServiceBinding that is never deleted; its Secret is gone, the binding is in delete failed with
// "401 unauthorized" ("since the secret is not present, it is not able to present credentials"),
// and the ServiceInstances behind it stay too. A new Secret cannot be created in the namespace
// ("unable to create new content in namespace s-test-app because it is being terminated"). The
// maintainer's way out: "can you create the required secret in the management namespace?" — the
// operator looks for a namespace's access credentials in the Secret sap-btp-service-operator of
// that namespace, then in <namespace>-sap-btp-service-operator of its management namespace, then
// falls back to the cluster's default credentials (another subaccount's, refused with 401). The
// namespace's own Secret went with the namespace; the one in the management namespace is the way
// back. Removing the finalizer instead leaves the binding (and its credentials) in SAP BTP.
//
// Modelled on the chart sapbtp-operator-charts (v0.6): namespace sap-btp-operator (release and
// management namespace), the ServiceAccount sap-btp-operator, the ClusterRole
// sap-btp-operator-manager-role (secrets, serviceinstances and servicebindings with their status)
// and binding, the leader-election Role, the ConfigMap sap-btp-operator-config, the cluster's default
// credentials Secret sap-btp-service-operator, the Deployment sap-btp-operator-controller-manager
// (manager and kube-rbac-proxy), the webhook Service and the mutating and validating webhooks of
// both kinds; the CRDs serviceinstances and servicebindings of services.cloud.sap.com. The
// namespace s-test-app with its instance and binding as the operator left them (finalizers added by
// the manager, the delete failed with 401), then deleted; its credentials Secret is already gone.
func TestCorpusSAPBTPBindingWhoseCredentialsWentWithItsNamespace(t *testing.T) {
	sap := map[string]string{"app.kubernetes.io/name": "sap-btp-operator", "app.kubernetes.io/instance": "sap-btp-operator"}
	replay{
		crds: []crd{
			{group: "services.cloud.sap.com", kind: "ServiceInstance", plural: "serviceinstances", namespaced: true, versions: []string{"v1", "v1alpha1"}, labels: sap},
			{group: "services.cloud.sap.com", kind: "ServiceBinding", plural: "servicebindings", namespaced: true, versions: []string{"v1", "v1alpha1"}, labels: sap},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: sap-btp-operator
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: sap-btp-operator
  namespace: sap-btp-operator
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: sap-btp-operator-manager-role
rules:
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["create", "get", "list", "update"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["services.cloud.sap.com"]
  resources: ["servicebindings", "serviceinstances"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["services.cloud.sap.com"]
  resources: ["servicebindings/status", "serviceinstances/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: sap-btp-operator-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: sap-btp-operator-manager-role
subjects:
- kind: ServiceAccount
  name: sap-btp-operator
  namespace: sap-btp-operator
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: sap-btp-operator-leader-election-role
  namespace: sap-btp-operator
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["configmaps/status"]
  verbs: ["get", "update", "patch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: sap-btp-operator-leader-election-rolebinding
  namespace: sap-btp-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: sap-btp-operator-leader-election-role
subjects:
- kind: ServiceAccount
  name: sap-btp-operator
  namespace: sap-btp-operator
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: sap-btp-operator-config
  namespace: sap-btp-operator
  labels: {services.cloud.sap.com/managed-by-sap-btp-operator: "true"}
data:
  CLUSTER_ID: 6c1f0a52-93d4-4b7e-a0c8-5e2f7d9b1a34
  MANAGEMENT_NAMESPACE: sap-btp-operator
  RELEASE_NAMESPACE: sap-btp-operator
  ENABLE_LIMITED_CACHE: "false"
  ALLOW_CLUSTER_ACCESS: "true"
---
apiVersion: v1
kind: Secret
metadata:
  name: sap-btp-service-operator
  namespace: sap-btp-operator
  labels: {services.cloud.sap.com/managed-by-sap-btp-operator: "true"}
type: Opaque
stringData:
  clientid: sb-3f1d2c4b-platform-subaccount!b1234|service-manager!b1
  clientsecret: example-client-secret
  sm_url: https://service-manager.cfapps.eu10.hana.ondemand.com
  tokenurl: https://platform-subaccount.authentication.eu10.hana.ondemand.com
  tokenurlsuffix: /oauth/token
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: sap-btp-operator-controller-manager
  namespace: sap-btp-operator
  labels: {control-plane: controller-manager, app.kubernetes.io/instance: sap-btp-operator, app.kubernetes.io/name: sap-btp-operator}
spec:
  replicas: 2
  selector:
    matchLabels: {control-plane: controller-manager}
  template:
    metadata:
      labels: {control-plane: controller-manager, app.kubernetes.io/instance: sap-btp-operator, app.kubernetes.io/name: sap-btp-operator}
    spec:
      serviceAccountName: sap-btp-operator
      containers:
      - name: kube-rbac-proxy
        image: quay.io/brancz/kube-rbac-proxy:v0.18.0
        args: ["--secure-listen-address=0.0.0.0:8443", "--upstream=http://127.0.0.1:8080/", "--logtostderr=true", "--v=10"]
        ports:
        - {containerPort: 8443, name: https}
      - name: manager
        image: ghcr.io/sap/sap-btp-service-operator/controller:v0.6.8
        command: ["/manager"]
        args: ["--metrics-addr=127.0.0.1:8080", "--enable-leader-election", "--logger_use_dev_mode=true"]
        envFrom:
        - configMapRef: {name: sap-btp-operator-config}
        - secretRef: {name: sap-btp-operator-clusterid, optional: true}
        ports:
        - {containerPort: 9443, name: webhook-server, protocol: TCP}
---
apiVersion: v1
kind: Service
metadata:
  name: sap-btp-operator-webhook-service
  namespace: sap-btp-operator
spec:
  ports:
  - {name: webhook-server, port: 443, targetPort: webhook-server}
  selector: {control-plane: controller-manager, app.kubernetes.io/instance: sap-btp-operator, app.kubernetes.io/name: sap-btp-operator}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: sap-btp-operator-mutating-webhook-configuration
  annotations: {cert-manager.io/inject-ca-from: sap-btp-operator/sap-btp-operator-serving-cert}
webhooks:
- name: mservicebinding.kb.io
  admissionReviewVersions: ["v1beta1", "v1"]
  clientConfig:
    service: {name: sap-btp-operator-webhook-service, namespace: sap-btp-operator, path: /mutate-services-cloud-sap-com-v1-servicebinding}
  failurePolicy: Fail
  sideEffects: None
  rules:
  - {apiGroups: ["services.cloud.sap.com"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["servicebindings"]}
- name: mserviceinstance.kb.io
  admissionReviewVersions: ["v1beta1", "v1"]
  clientConfig:
    service: {name: sap-btp-operator-webhook-service, namespace: sap-btp-operator, path: /mutate-services-cloud-sap-com-v1-serviceinstance}
  failurePolicy: Fail
  sideEffects: None
  rules:
  - {apiGroups: ["services.cloud.sap.com"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["serviceinstances"]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: sap-btp-operator-validating-webhook-configuration
  annotations: {cert-manager.io/inject-ca-from: sap-btp-operator/sap-btp-operator-serving-cert}
webhooks:
- name: vservicebinding.kb.io
  admissionReviewVersions: ["v1beta1", "v1"]
  clientConfig:
    service: {name: sap-btp-operator-webhook-service, namespace: sap-btp-operator, path: /validate-services-cloud-sap-com-v1-servicebinding}
  failurePolicy: Fail
  sideEffects: None
  rules:
  - {apiGroups: ["services.cloud.sap.com"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["servicebindings"]}
- name: vserviceinstance.kb.io
  admissionReviewVersions: ["v1beta1", "v1"]
  clientConfig:
    service: {name: sap-btp-operator-webhook-service, namespace: sap-btp-operator, path: /validate-services-cloud-sap-com-v1-serviceinstance}
  failurePolicy: Fail
  sideEffects: None
  rules:
  - {apiGroups: ["services.cloud.sap.com"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["serviceinstances"]}
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: s-test-app
---
apiVersion: services.cloud.sap.com/v1
kind: ServiceInstance
metadata:
  name: dsi-test-app-acfun001
  namespace: s-test-app
  finalizers: [services.cloud.sap.com/sap-btp-finalizer]
spec:
  serviceOfferingName: docker-registry
  servicePlanName: standard
  externalName: dsi-test-app-acfun001
status:
  instanceID: 2f7c9d1e-5b3a-4e8f-9c6d-1a2b3c4d5e6f
  subaccountID: 9a1b7c3d-2e4f-4a6b-8c0d-e1f2a3b4c5d6
  ready: "True"
  conditions:
  - {type: Ready, status: "True", reason: Provisioned, message: ServiceInstance provisioned successfully, lastTransitionTime: "2024-12-09T08:14:02Z"}
  - type: Succeeded
    status: "False"
    reason: DeleteFailed
    message: 'ServiceInstance deletion failed: request DELETE https://service-manager.cfapps.eu10.hana.ondemand.com/v1/service_instances/2f7c9d1e-5b3a-4e8f-9c6d-1a2b3c4d5e6f failed: StatusCode: 401 Body: {"error":"Unauthorized","description":"invalid token"}'
    lastTransitionTime: "2024-12-16T09:02:41Z"
  - type: Failed
    status: "True"
    reason: DeleteFailed
    message: 'ServiceInstance deletion failed: request DELETE https://service-manager.cfapps.eu10.hana.ondemand.com/v1/service_instances/2f7c9d1e-5b3a-4e8f-9c6d-1a2b3c4d5e6f failed: StatusCode: 401 Body: {"error":"Unauthorized","description":"invalid token"}'
    lastTransitionTime: "2024-12-16T09:02:41Z"
---
apiVersion: services.cloud.sap.com/v1
kind: ServiceBinding
metadata:
  name: dsi-test-app-acfun001-binding
  namespace: s-test-app
  finalizers: [services.cloud.sap.com/sap-btp-finalizer]
spec:
  serviceInstanceName: dsi-test-app-acfun001
  externalName: dsi-test-app-acfun001-binding
  secretName: dsi-test-app-acfun001-imagepullsecret
status:
  instanceID: 2f7c9d1e-5b3a-4e8f-9c6d-1a2b3c4d5e6f
  bindingID: 8e4d2c1b-7a6f-4b5e-8d9c-0f1e2d3c4b5a
  subaccountID: 9a1b7c3d-2e4f-4a6b-8c0d-e1f2a3b4c5d6
  ready: "True"
  conditions:
  - {type: Ready, status: "True", reason: Provisioned, message: ServiceBinding provisioned successfully, lastTransitionTime: "2024-12-09T08:15:37Z"}
  - type: Succeeded
    status: "False"
    reason: DeleteFailed
    message: 'ServiceBinding deletion failed: request DELETE https://service-manager.cfapps.eu10.hana.ondemand.com/v1/service_bindings/8e4d2c1b-7a6f-4b5e-8d9c-0f1e2d3c4b5a failed: StatusCode: 401 Body: {"error":"Unauthorized","description":"invalid token"}'
    lastTransitionTime: "2024-12-16T09:02:39Z"
  - type: Failed
    status: "True"
    reason: DeleteFailed
    message: 'ServiceBinding deletion failed: request DELETE https://service-manager.cfapps.eu10.hana.ondemand.com/v1/service_bindings/8e4d2c1b-7a6f-4b5e-8d9c-0f1e2d3c4b5a failed: StatusCode: 401 Body: {"error":"Unauthorized","description":"invalid token"}'
    lastTransitionTime: "2024-12-16T09:02:39Z"
`,
		finalizersBy: map[string]string{
			"ServiceInstance/s-test-app/dsi-test-app-acfun001":        "manager",
			"ServiceBinding/s-test-app/dsi-test-app-acfun001-binding": "manager",
		},
		deletes: []string{"Namespace//s-test-app"},
	}.run(t)

	d := diagnoseAfter(t, 2*time.Hour, "namespace", "s-test-app")
	d.exit(1, "STUCK")
	ns := d.finalizer("namespaces/s-test-app", "kubernetes")
	d.notFirstFix(ns, finalizers.ReasonFinalizeNamespace)

	f := d.finalizer("servicebindings.services.cloud.sap.com/dsi-test-app-acfun001-binding -n s-test-app", "services.cloud.sap.com/sap-btp-finalizer")
	// The operator runs and tries; SAP Service Manager refuses its credentials.
	d.remover(f, "deployments.apps/sap-btp-operator-controller-manager -n sap-btp-operator", true)
	d.never(f, reinstall, restoreController)
	said401 := false
	for _, r := range f.Remedies {
		if strings.Contains(r.Summary, "401") {
			said401 = true
		}
	}
	if !said401 {
		t.Errorf("finalizer %s: no step quotes the 401 its own status records (steps %q)", f.Name, remedySummaries(f))
	}
	// The way back is the namespace's credentials where the operator looks next: the management
	// namespace; the strip is not the fix, and it leaves the binding in SAP BTP.
	d.mentions(f, "secrets/s-test-app-sap-btp-service-operator -n sap-btp-operator")
	d.notFirstFix(f, stripFinalizer)
	d.leaves(f, "8e4d2c1b-7a6f-4b5e-8d9c-0f1e2d3c4b5a")
}
