package whyterminating_test

import (
	"testing"
	"time"
)

// Held back in batch 19, run once by the lead (2026-12-03, main 2603bf9, after a harness fix that let
// it replay): wrong at first sight (the pod named as the foreground dependent, "clear its blockers
// first"; the operator re-creating it not read); fixed after the count by "A controller that
// makes a dependent again under foreground deletion".
//
// Report: https://github.com/jthomperoo/custom-pod-autoscaler-operator/issues/110 ("CPA Operator
// has trouble with cascading foreground deletion"; fixed by PR #111, "Fix foreground cascade
// delete loop"): Argo CD deletes CustomPodAutoscalers with foreground cascading deletion. The
// garbage collector then deletes the CPA's Pod and waits for it (foregroundDeletion), while the
// operator, still reconciling the CPA it sees, "kills the CPA pod, and then immediately re-creates
// it"; the loop lasts minutes, sometimes hours, and the CPA stays until it happens to break. The
// cause is the running operator re-creating the dependent the foreground deletion waits for; the
// fix makes the operator leave a CPA being deleted alone. Nothing is wrong with the Pod itself,
// and the CPA's own foregroundDeletion is kept by the collector, not by a product.
//
// Modelled on the operator's Helm chart (helm/, cluster mode): the ServiceAccount
// custom-pod-autoscaler-operator-cluster, the ClusterRole custom-pod-autoscaler-operator (pods,
// services, serviceaccounts, roles and rolebindings, deployments, custompodautoscaler.com) and
// binding, the Deployment custom-pod-autoscaler-operator in namespace cpa-system; the CRD
// custompodautoscalers.custompodautoscaler.com. In namespace shop: the CPA python-custom-autoscaler
// and what the operator makes for it (its ServiceAccount, Role, RoleBinding and Pod, each owned by
// the CPA with blockOwnerDeletion), the CPA deleted with foreground propagation.
func TestCorpusCustomPodAutoscalerForegroundDeleteRecreatesItsPod(t *testing.T) {
	replay{
		crds: []crd{
			{group: "custompodautoscaler.com", kind: "CustomPodAutoscaler", plural: "custompodautoscalers", namespaced: true, versions: []string{"v1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: cpa-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: custom-pod-autoscaler-operator-cluster
  namespace: cpa-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: custom-pod-autoscaler-operator
rules:
- apiGroups: [""]
  resources: ["pods", "services", "services/finalizers", "endpoints", "persistentvolumeclaims", "events", "configmaps", "secrets", "serviceaccounts"]
  verbs: ["*"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["roles", "rolebindings"]
  verbs: ["*"]
- apiGroups: ["apps"]
  resources: ["deployments", "daemonsets", "replicasets", "statefulsets"]
  verbs: ["*"]
- apiGroups: ["apps"]
  resourceNames: ["custom-pod-autoscaler-operator"]
  resources: ["deployments/finalizers"]
  verbs: ["update"]
- apiGroups: ["custompodautoscaler.com"]
  resources: ["*"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: custom-pod-autoscaler-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: custom-pod-autoscaler-operator
subjects:
- kind: ServiceAccount
  name: custom-pod-autoscaler-operator-cluster
  namespace: cpa-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: custom-pod-autoscaler-operator
  namespace: cpa-system
  labels: {app.kubernetes.io/managed-by: Helm}
spec:
  replicas: 1
  selector:
    matchLabels: {name: custom-pod-autoscaler-operator}
  template:
    metadata:
      labels: {name: custom-pod-autoscaler-operator}
    spec:
      serviceAccountName: custom-pod-autoscaler-operator-cluster
      containers:
      - name: custom-pod-autoscaler-operator
        image: custompodautoscaler/operator:v1.4.1
        env:
        - {name: WATCH_NAMESPACE, value: ""}
        - {name: OPERATOR_NAME, value: custom-pod-autoscaler-operator}
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: checkout
  namespace: shop
spec:
  replicas: 2
  selector:
    matchLabels: {app: checkout}
  template:
    metadata:
      labels: {app: checkout}
    spec:
      containers:
      - name: checkout
        image: ghcr.io/example/checkout:2.3.0
---
apiVersion: custompodautoscaler.com/v1
kind: CustomPodAutoscaler
metadata:
  name: python-custom-autoscaler
  namespace: shop
  finalizers: [foregroundDeletion]
  labels: {app.kubernetes.io/instance: shop}
spec:
  template:
    spec:
      containers:
      - name: python-custom-autoscaler
        image: custompodautoscaler/python-custom-autoscaler:latest
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: checkout
  config:
  - {name: interval, value: "10000"}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: python-custom-autoscaler
  namespace: shop
  ownerReferences:
  - {apiVersion: custompodautoscaler.com/v1, kind: CustomPodAutoscaler, name: python-custom-autoscaler, controller: true, blockOwnerDeletion: true}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: python-custom-autoscaler
  namespace: shop
  ownerReferences:
  - {apiVersion: custompodautoscaler.com/v1, kind: CustomPodAutoscaler, name: python-custom-autoscaler, controller: true, blockOwnerDeletion: true}
rules:
- apiGroups: ["apps"]
  resources: ["deployments", "deployments/scale"]
  verbs: ["get", "list", "update"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: python-custom-autoscaler
  namespace: shop
  ownerReferences:
  - {apiVersion: custompodautoscaler.com/v1, kind: CustomPodAutoscaler, name: python-custom-autoscaler, controller: true, blockOwnerDeletion: true}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: python-custom-autoscaler
subjects:
- kind: ServiceAccount
  name: python-custom-autoscaler
  namespace: shop
---
apiVersion: v1
kind: Pod
metadata:
  name: python-custom-autoscaler
  namespace: shop
  labels: {v1.custompodautoscaler.com/owned-by: python-custom-autoscaler}
  ownerReferences:
  - {apiVersion: custompodautoscaler.com/v1, kind: CustomPodAutoscaler, name: python-custom-autoscaler, controller: true, blockOwnerDeletion: true}
spec:
  serviceAccountName: python-custom-autoscaler
  nodeName: worker-1
  containers:
  - name: python-custom-autoscaler
    image: custompodautoscaler/python-custom-autoscaler:latest
status:
  phase: Running
  conditions:
  - {type: Ready, status: "True"}
`,
		deletes: []string{"CustomPodAutoscaler/shop/python-custom-autoscaler"},
		events: []event{
			{about: "CustomPodAutoscaler/shop/python-custom-autoscaler", typ: "Normal", reason: "Created", component: "custom-pod-autoscaler-operator", count: 214,
				message: "Created Pod shop/python-custom-autoscaler"},
		},
	}.run(t)

	d := diagnoseAfter(t, 2*time.Hour, "custompodautoscalers.custompodautoscaler.com", "python-custom-autoscaler", "-n", "shop")
	d.exit(1, "STUCK")
	f := d.finalizer("custompodautoscalers.custompodautoscaler.com/python-custom-autoscaler -n shop", "foregroundDeletion")
	// The collector waits for the CPA's Pod, which the running operator keeps making again: the
	// operator, not the Pod's kubelet, is why the wait never ends.
	d.blocker(f, "pods/python-custom-autoscaler -n shop")
	d.names(f, "deployments.apps/custom-pod-autoscaler-operator -n cpa-system")
	d.never(f, reinstall, restoreController)
}
