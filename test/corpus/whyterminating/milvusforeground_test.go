package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/zilliztech/milvus-operator/issues/52 ("The milvus.milvus.io stunk in
// `Deleting` status"): `kubectl delete -f milvus-sample.yml` hangs; the Milvus stays in status
// Deleting for hours, `--force --grace-period=0` does not help, and the milvus-operator pods log
// no error. The maintainer: "It's a bug of assuming foreground deletion. it's fixed in #51 ...
// For now you can delete it by `kubectl delete --cascade=foreground`." The operator (running)
// removes milvus.milvus.io/finalizer only once the Milvus's own workloads have stopped, which
// it expects the garbage collector to do first (foreground deletion); a default (background)
// delete leaves the owned Deployment running until the Milvus is gone, so each waits for the
// other. The way out: delete it again with foreground propagation (the API server then adds
// foregroundDeletion, the collector deletes the dependents first, the operator sees them stop
// and removes its finalizer), or run the fixed operator (v0.8.6). Stripping the finalizer skips
// the operator's cleanup of the dependencies it installed through Helm (etcd, MinIO).
//
// Modelled on the milvus-operator Helm chart (0.8.5, the release of the report; its ClusterRole
// is config/rbac/role.yaml, abbreviated to the rules that bear on the case): in namespace
// milvus-operator the ServiceAccount, the ClusterRole milvus-operator and its binding, the
// Deployment milvus-operator with the chart's labels and image; the CRDs of milvus.io. The
// Milvus milvus-sample in standalone mode as config/samples/milvus_default.yaml makes it, with
// the Deployment and Service the operator made for it (owned by it) and the etcd StatefulSet
// and MinIO Deployment it installed as Helm releases (milvus-sample-etcd, milvus-sample-minio:
// not owned, labelled by Helm).
func TestCorpusMilvusDeletingAssumesForegroundDeletion(t *testing.T) {
	mv := func(kind, plural string, versions ...string) crd {
		return crd{group: "milvus.io", kind: kind, plural: plural, namespaced: true, versions: versions}
	}
	chart := `{app.kubernetes.io/name: milvus-operator, app.kubernetes.io/instance: milvus-operator, app.kubernetes.io/managed-by: Helm, helm.sh/chart: milvus-operator-0.8.5}`
	owned := `
  ownerReferences:
  - apiVersion: milvus.io/v1beta1
    kind: Milvus
    name: milvus-sample
    controller: true
    blockOwnerDeletion: true`
	replay{
		crds: []crd{
			mv("Milvus", "milvuses", "v1beta1", "v1alpha1"),
			mv("MilvusCluster", "milvusclusters", "v1alpha1"),
			mv("MilvusUpgrade", "milvusupgrades", "v1beta1"),
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: milvus-operator
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: milvus-operator
  namespace: milvus-operator
  labels: ` + chart + `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: milvus-operator
  labels: ` + chart + `
rules:
- apiGroups: [""]
  resources: ["*"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["apps"]
  resources: ["*"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["batch"]
  resources: ["jobs"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["milvus.io"]
  resources: ["milvuses", "milvusclusters", "milvusupgrades"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["milvus.io"]
  resources: ["milvuses/finalizers", "milvusclusters/finalizers", "milvusupgrades/finalizers"]
  verbs: ["update"]
- apiGroups: ["milvus.io"]
  resources: ["milvuses/status", "milvusclusters/status", "milvusupgrades/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["policy"]
  resources: ["poddisruptionbudgets"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["clusterrolebindings", "clusterroles", "rolebindings", "roles"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: milvus-operator
  labels: ` + chart + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: milvus-operator
subjects:
- kind: ServiceAccount
  name: milvus-operator
  namespace: milvus-operator
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: milvus-operator
  namespace: milvus-operator
  labels: ` + chart + `
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: milvus-operator, app.kubernetes.io/instance: milvus-operator}
  template:
    metadata:
      labels: {app.kubernetes.io/name: milvus-operator, app.kubernetes.io/instance: milvus-operator}
    spec:
      serviceAccountName: milvus-operator
      containers:
      - name: manager
        image: milvusdb/milvus-operator:v0.8.5
        command: ["/manager"]
        args: ["-namespace", "milvus-operator", "-name", "milvus-operator", "--health-probe-bind-address=:8081", "--metrics-bind-address=:8080", "--leader-elect"]
`,
		objects: `
apiVersion: milvus.io/v1beta1
kind: Milvus
metadata:
  name: milvus-sample
  namespace: default
  labels: {app: milvus}
  finalizers: [milvus.milvus.io/finalizer]
spec:
  mode: standalone
  components:
    image: milvusdb/milvus:v2.3.3
  dependencies:
    etcd:
      inCluster:
        values:
          replicaCount: 1
        deletionPolicy: Delete
        pvcDeletion: true
    storage:
      inCluster:
        values:
          mode: standalone
        deletionPolicy: Delete
        pvcDeletion: true
status:
  status: Deleting
  observedGeneration: 1
  conditions:
  - {type: EtcdReady, status: "True", reason: EtcdReady, message: All etcd endpoints are healthy, lastTransitionTime: "2023-12-01T07:40:12Z"}
  - {type: StorageReady, status: "True", reason: StorageReady, lastTransitionTime: "2023-12-01T07:40:40Z"}
  - {type: MilvusReady, status: "True", reason: ReasonMilvusHealthy, message: Milvus components are all updated, lastTransitionTime: "2023-12-01T07:42:03Z"}
  - {type: MilvusUpdated, status: "True", reason: MilvusComponentsUpdated, lastTransitionTime: "2023-12-01T07:42:03Z"}
  endpoint: milvus-sample-milvus.default:19530
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: milvus-sample-milvus-standalone
  namespace: default
  labels: {app.kubernetes.io/instance: milvus-sample, app.kubernetes.io/managed-by: milvus-operator, app.kubernetes.io/name: milvus, app.kubernetes.io/component: standalone}` + owned + `
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/instance: milvus-sample, app.kubernetes.io/name: milvus, app.kubernetes.io/component: standalone}
  template:
    metadata:
      labels: {app.kubernetes.io/instance: milvus-sample, app.kubernetes.io/name: milvus, app.kubernetes.io/component: standalone}
    spec:
      containers:
      - name: standalone
        image: milvusdb/milvus:v2.3.3
        args: ["milvus", "run", "standalone"]
---
apiVersion: v1
kind: Service
metadata:
  name: milvus-sample-milvus
  namespace: default
  labels: {app.kubernetes.io/instance: milvus-sample, app.kubernetes.io/managed-by: milvus-operator, app.kubernetes.io/name: milvus}` + owned + `
spec:
  selector: {app.kubernetes.io/instance: milvus-sample, app.kubernetes.io/name: milvus}
  ports:
  - {name: milvus, port: 19530, targetPort: 19530}
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: milvus-sample-etcd
  namespace: default
  labels: {app.kubernetes.io/instance: milvus-sample-etcd, app.kubernetes.io/managed-by: Helm, app.kubernetes.io/name: etcd, helm.sh/chart: etcd-6.3.3}
spec:
  replicas: 1
  serviceName: milvus-sample-etcd-headless
  selector:
    matchLabels: {app.kubernetes.io/instance: milvus-sample-etcd, app.kubernetes.io/name: etcd}
  template:
    metadata:
      labels: {app.kubernetes.io/instance: milvus-sample-etcd, app.kubernetes.io/name: etcd}
    spec:
      containers:
      - name: etcd
        image: milvusdb/etcd:3.5.5-r2
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: milvus-sample-minio
  namespace: default
  labels: {app: minio, release: milvus-sample-minio, heritage: Helm, chart: minio-8.0.17}
spec:
  replicas: 1
  selector:
    matchLabels: {app: minio, release: milvus-sample-minio}
  template:
    metadata:
      labels: {app: minio, release: milvus-sample-minio}
    spec:
      containers:
      - name: minio
        image: minio/minio:RELEASE.2023-03-20T20-16-18Z
`,
		deletes: []string{"Milvus/default/milvus-sample"},
	}.run(t)

	d := diagnoseAfter(t, 90*time.Minute, "milvuses.milvus.io", "milvus-sample", "-n", "default")
	d.exit(1, "STUCK")
	f := d.finalizer("milvuses.milvus.io/milvus-sample -n default", "milvus.milvus.io/finalizer")
	d.remover(f, "deployments.apps/milvus-operator -n milvus-operator", true)
	// The operator waits for the Milvus's own workloads to stop, which a background delete
	// never does while the Milvus exists: delete it again with foreground propagation.
	d.mentions(f, "--cascade=foreground")
	d.notFirstFix(f, stripFinalizer, readLogs)
	d.never(f, reinstall, restoreController)
}
