package whyterminating_test

import (
	"strings"
	"testing"
	"time"
)

// Report: https://github.com/ray-project/kuberay/issues/3388 ("When deleting a namespace with
// raycluster resources, finalizer gets stuck launching job"): a RayCluster with GCS fault
// tolerance carries ray.io/gcs-ft-redis-cleanup-finalizer; KubeRay removes it once a Job it
// creates has deleted the cluster's keys from the external Redis. When the RayCluster is deleted
// with its namespace, the operator (running) can never create that Job: "jobs.batch
// \"ray-cluster-redis-cleanup\" is forbidden: unable to create new content in namespace
// ray-shared-ml because it is being terminated". The event that would say so is refused too (it
// is new content in that namespace); only the operator's log shows it. The finalizer stays
// forever; the way out is to remove it by hand, which leaves the cluster's GCS data in Redis
// (delete its keys there, as the Ray docs' "Redis cleanup" section does by hand).
//
// Modelled on KubeRay's Helm chart kuberay-operator (v1.3): the ServiceAccount, ClusterRole
// (role.consistentRules, abbreviated to the groups that bear on the case) and binding, the
// Deployment kuberay-operator with the chart's labels and image, in namespace kuberay; the CRDs
// of ray.io. The RayCluster's own pods went with the namespace's content (not replayed: without
// a kubelet they would wait for one).
func TestCorpusKubeRayRedisCleanupInTerminatingNamespace(t *testing.T) {
	ray := map[string]string{"app.kubernetes.io/name": "kuberay-operator", "app.kubernetes.io/instance": "kuberay-operator", "helm.sh/chart": "kuberay-operator-1.3.2"}
	replay{
		crds: []crd{
			{group: "ray.io", kind: "RayCluster", plural: "rayclusters", namespaced: true, versions: []string{"v1"}, labels: ray},
			{group: "ray.io", kind: "RayJob", plural: "rayjobs", namespaced: true, versions: []string{"v1"}, labels: ray},
			{group: "ray.io", kind: "RayService", plural: "rayservices", namespaced: true, versions: []string{"v1"}, labels: ray},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: kuberay
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kuberay-operator
  namespace: kuberay
  labels:
    app.kubernetes.io/name: kuberay-operator
    app.kubernetes.io/instance: kuberay-operator
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: kuberay-operator-1.3.2
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kuberay-operator
  labels:
    app.kubernetes.io/name: kuberay-operator
    app.kubernetes.io/instance: kuberay-operator
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: kuberay-operator-1.3.2
rules:
- apiGroups: [""]
  resources: ["events", "pods/status", "services"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["serviceaccounts"]
  verbs: ["create", "delete", "get", "list", "watch"]
- apiGroups: ["batch"]
  resources: ["jobs"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["create", "get", "list", "update"]
- apiGroups: ["ray.io"]
  resources: ["rayclusters", "rayjobs", "rayservices"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["ray.io"]
  resources: ["rayclusters/finalizers", "rayjobs/finalizers", "rayservices/finalizers"]
  verbs: ["update"]
- apiGroups: ["ray.io"]
  resources: ["rayclusters/status", "rayjobs/status", "rayservices/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kuberay-operator
  labels:
    app.kubernetes.io/name: kuberay-operator
    app.kubernetes.io/instance: kuberay-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: kuberay-operator
subjects:
- kind: ServiceAccount
  name: kuberay-operator
  namespace: kuberay
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kuberay-operator
  namespace: kuberay
  labels:
    app.kubernetes.io/name: kuberay-operator
    app.kubernetes.io/instance: kuberay-operator
    app.kubernetes.io/version: v1.3.2
    app.kubernetes.io/managed-by: Helm
    app.kubernetes.io/component: kuberay-operator
    helm.sh/chart: kuberay-operator-1.3.2
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: kuberay-operator
      app.kubernetes.io/instance: kuberay-operator
  template:
    metadata:
      labels:
        app.kubernetes.io/name: kuberay-operator
        app.kubernetes.io/instance: kuberay-operator
        app.kubernetes.io/component: kuberay-operator
    spec:
      serviceAccountName: kuberay-operator
      containers:
      - name: kuberay-operator
        image: quay.io/kuberay/operator:v1.3.2
        command: ["/manager"]
        args: ["--feature-gates=RayClusterStatusConditions=true", "--enable-leader-election=true"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: ray-shared-ml
---
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: ray-cluster
  namespace: ray-shared-ml
  finalizers:
  - ray.io/gcs-ft-redis-cleanup-finalizer
spec:
  rayVersion: "2.44.0"
  gcsFaultToleranceOptions:
    redisAddress: redis.ml-infra.svc.cluster.local:6379
    redisPassword:
      valueFrom:
        secretKeyRef:
          name: redis-password-secret
          key: password
  headGroupSpec:
    rayStartParams:
      num-cpus: "0"
    template:
      spec:
        containers:
        - name: ray-head
          image: rayproject/ray:2.44.0
  workerGroupSpecs:
  - groupName: cpu
    replicas: 2
    minReplicas: 0
    maxReplicas: 8
    rayStartParams: {}
    template:
      spec:
        containers:
        - name: ray-worker
          image: rayproject/ray:2.44.0
status:
  state: ready
  readyWorkerReplicas: 2
  conditions:
  - type: HeadPodReady
    status: "True"
    reason: HeadPodRunningAndReady
    lastTransitionTime: "2025-04-15T13:40:02Z"
  - type: RayClusterProvisioned
    status: "True"
    reason: AllPodRunningAndReadyFirstTime
    lastTransitionTime: "2025-04-15T13:41:10Z"
`,
		deletes: []string{"Namespace//ray-shared-ml"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "namespace", "ray-shared-ml")
	d.exit(1, "STUCK")
	f := d.finalizer("rayclusters.ray.io/ray-cluster -n ray-shared-ml", "ray.io/gcs-ft-redis-cleanup-finalizer")
	d.remover(f, "deployments.apps/kuberay-operator -n kuberay", true)
	d.verdict(f, removerStalled)
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
	// The verdict says why this remover cannot finish here: the namespace refuses new content.
	if f.Stalled == nil || !strings.Contains(strings.Join(append(append([]string{}, f.Stalled.Evidence...), f.Stalled.LikelyReasons...), "\n"), "namespaces/ray-shared-ml") {
		t.Errorf("the stalled verdict does not name the Terminating namespace namespaces/ray-shared-ml, which refuses the Job the cleanup needs")
	}
}
