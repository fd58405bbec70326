package whyterminating_test

import (
	"testing"
	"time"

	"github.com/kubeforensics/suite/internal/finalizers"
)

// Report: https://github.com/kubernetes-retired/service-catalog/issues/2492 ("Cannot delete
// ClusterServiceBroker/ServiceBroker when wrong auth is specified"; the same hang as #2466, where a
// chart deleted a broker's credentials Secret before the broker): a ServiceBroker whose
// spec.authInfo.basic.secretRef names a Secret that does not exist is never deleted — its
// deletionTimestamp is set and it stays. The maintainer's cause: the controller-manager built the
// broker's client, which reads that Secret, before every action, the delete too, so the delete
// never got past "Error getting broker auth credentials: secrets ... not found" (#2438); the fix
// (PR #2493) builds the client only on add and update. By hand: give the broker its Secret back,
// or remove the finalizer kubernetes-incubator/service-catalog (the controller-manager's own way
// out of a deletion is to remove the broker's classes and plans, then its finalizer; this broker
// never fetched a catalog).
//
// The report's catalog (v0.1.38) served these types from its own aggregated API server, which the
// replay cannot run; the replay uses the install of the release that moved the same group's types
// to CRDs (chart catalog v0.3.0, namespace catalog, release catalog): the Deployment
// catalog-catalog-controller-manager with its ServiceAccount service-catalog-controller-manager
// and ClusterRole servicecatalog.k8s.io:controller-manager (update on servicebrokers, which the
// aggregated server took through the status), the webhook Deployment catalog-catalog-webhook with
// its Service and the broker's mutating and status-validating webhooks (the other kinds' webhooks
// left out); the CRDs of servicecatalog.k8s.io (a protected group: marked unapproved, as a group
// chosen before the policy). The ServiceBroker as the report writes it, Ready False with the
// controller's reason, deleted.
func TestCorpusServiceCatalogBrokerOfAMissingAuthSecret(t *testing.T) {
	svcat := map[string]string{"svcat": "true"}
	approval := map[string]string{"api-approved.kubernetes.io": "unapproved, a group the project chose before the policy"}
	kinds := []struct {
		kind, plural string
		namespaced   bool
	}{
		{"ClusterServiceBroker", "clusterservicebrokers", false}, {"ClusterServiceClass", "clusterserviceclasses", false},
		{"ClusterServicePlan", "clusterserviceplans", false}, {"ServiceBroker", "servicebrokers", true},
		{"ServiceClass", "serviceclasses", true}, {"ServicePlan", "serviceplans", true},
		{"ServiceInstance", "serviceinstances", true}, {"ServiceBinding", "servicebindings", true},
	}
	var crds []crd
	for _, k := range kinds {
		crds = append(crds, crd{group: "servicecatalog.k8s.io", kind: k.kind, plural: k.plural, namespaced: k.namespaced,
			versions: []string{"v1beta1"}, labels: svcat, annotations: approval})
	}
	replay{
		crds: crds,
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: catalog
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: service-catalog-controller-manager
  namespace: catalog
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: service-catalog-webhook
  namespace: catalog
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: servicecatalog.k8s.io:controller-manager
rules:
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch", "update"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "create", "update", "delete", "list", "watch"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "update", "patch", "watch", "delete", "initialize"]
- apiGroups: [""]
  resources: ["namespaces"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["apiextensions.k8s.io"]
  resources: ["customresourcedefinitions"]
  verbs: ["list"]
- apiGroups: ["servicecatalog.k8s.io"]
  resources: ["clusterserviceclasses", "clusterserviceplans", "serviceclasses", "serviceplans"]
  verbs: ["get", "list", "watch", "create", "patch", "update", "delete"]
- apiGroups: ["servicecatalog.k8s.io"]
  resources: ["clusterservicebrokers", "serviceinstances", "servicebrokers"]
  verbs: ["get", "list", "watch", "update"]
- apiGroups: ["servicecatalog.k8s.io"]
  resources: ["servicebindings"]
  verbs: ["get", "list", "watch", "update", "delete"]
- apiGroups: ["servicecatalog.k8s.io"]
  resources: ["clusterservicebrokers/status", "clusterserviceclasses/status", "clusterserviceplans/status", "serviceinstances/status", "servicebindings/status", "servicebrokers/status", "serviceclasses/status", "serviceplans/status"]
  verbs: ["update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: servicecatalog.k8s.io:controller-manager
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: servicecatalog.k8s.io:controller-manager
subjects:
- kind: ServiceAccount
  name: service-catalog-controller-manager
  namespace: catalog
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: servicecatalog.k8s.io:webhook
rules:
- apiGroups: ["apiextensions.k8s.io"]
  resources: ["customresourcedefinitions"]
  verbs: ["list"]
- apiGroups: ["servicecatalog.k8s.io"]
  resources: ["clusterserviceclasses", "clusterserviceplans", "serviceclasses", "serviceplans", "clusterservicebrokers", "servicebrokers"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: servicecatalog.k8s.io:webhook
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: servicecatalog.k8s.io:webhook
subjects:
- kind: ServiceAccount
  name: service-catalog-webhook
  namespace: catalog
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: catalog-catalog-controller-manager
  namespace: catalog
  labels: {app: catalog-catalog, chart: catalog-0.3.0, release: catalog, heritage: Helm}
spec:
  replicas: 1
  selector:
    matchLabels: {app: catalog-catalog-controller-manager}
  template:
    metadata:
      labels: {app: catalog-catalog-controller-manager, chart: catalog-0.3.0, release: catalog, heritage: Helm}
    spec:
      serviceAccountName: service-catalog-controller-manager
      containers:
      - name: controller-manager
        image: quay.io/kubernetes-service-catalog/service-catalog:v0.3.0
        args: ["controller-manager", "--secure-port", "8444", "--cluster-id-configmap-namespace=catalog", "--leader-election-namespace=catalog", "--leader-elect-resource-lock=configmaps", "-v", "10", "--resync-interval", "5m", "--broker-relist-interval", "24h"]
        env:
        - name: K8S_NAMESPACE
          valueFrom: {fieldRef: {fieldPath: metadata.namespace}}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: catalog-catalog-webhook
  namespace: catalog
  labels: {app: catalog-catalog-webhook, chart: catalog-0.3.0, release: catalog, heritage: Helm}
spec:
  replicas: 1
  selector:
    matchLabels: {app: catalog-catalog-webhook}
  template:
    metadata:
      labels: {app: catalog-catalog-webhook, chart: catalog-0.3.0, release: catalog, heritage: Helm}
    spec:
      serviceAccountName: service-catalog-webhook
      containers:
      - name: svr
        image: quay.io/kubernetes-service-catalog/service-catalog:v0.3.0
        args: ["webhook", "--secure-port", "8443", "--healthz-server-bind-port", "8081", "-v", "10"]
        ports:
        - {containerPort: 8443}
---
apiVersion: v1
kind: Service
metadata:
  name: catalog-catalog-webhook
  namespace: catalog
spec:
  selector: {app: catalog-catalog-webhook}
  ports:
  - {name: secure, port: 443, targetPort: 8443, protocol: TCP}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: catalog-catalog-webhook
webhooks:
- name: mutating.servicebrokers.servicecatalog.k8s.io
  admissionReviewVersions: ["v1beta1"]
  sideEffects: None
  clientConfig:
    service: {name: catalog-catalog-webhook, namespace: catalog, path: /mutating-servicebrokers}
  failurePolicy: Fail
  rules:
  - {operations: ["CREATE", "UPDATE"], apiGroups: ["servicecatalog.k8s.io"], apiVersions: ["v1beta1"], resources: ["servicebrokers"]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: catalog-catalog-validating-webhook
webhooks:
- name: validating.status.servicebrokers.servicecatalog.k8s.io
  admissionReviewVersions: ["v1beta1"]
  sideEffects: None
  clientConfig:
    service: {name: catalog-catalog-webhook, namespace: catalog, path: /validating-servicebrokers/status}
  failurePolicy: Fail
  rules:
  - {operations: ["UPDATE"], apiGroups: ["servicecatalog.k8s.io"], apiVersions: ["v1beta1"], resources: ["servicebrokers/status"]}
`,
		objects: `
apiVersion: servicecatalog.k8s.io/v1beta1
kind: ServiceBroker
metadata:
  name: misconfigured-broker
  namespace: default
  finalizers: [kubernetes-incubator/service-catalog]
spec:
  url: http://dummy.com
  relistBehavior: Duration
  relistRequests: 0
  authInfo:
    basic:
      secretRef:
        name: not-existing-creds
status:
  reconciledGeneration: 0
  lastConditionState: ErrorGettingAuthCredentials
  conditions:
  - type: Ready
    status: "False"
    reason: ErrorGettingAuthCredentials
    message: 'Error getting broker auth credentials: secrets "not-existing-creds" not found'
    lastTransitionTime: "2018-11-13T10:12:44Z"
`,
		deletes: []string{"ServiceBroker/default/misconfigured-broker"},
		events: []event{{about: "ServiceBroker/default/misconfigured-broker", typ: "Warning", reason: "ErrorGettingAuthCredentials",
			message: `Error getting broker auth credentials: secrets "not-existing-creds" not found`, component: "service-catalog-controller-manager", count: 37}},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "servicebrokers.servicecatalog.k8s.io", "misconfigured-broker", "-n", "default")
	d.exit(1, "STUCK")
	f := d.finalizer("servicebrokers.servicecatalog.k8s.io/misconfigured-broker -n default", "kubernetes-incubator/service-catalog")
	// The controller-manager runs and removes this finalizer; the webhook server, which may only
	// read brokers, is not its remover.
	d.remover(f, "deployments.apps/catalog-catalog-controller-manager -n catalog", true)
	d.notRemover(f, "deployments.apps/catalog-catalog-webhook -n catalog")
	// What stops it is the Secret spec.authInfo.basic.secretRef names, which does not exist: give
	// it back first; the strip is the other way out.
	d.blocker(f, "secrets/not-existing-creds -n default", finalizers.ReasonMissingObject)
	d.firstFix(f, finalizers.ReasonRestoreMissingObject)
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
