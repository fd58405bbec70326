package whyterminating_test

import "testing"

// Report: https://github.com/aws/aws-app-mesh-controller-for-k8s/issues/449 ("App Mesh Resources
// deleted from AWS Management console but left dangling in EKS cluster"): the appmesh-system
// namespace, and the controller with it, was deleted; `kubectl delete virtualnodes --all
// --all-namespaces` hangs. The maintainer: "You need the controller to be up and running to
// reconcile these resources, so deleting appmesh-controller (by deleting appmesh-system)
// namespace will not help"; the way out is to reinstall the controller, or to remove the
// finalizers by hand (the AWS side was already deleted from the console).
//
// Modelled on the eks-charts appmesh-controller chart (v1.3, stable/appmesh-controller): the
// CRDs of appmesh.k8s.aws (v1beta2), and what outlives the namespace: the cluster-scoped
// ClusterRole appmesh-controller-role with its rules on appmesh.k8s.aws and its binding to the
// controller's ServiceAccount in the deleted namespace. The finalizer and the ARN in status are
// the v1 controller's (pkg/k8s/finalizer.go, VirtualNodeStatus.VirtualNodeARN).
func TestCorpusAppMeshControllerNamespaceDeleted(t *testing.T) {
	replay{
		crds: []crd{
			{group: "appmesh.k8s.aws", kind: "Mesh", plural: "meshes", versions: []string{"v1beta2"}},
			{group: "appmesh.k8s.aws", kind: "VirtualNode", plural: "virtualnodes", namespaced: true, versions: []string{"v1beta2"}},
			{group: "appmesh.k8s.aws", kind: "VirtualService", plural: "virtualservices", namespaced: true, versions: []string{"v1beta2"}},
			{group: "appmesh.k8s.aws", kind: "VirtualRouter", plural: "virtualrouters", namespaced: true, versions: []string{"v1beta2"}},
			{group: "appmesh.k8s.aws", kind: "VirtualGateway", plural: "virtualgateways", namespaced: true, versions: []string{"v1beta2"}},
			{group: "appmesh.k8s.aws", kind: "GatewayRoute", plural: "gatewayroutes", namespaced: true, versions: []string{"v1beta2"}},
		},
		install: `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: appmesh-controller-role
  labels:
    app.kubernetes.io/name: appmesh-controller
    app.kubernetes.io/instance: appmesh-controller
    helm.sh/chart: appmesh-controller-1.3.0
rules:
- apiGroups: ["appmesh.k8s.aws"]
  resources: ["meshes", "virtualnodes", "virtualservices", "virtualrouters", "virtualgateways", "gatewayroutes"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["appmesh.k8s.aws"]
  resources: ["meshes/status", "virtualnodes/status", "virtualservices/status", "virtualrouters/status", "virtualgateways/status", "gatewayroutes/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: [""]
  resources: ["pods", "namespaces", "endpoints"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: appmesh-controller-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: appmesh-controller-role
subjects:
- kind: ServiceAccount
  name: appmesh-controller
  namespace: appmesh-system
`,
		objects: `
apiVersion: appmesh.k8s.aws/v1beta2
kind: Mesh
metadata:
  name: color-mesh
spec:
  namespaceSelector:
    matchLabels:
      mesh: color-mesh
status:
  meshARN: arn:aws:appmesh:us-west-2:123456789012:mesh/color-mesh
---
apiVersion: v1
kind: Namespace
metadata:
  name: color-app
  labels:
    mesh: color-mesh
    appmesh.k8s.aws/sidecarInjectorWebhook: enabled
---
apiVersion: appmesh.k8s.aws/v1beta2
kind: VirtualNode
metadata:
  name: colorteller
  namespace: color-app
  finalizers:
  - finalizers.appmesh.k8s.aws/aws-appmesh-resources
spec:
  awsName: colorteller_color-app
  meshRef:
    name: color-mesh
  podSelector:
    matchLabels:
      app: colorteller
  listeners:
  - portMapping:
      port: 9080
      protocol: http
  serviceDiscovery:
    dns:
      hostname: colorteller.color-app.svc.cluster.local
status:
  virtualNodeARN: arn:aws:appmesh:us-west-2:123456789012:mesh/color-mesh/virtualNode/colorteller_color-app
`,
		deletes: []string{"VirtualNode/color-app/colorteller"},
	}.run(t)

	d := diagnose(t, "virtualnodes.appmesh.k8s.aws", "colorteller", "-n", "color-app")
	d.exit(1, "STUCK")
	f := d.finalizer("virtualnodes.appmesh.k8s.aws/colorteller -n color-app", "finalizers.appmesh.k8s.aws/aws-appmesh-resources")
	d.verdict(f, controllerAbsent)
	d.noRunningRemover(f)
	d.offers(f, reinstall, restoreController)
	d.offers(f, stripFinalizer)
}
