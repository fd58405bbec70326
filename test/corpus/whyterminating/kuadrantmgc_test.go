package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/Kuadrant/multicluster-gateway-controller/issues/420 ("Deleting
// placement prevents deletion of gateway"): with Kuadrant's multicluster gateway controller
// (MGC, August 2023) on an Open Cluster Management hub, a Gateway is placed on workload clusters
// by the Placement its label cluster.open-cluster-management.io/placement names. "If you delete
// the placement resource before deleting the gateway the gateway will become stuck deleting as
// the reconcile fails trying to find the placement and never removes the finalizer." The fix
// (#579, "small fix for gateways being deleted after placement deleted"): report the missing
// placement in the Gateway's status and let the deletion go. Until then the way out is to
// create the Placement again (the controller then finishes) or to remove the finalizer.
//
// Modelled on MGC's config/ (kustomize, namespace multicluster-gateway-controller-system): the
// ServiceAccount mgc-controller-manager, the ClusterRole mgc-manager-role (gateways,
// gatewayclasses with their finalizers and status; placements and placementdecisions read;
// manifestworks; kuadrant.io dnsrecords and managedzones; abbreviated to those) with its
// binding, the Deployment mgc-controller-manager (container manager), running; the CRDs of
// kuadrant.io, the Gateway API CRDs v0.6 (protected group: the real ones carry
// api-approved.kubernetes.io) and OCM's placement CRDs (cluster.open-cluster-management.io) and
// ManifestWork (work.open-cluster-management.io); the GatewayClass
// kuadrant-multi-cluster-gateway-instance-per-cluster. The Gateway prod-web of the walkthrough
// with the controller's finalizer, placed before its Placement http-gateway was deleted.
func TestCorpusKuadrantMGCGatewayOfADeletedPlacement(t *testing.T) {
	gw := map[string]string{"api-approved.kubernetes.io": "https://github.com/kubernetes-sigs/gateway-api/pull/1538",
		"gateway.networking.k8s.io/bundle-version": "v0.6.2", "gateway.networking.k8s.io/channel": "standard"}
	replay{
		crds: []crd{
			{group: "gateway.networking.k8s.io", kind: "GatewayClass", plural: "gatewayclasses", versions: []string{"v1beta1", "v1alpha2"}, annotations: gw},
			{group: "gateway.networking.k8s.io", kind: "Gateway", plural: "gateways", namespaced: true, versions: []string{"v1beta1", "v1alpha2"}, annotations: gw},
			{group: "gateway.networking.k8s.io", kind: "HTTPRoute", plural: "httproutes", namespaced: true, versions: []string{"v1beta1", "v1alpha2"}, annotations: gw},
			{group: "kuadrant.io", kind: "DNSRecord", plural: "dnsrecords", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "kuadrant.io", kind: "ManagedZone", plural: "managedzones", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "kuadrant.io", kind: "DNSPolicy", plural: "dnspolicies", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "cluster.open-cluster-management.io", kind: "Placement", plural: "placements", namespaced: true, versions: []string{"v1beta1"}},
			{group: "cluster.open-cluster-management.io", kind: "PlacementDecision", plural: "placementdecisions", namespaced: true, versions: []string{"v1beta1"}},
			{group: "work.open-cluster-management.io", kind: "ManifestWork", plural: "manifestworks", namespaced: true, versions: []string{"v1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: multicluster-gateway-controller-system
  labels: {control-plane: controller-manager}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: mgc-controller-manager
  namespace: multicluster-gateway-controller-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: mgc-manager-role
rules:
- apiGroups: ["gateway.networking.k8s.io"]
  resources: ["gateways", "gatewayclasses"]
  verbs: ["get", "list", "patch", "update", "watch"]
- apiGroups: ["gateway.networking.k8s.io"]
  resources: ["gateways/finalizers", "gatewayclasses/finalizers"]
  verbs: ["update"]
- apiGroups: ["gateway.networking.k8s.io"]
  resources: ["gateways/status", "gatewayclasses/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["cluster.open-cluster-management.io"]
  resources: ["placements", "placementdecisions", "managedclusters"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["work.open-cluster-management.io"]
  resources: ["manifestworks"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["kuadrant.io"]
  resources: ["dnsrecords", "managedzones", "dnspolicies"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["kuadrant.io"]
  resources: ["dnsrecords/finalizers", "managedzones/finalizers", "dnspolicies/finalizers"]
  verbs: ["update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: mgc-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: mgc-manager-role
subjects:
- kind: ServiceAccount
  name: mgc-controller-manager
  namespace: multicluster-gateway-controller-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: mgc-controller-manager
  namespace: multicluster-gateway-controller-system
  labels: {control-plane: controller-manager}
spec:
  replicas: 1
  selector:
    matchLabels: {control-plane: controller-manager}
  template:
    metadata:
      labels: {control-plane: controller-manager}
    spec:
      serviceAccountName: mgc-controller-manager
      containers:
      - name: manager
        image: quay.io/kuadrant/multicluster-gateway-controller:main
        args: ["--leader-elect"]
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: GatewayClass
metadata:
  name: kuadrant-multi-cluster-gateway-instance-per-cluster
spec:
  controllerName: kuadrant.io/mgc-gw-controller
status:
  conditions:
  - type: Accepted
    status: "True"
    reason: Accepted
    message: Handled by kuadrant.io/mgc-gw-controller
    lastTransitionTime: "2023-08-10T09:12:00Z"
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: multi-cluster-gateways
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: Gateway
metadata:
  name: prod-web
  namespace: multi-cluster-gateways
  labels:
    cluster.open-cluster-management.io/placement: http-gateway
  finalizers: [kuadrant.io/gateway]
spec:
  gatewayClassName: kuadrant-multi-cluster-gateway-instance-per-cluster
  listeners:
  - name: api
    hostname: api.cb.hcpapps.net
    port: 443
    protocol: HTTPS
    allowedRoutes:
      namespaces:
        from: All
status:
  conditions:
  - type: Accepted
    status: "True"
    reason: Accepted
    message: Handled by kuadrant.io/mgc-gw-controller
    lastTransitionTime: "2023-08-10T09:20:00Z"
  - type: Programmed
    status: "True"
    reason: Programmed
    message: Gateway configured in data plane cluster(s) - [kind-mgc-workload-1]
    lastTransitionTime: "2023-08-10T09:20:30Z"
`,
		// The Placement http-gateway was deleted first (it is gone); then the Gateway.
		deletes: []string{"Gateway/multi-cluster-gateways/prod-web"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "gateways.gateway.networking.k8s.io", "prod-web", "-n", "multi-cluster-gateways")
	d.exit(1, "STUCK")
	f := d.finalizer("gateways.gateway.networking.k8s.io/prod-web -n multi-cluster-gateways", "kuadrant.io/gateway")
	// MGC runs and fails on the Placement the Gateway's label names, which is gone: create it
	// again so that the controller finishes, or remove the finalizer.
	d.remover(f, "deployments.apps/mgc-controller-manager -n multicluster-gateway-controller-system", true)
	d.names(f, "placements.cluster.open-cluster-management.io/http-gateway -n multi-cluster-gateways")
	d.offers(f, stripFinalizer)
	d.never(f, reinstall)
}
