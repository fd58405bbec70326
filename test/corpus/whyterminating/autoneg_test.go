package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/GoogleCloudPlatform/gke-autoneg-controller/issues/10 ("Autoneg
// controller can block deletion of a Service and even of the namespace containing it"): a Service
// whose anthos.cft.dev/autoneg annotation names a backend service with an underscore (a name the
// Compute API refuses) cannot be deleted. The autoneg controller (running) put its finalizer
// anthos.cft.dev/autoneg on it and removes it only once it has deregistered the Service's NEGs
// from that backend service; every attempt fails on the invalid name (its Warning event
// BackendError), so the Service stays Terminating, "even though there is nothing to clean up"
// (the NEGs were never added to a backend of that name). The maintainer's way out: remove the
// finalizer (`kubectl get service ... | jq '.metadata.finalizers = null' | kubectl apply`);
// the reporter did the same from the console.
//
// Modelled on the controller's deploy/autoneg.yaml of the v0.9 releases: namespace
// autoneg-system, the ServiceAccount autoneg, the ClusterRole autoneg-manager-role (services get,
// list, watch, update, patch; services/status; events) and its binding, the leader-election
// Role, the Deployment autoneg-controller-manager (labels app: autoneg, control-plane:
// controller-manager) with the manager and kube-rbac-proxy containers, and its metrics Service.
// GKE's own NEG controller runs in the managed control plane, not in the cluster. The Service as
// the report's shows it: ClusterIP with standalone NEGs (cloud.google.com/neg and its
// neg-status), the autoneg annotation with the invalid name, and the controller's Warning event
// after the deletion.
func TestCorpusAutonegServiceWithAnInvalidBackendName(t *testing.T) {
	replay{
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: autoneg-system
  labels: {app: autoneg, control-plane: controller-manager}
---
apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: autoneg
  namespace: autoneg-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: autoneg-leader-election-role
  namespace: autoneg-system
  labels: {app: autoneg}
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
kind: ClusterRole
metadata:
  name: autoneg-manager-role
  labels: {app: autoneg}
rules:
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: [""]
  resources: ["services"]
  verbs: ["get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["services/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: autoneg-leader-election-rolebinding
  namespace: autoneg-system
  labels: {app: autoneg}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: autoneg-leader-election-role
subjects:
- kind: ServiceAccount
  name: autoneg
  namespace: autoneg-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: autoneg-manager-rolebinding
  labels: {app: autoneg}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: autoneg-manager-role
subjects:
- kind: ServiceAccount
  name: autoneg
  namespace: autoneg-system
---
apiVersion: v1
kind: Service
metadata:
  name: autoneg-controller-manager-metrics-service
  namespace: autoneg-system
  labels: {app: autoneg, control-plane: controller-manager}
spec:
  ports:
  - {name: https, port: 8443, targetPort: https}
  selector: {app: autoneg, control-plane: controller-manager}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: autoneg-controller-manager
  namespace: autoneg-system
  labels: {app: autoneg, control-plane: controller-manager}
spec:
  replicas: 1
  selector:
    matchLabels: {app: autoneg, control-plane: controller-manager}
  template:
    metadata:
      labels: {app: autoneg, control-plane: controller-manager}
    spec:
      serviceAccountName: autoneg
      containers:
      - name: manager
        image: gcr.io/gke-autoneg-controller/gke-autoneg-controller:0.9.1
        command: ["/manager"]
        args: ["--metrics-addr=127.0.0.1:8080", "--enable-leader-election"]
      - name: kube-rbac-proxy
        image: gcr.io/kubebuilder/kube-rbac-proxy:v0.4.1
        args: ["--secure-listen-address=0.0.0.0:8443", "--upstream=http://127.0.0.1:8080/", "--logtostderr=true", "--v=10"]
        ports:
        - {containerPort: 8443, name: https}
`,
		objects: `
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
  annotations:
    cloud.google.com/neg: '{"exposed_ports": {"80":{}}}'
    cloud.google.com/neg-status: '{"network_endpoint_groups":{"80":"k8s1-3f6a1e9b-shop-web-80-4c2e7d1a"},"zones":["europe-west4-a","europe-west4-b"]}'
    anthos.cft.dev/autoneg: '{"name":"shop_web", "max_rate_per_endpoint":100}'
  finalizers: [anthos.cft.dev/autoneg]
spec:
  type: ClusterIP
  selector: {app: web}
  ports:
  - {name: http, port: 80, targetPort: 8080}
`,
		deletes: []string{"Service/shop/web"},
		events: []event{{about: "Service/shop/web", typ: "Warning", reason: "BackendError", component: "autoneg-controller", count: 37,
			message: "googleapi: Error 400: Invalid value for field 'backendService': 'shop_web'. Must be a match of regex '[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?', invalid"}},
	}.run(t)

	// The reporter tried to clean up, then deleted the namespace: well after the Service's deletion.
	d := diagnoseAfter(t, time.Hour, "services", "web", "-n", "shop")
	d.exit(1, "STUCK")
	ref := "services/web -n shop"
	f := d.finalizer(ref, "anthos.cft.dev/autoneg")
	d.remover(f, "deployments.apps/autoneg-controller-manager -n autoneg-system", true)
	// The thread's way out: remove the finalizer; there is nothing to clean up.
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
