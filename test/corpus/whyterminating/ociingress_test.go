package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/oracle/oci-native-ingress-controller/pull/87 ("Fix finalizer
// removal logic for ingresses"): the OCI Native Ingress Controller puts its guarding finalizer
// oci.oraclecloud.com/ingress-controller-protection on the Ingresses it serves and did not remove
// it when the Ingress's spec.ingressClassName names an IngressClass that no longer exists,
// "possibly because the IngressClass was deleted before Ingresses attached to it were". Such
// Ingresses stay Terminating under a controller that runs. The fix removes the finalizer in that
// case, "marking the Ingress free to delete as the backing LB resources do not exist" (the load
// balancer went with its IngressClass); by hand, the same: remove the finalizer.
//
// Modelled on the chart oci-native-ingress-controller 1.3.8 (namespace
// native-ingress-controller-system: the Deployment with its labels and image, its ServiceAccount,
// the ClusterRole with its rules on Ingresses, IngressClasses and ingressclassparameters of
// ingress.oraclecloud.com, and its binding; the CRD from the chart's crds/ directory; the pod
// readiness webhook is left out, the replay's pods answer no requests) and on an application's
// Ingress of the deleted class, with the address its load balancer had.
func TestCorpusOCINativeIngressOfADeletedIngressClass(t *testing.T) {
	replay{
		crds: []crd{
			{group: "ingress.oraclecloud.com", kind: "IngressClassParameters", plural: "ingressclassparameters", namespaced: true, versions: []string{"v1beta1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: native-ingress-controller-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: oci-native-ingress-controller
  namespace: native-ingress-controller-system
  labels:
    helm.sh/chart: oci-native-ingress-controller-1.3.8
    app.kubernetes.io/name: oci-native-ingress-controller
    app.kubernetes.io/instance: oci-native-ingress-controller
    app.kubernetes.io/version: "1.3.8"
    app.kubernetes.io/managed-by: Helm
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: oci-native-ingress-controller-role
  labels:
    helm.sh/chart: oci-native-ingress-controller-1.3.8
    app.kubernetes.io/name: oci-native-ingress-controller
    app.kubernetes.io/instance: oci-native-ingress-controller
    app.kubernetes.io/version: "1.3.8"
    app.kubernetes.io/managed-by: Helm
rules:
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["", "networking.k8s.io"]
  resources: ["services", "ingresses", "ingresses/status", "ingressclasses"]
  verbs: ["get", "list", "patch", "update", "watch"]
- apiGroups: ["", "ingress.oraclecloud.com"]
  resources: ["ingressclassparameters"]
  verbs: ["get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["nodes", "namespaces", "endpoints"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["discovery.k8s.io"]
  resources: ["endpointslices"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["pods/status"]
  verbs: ["patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: oci-native-ingress-controller-rolebinding
  labels:
    helm.sh/chart: oci-native-ingress-controller-1.3.8
    app.kubernetes.io/name: oci-native-ingress-controller
    app.kubernetes.io/instance: oci-native-ingress-controller
    app.kubernetes.io/version: "1.3.8"
    app.kubernetes.io/managed-by: Helm
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: oci-native-ingress-controller-role
subjects:
- kind: ServiceAccount
  name: oci-native-ingress-controller
  namespace: native-ingress-controller-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: oci-native-ingress-controller
  namespace: native-ingress-controller-system
  labels:
    helm.sh/chart: oci-native-ingress-controller-1.3.8
    app.kubernetes.io/name: oci-native-ingress-controller
    app.kubernetes.io/instance: oci-native-ingress-controller
    app.kubernetes.io/version: "1.3.8"
    app.kubernetes.io/managed-by: Helm
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: oci-native-ingress-controller
      app.kubernetes.io/instance: oci-native-ingress-controller
  template:
    metadata:
      labels:
        app.kubernetes.io/name: oci-native-ingress-controller
        app.kubernetes.io/instance: oci-native-ingress-controller
    spec:
      serviceAccountName: oci-native-ingress-controller
      containers:
      - name: oci-native-ingress-controller
        image: ghcr.io/oracle/oci-native-ingress-controller:v1.3.8
        args:
        - --lease-lock-name=oci-native-ingress-controller
        - --lease-lock-namespace=native-ingress-controller-system
        - --authType=instance
        - --controller-class=oci.oraclecloud.com/native-ingress-controller
        - --compartment-id=ocid1.compartment.oc1..aaaaaaaa5vxgv7zqz
        - --subnet-id=ocid1.subnet.oc1.phx.aaaaaaaaq3r6lh
        - --cluster-id=ocid1.cluster.oc1.phx.aaaaaaaa7kdd2q
        - --v=4
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: v1
kind: Service
metadata:
  name: storefront
  namespace: shop
spec:
  selector:
    app: storefront
  ports:
  - port: 80
    targetPort: 8080
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: storefront
  namespace: shop
  finalizers:
  - oci.oraclecloud.com/ingress-controller-protection
spec:
  ingressClassName: default-ingress-class
  rules:
  - host: shop.example.com
    http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service:
            name: storefront
            port:
              number: 80
status:
  loadBalancer:
    ingress:
    - ip: 129.146.214.37
`,
		deletes: []string{"Ingress/shop/storefront"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "ingresses.networking.k8s.io", "storefront", "-n", "shop")
	d.exit(1, "STUCK")
	f := d.finalizer("ingresses.networking.k8s.io/storefront -n shop", "oci.oraclecloud.com/ingress-controller-protection")
	// The controller runs and is the remover; what it waits for is the IngressClass the
	// Ingress's spec.ingressClassName names, which no longer exists: named, with the strip as
	// the way out (its load balancer went with the class), never a reinstall.
	d.remover(f, "deployments.apps/oci-native-ingress-controller -n native-ingress-controller-system", true)
	d.names(f, "ingressclasses.networking.k8s.io/default-ingress-class")
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
