package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/3scale/3scale-operator/pull/731 ("Fix product delete"): "When
// deleting a product CR, the operator started retrying repeatedly without removing the
// finalizers." Two causes, both in the operator: the 3scale API client returned an error on the
// product's deletion although 3scale answered 200 OK, and on the retries 3scale answered 404 Not
// Found for the product already deleted, which the product controller did not take as done. The
// Product stays Terminating while its product in 3scale is gone. The fix treats 404 as done; by
// hand, with the operator as it is, the way out is to remove the finalizer: nothing is left in
// 3scale.
//
// Modelled on the operator's config/ (kustomize, namePrefix threescale-operator-) installed into
// namespace 3scale and watching it: the ServiceAccount 3scale-operator, the Role
// threescale-operator-manager-role (products, backends, tenants ... of capabilities.3scale.net
// with finalizers and status; secrets and configmaps; events) and its binding, the Deployment
// threescale-operator-controller-manager; the CRDs products, backends and tenants of
// capabilities.3scale.net. The provider account Secret threescale-provider-account (token,
// adminURL), and the Product product1 as the operator synchronized it (status.productId, Synced),
// deleted since.
func TestCorpusThreescaleProductDeleteRetriesOnNotFound(t *testing.T) {
	replay{
		crds: []crd{
			{group: "capabilities.3scale.net", kind: "Product", plural: "products", namespaced: true, versions: []string{"v1beta1"}},
			{group: "capabilities.3scale.net", kind: "Backend", plural: "backends", namespaced: true, versions: []string{"v1beta1"}},
			{group: "capabilities.3scale.net", kind: "Tenant", plural: "tenants", namespaced: true, versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: 3scale
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: 3scale-operator
  namespace: 3scale
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: threescale-operator-manager-role
  namespace: 3scale
rules:
- apiGroups: [""]
  resources: ["configmaps", "secrets", "services", "events", "pods"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["capabilities.3scale.net"]
  resources: ["products", "backends", "tenants"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["capabilities.3scale.net"]
  resources: ["products/finalizers", "backends/finalizers", "tenants/finalizers"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["capabilities.3scale.net"]
  resources: ["products/status", "backends/status", "tenants/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["create", "get", "list", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: threescale-operator-manager-rolebinding
  namespace: 3scale
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: threescale-operator-manager-role
subjects:
- kind: ServiceAccount
  name: 3scale-operator
  namespace: 3scale
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: threescale-operator-controller-manager
  namespace: 3scale
  labels: {control-plane: controller-manager}
spec:
  replicas: 1
  selector:
    matchLabels: {control-plane: controller-manager}
  template:
    metadata:
      labels: {control-plane: controller-manager, rht.comp: 3scale, rht.subcomp: 3scale_operator}
    spec:
      serviceAccountName: 3scale-operator
      terminationGracePeriodSeconds: 10
      containers:
      - name: manager
        image: quay.io/3scale/3scale-operator:v0.9.0
        command: ["/manager"]
        args: ["--enable-leader-election"]
        env:
        - name: WATCH_NAMESPACE
          valueFrom: {fieldRef: {fieldPath: metadata.namespace}}
`,
		objects: `
apiVersion: v1
kind: Secret
metadata:
  name: threescale-provider-account
  namespace: 3scale
type: Opaque
stringData:
  token: MY_TOKEN
  adminURL: https://3scale-admin.example.com
---
apiVersion: capabilities.3scale.net/v1beta1
kind: Product
metadata:
  name: product1
  namespace: 3scale
  finalizers: [product.capabilities.3scale.net/finalizer]
spec:
  name: OperatedProduct 1
  systemName: operatedproduct1
  providerAccountRef:
    name: threescale-provider-account
status:
  productId: 2555417900141
  providerAccountHost: https://3scale-admin.example.com
  observedGeneration: 1
  conditions:
  - {type: Synced, status: "True", lastTransitionTime: "2022-03-31T09:12:44Z"}
  - {type: Failed, status: "False", lastTransitionTime: "2022-03-31T09:12:44Z"}
  - {type: Invalid, status: "False", lastTransitionTime: "2022-03-31T09:12:44Z"}
`,
		finalizersBy: map[string]string{"Product/3scale/product1": "manager"},
		deletes:      []string{"Product/3scale/product1"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "products.capabilities.3scale.net", "product1", "-n", "3scale")
	d.exit(1, "STUCK")
	f := d.finalizer("products.capabilities.3scale.net/product1 -n 3scale", "product.capabilities.3scale.net/finalizer")
	// The operator runs, may update Products, and retries for ever.
	d.remover(f, "deployments.apps/threescale-operator-controller-manager -n 3scale", true)
	// Its credentials are there: the provider account Secret the Product names is no blocker.
	for _, b := range f.Blockers {
		if b.Object.String() == "secrets/threescale-provider-account -n 3scale" {
			t.Errorf("the provider account Secret, present, is named a blocker (%s)", b.Code)
		}
	}
	// The way out by hand: remove the finalizer; the operator runs, nothing to reinstall.
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
