package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/aws/aws-application-networking-k8s/issues/115 ("Gateway and
// HTTPRoute unable to be deleted -- stuck finalizing"): with the AWS Gateway API Controller for
// VPC Lattice (v0.0.9, March 2023), the GatewayClass was deleted first, then the Gateway and its
// HTTPRoute: both stay, with the controller's finalizers (gateway.k8s.aws/resources on the Gateway,
// httproute.k8s.aws/resources on the route). The controller runs; its log says why: "Ignore it
// since not link to any gatewayclass" for the Gateway. A maintainer: the controller only manages
// Gateways of a GatewayClass whose controllerName is
// application-networking.k8s.aws/gateway-api-controller; once the class is gone it no longer
// treats the Gateway as its own, so it neither cleans up its VPC Lattice service network nor
// removes the finalizer. The way out the thread reached: create the GatewayClass again (the
// controller then finalizes the Gateway and route, deleting what it made in VPC Lattice), or
// remove the finalizers by hand, which leaves the Lattice resources behind; delete the Gateways
// before their class (labelled documentation).
//
// Modelled on the controller's deploy manifest of that release (deploy-v0.0.9.yaml): namespace
// aws-application-networking-system, the ServiceAccount gateway-api-controller, the ClusterRole
// aws-application-networking-controller (gateway.networking.k8s.io gateways, httproutes and
// gatewayclasses with their finalizers and status; services; multicluster.x-k8s.io service
// exports and imports; abbreviated to those) with its binding, the Deployment
// gateway-api-controller (container manager, its image), running; the Gateway API CRDs v0.6
// (protected group: the real ones carry api-approved.kubernetes.io) and the controller's
// multicluster CRDs. The Gateway and HTTPRoute of the report, programmed before the class went.
func TestCorpusAWSGatewayAPIControllerGatewayOfADeletedGatewayClass(t *testing.T) {
	gw := map[string]string{"api-approved.kubernetes.io": "https://github.com/kubernetes-sigs/gateway-api/pull/1538",
		"gateway.networking.k8s.io/bundle-version": "v0.6.1", "gateway.networking.k8s.io/channel": "standard"}
	replay{
		crds: []crd{
			{group: "gateway.networking.k8s.io", kind: "GatewayClass", plural: "gatewayclasses", versions: []string{"v1beta1", "v1alpha2"}, annotations: gw},
			{group: "gateway.networking.k8s.io", kind: "Gateway", plural: "gateways", namespaced: true, versions: []string{"v1beta1", "v1alpha2"}, annotations: gw},
			{group: "gateway.networking.k8s.io", kind: "HTTPRoute", plural: "httproutes", namespaced: true, versions: []string{"v1beta1", "v1alpha2"}, annotations: gw},
			{group: "multicluster.x-k8s.io", kind: "ServiceExport", plural: "serviceexports", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "multicluster.x-k8s.io", kind: "ServiceImport", plural: "serviceimports", namespaced: true, versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: aws-application-networking-system
  labels: {control-plane: gateway-api-controller}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: gateway-api-controller
  namespace: aws-application-networking-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: aws-application-networking-controller
rules:
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: [""]
  resources: ["services", "endpoints", "pods"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["services/finalizers", "pods/finalizers"]
  verbs: ["update"]
- apiGroups: ["gateway.networking.k8s.io"]
  resources: ["gatewayclasses", "gateways", "httproutes"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["gateway.networking.k8s.io"]
  resources: ["gatewayclasses/finalizers", "gateways/finalizers", "httproutes/finalizers"]
  verbs: ["update"]
- apiGroups: ["gateway.networking.k8s.io"]
  resources: ["gatewayclasses/status", "gateways/status", "httproutes/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["multicluster.x-k8s.io"]
  resources: ["serviceexports", "serviceimports"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["multicluster.x-k8s.io"]
  resources: ["serviceexports/finalizers", "serviceimports/finalizers"]
  verbs: ["update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: aws-application-networking-controller
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: aws-application-networking-controller
subjects:
- kind: ServiceAccount
  name: gateway-api-controller
  namespace: aws-application-networking-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: gateway-api-controller
  namespace: aws-application-networking-system
  labels: {control-plane: gateway-api-controller}
spec:
  replicas: 1
  selector:
    matchLabels: {control-plane: gateway-api-controller}
  template:
    metadata:
      labels: {control-plane: gateway-api-controller}
    spec:
      serviceAccountName: gateway-api-controller
      containers:
      - name: manager
        image: public.ecr.aws/aws-application-networking-k8s/aws-gateway-controller:v0.0.9
        args: ["--leader-elect"]
`,
		objects: `
apiVersion: gateway.networking.k8s.io/v1beta1
kind: Gateway
metadata:
  name: carverspring-2-v1bayfdckt
  namespace: default
  finalizers: [gateway.k8s.aws/resources]
spec:
  gatewayClassName: amazon-vpc-lattice
  listeners:
  - name: http
    protocol: HTTP
    port: 80
status:
  conditions:
  - type: Accepted
    status: "True"
    reason: Accepted
    message: "aws-gateway-arn: arn:aws:vpc-lattice:us-west-2:123456789012:servicenetwork/sn-0a3c4e6f8b1d2e5f7"
    lastTransitionTime: "2023-03-03T23:47:50Z"
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: HTTPRoute
metadata:
  name: carverspring-2-v1bayfdckt
  namespace: default
  finalizers: [httproute.k8s.aws/resources]
spec:
  parentRefs:
  - name: carverspring-2-v1bayfdckt
    sectionName: http
  rules:
  - backendRefs:
    - name: carverspring-2
      kind: Service
      port: 80
`,
		// The GatewayClass had been deleted first (it is gone); then the Gateway and the route.
		deletes: []string{"Gateway/default/carverspring-2-v1bayfdckt", "HTTPRoute/default/carverspring-2-v1bayfdckt"},
	}.run(t)

	// Found the next day.
	d := diagnoseAfter(t, 24*time.Hour, "gateways.gateway.networking.k8s.io", "carverspring-2-v1bayfdckt", "-n", "default")
	d.exit(1, "STUCK")
	f := d.finalizer("gateways.gateway.networking.k8s.io/carverspring-2-v1bayfdckt -n default", "gateway.k8s.aws/resources")
	// The controller runs and removes the finalizer, but no longer counts this Gateway as its
	// own: the GatewayClass its spec.gatewayClassName names is gone. Creating the class again
	// lets it finalize; the strip leaves the VPC Lattice service network behind.
	d.remover(f, "deployments.apps/gateway-api-controller -n aws-application-networking-system", true)
	d.names(f, "gatewayclasses.gateway.networking.k8s.io/amazon-vpc-lattice")
	d.never(f, reinstall)
}
