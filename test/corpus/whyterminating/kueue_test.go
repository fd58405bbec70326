package whyterminating_test

import "testing"

// Report: https://github.com/kubernetes-sigs/kueue/issues/249 ("resourceFlavor can't be
// deleted unless no clusterQueue references it"), implemented by
// https://github.com/kubernetes-sigs/kueue/pull/263: Kueue keeps kueue.x-k8s.io/resource-in-use
// on a ResourceFlavor while a ClusterQueue's spec.resourceGroups[].flavors[].name names it; the
// controller runs and waits. The way out is to remove the flavor from the ClusterQueue (or
// delete the queue), never to strip the finalizer.
//
// Modelled on Kueue's manifests.yaml (v0.6, config/components): namespace kueue-system,
// ServiceAccount kueue-controller-manager, ClusterRole kueue-manager-role (its rules on
// kueue.x-k8s.io) and binding, Deployment kueue-controller-manager with its labels and image.
// The webhook configurations are left out: the replay's pods answer no requests.
func TestCorpusKueueResourceFlavorInUse(t *testing.T) {
	replay{
		crds: []crd{
			{group: "kueue.x-k8s.io", kind: "ResourceFlavor", plural: "resourceflavors", versions: []string{"v1beta1"}},
			{group: "kueue.x-k8s.io", kind: "ClusterQueue", plural: "clusterqueues", versions: []string{"v1beta1"}},
			{group: "kueue.x-k8s.io", kind: "LocalQueue", plural: "localqueues", namespaced: true, versions: []string{"v1beta1"}},
			{group: "kueue.x-k8s.io", kind: "Workload", plural: "workloads", namespaced: true, versions: []string{"v1beta1"}},
			{group: "kueue.x-k8s.io", kind: "AdmissionCheck", plural: "admissionchecks", versions: []string{"v1beta1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: kueue-system
  labels:
    control-plane: controller-manager
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kueue-controller-manager
  namespace: kueue-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kueue-manager-role
rules:
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "update", "watch", "patch"]
- apiGroups: [""]
  resources: ["pods", "limitranges", "namespaces"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["batch"]
  resources: ["jobs"]
  verbs: ["get", "list", "patch", "update", "watch"]
- apiGroups: ["kueue.x-k8s.io"]
  resources: ["admissionchecks", "clusterqueues", "localqueues", "resourceflavors", "workloads"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["kueue.x-k8s.io"]
  resources: ["clusterqueues/finalizers", "localqueues/finalizers", "resourceflavors/finalizers", "workloads/finalizers"]
  verbs: ["update"]
- apiGroups: ["kueue.x-k8s.io"]
  resources: ["admissionchecks/status", "clusterqueues/status", "localqueues/status", "workloads/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kueue-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: kueue-manager-role
subjects:
- kind: ServiceAccount
  name: kueue-controller-manager
  namespace: kueue-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kueue-controller-manager
  namespace: kueue-system
  labels:
    app.kubernetes.io/component: controller
    app.kubernetes.io/name: kueue
    control-plane: controller-manager
spec:
  replicas: 1
  selector:
    matchLabels:
      control-plane: controller-manager
  template:
    metadata:
      labels:
        app.kubernetes.io/component: controller
        app.kubernetes.io/name: kueue
        control-plane: controller-manager
    spec:
      serviceAccountName: kueue-controller-manager
      containers:
      - name: manager
        image: registry.k8s.io/kueue/kueue:v0.6.2
        args: ["--config=/controller_manager_config.yaml", "--zap-log-level=2"]
`,
		objects: `
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata:
  name: default-flavor
  finalizers:
  - kueue.x-k8s.io/resource-in-use
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: cluster-queue
  finalizers:
  - kueue.x-k8s.io/resource-in-use
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu", "memory"]
    flavors:
    - name: default-flavor
      resources:
      - name: cpu
        nominalQuota: 9
      - name: memory
        nominalQuota: 36Gi
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata:
  name: user-queue
  namespace: default
spec:
  clusterQueue: cluster-queue
`,
		deletes: []string{"ResourceFlavor//default-flavor"},
	}.run(t)

	d := diagnose(t, "resourceflavors.kueue.x-k8s.io", "default-flavor")
	d.exit(1, "STUCK")
	f := d.finalizer("resourceflavors.kueue.x-k8s.io/default-flavor", "kueue.x-k8s.io/resource-in-use")
	d.remover(f, "deployments.apps/kueue-controller-manager -n kueue-system", true)
	d.verdict(f, blockedByObjects)
	d.blocker(f, "clusterqueues.kueue.x-k8s.io/cluster-queue")
	d.notFirstFix(f, stripFinalizer, readLogs)
	d.never(f, reinstall)
}
