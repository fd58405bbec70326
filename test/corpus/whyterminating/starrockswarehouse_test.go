package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/StarRocks/starrocks-kubernetes-operator/issues/622 ("The deletion
// process for statefulset of warehouse is stuck", operator 1.9.10): to restart a warehouse's
// compute nodes faster than the one-pod-at-a-time rolling update, the StatefulSet is deleted
// directly; "the deletion operation of the Statefulset object is stuck because the Operator did
// not handle the Finalizer" starrocks.com.starrockswarehouse/protection. The operator (running)
// puts that finalizer on the warehouse's CN StatefulSet and removes it only while it processes
// the deletion of the StarRocksWarehouse that owns it; the warehouse is not being deleted, so the
// finalizer stays. The ways out: remove the finalizer by hand (the operator makes the
// StatefulSet again from the live warehouse, which is what the deletion was for), or delete the
// warehouse itself if it is to go; the operator's later releases handle a direct deletion.
//
// Modelled on the kube-starrocks Helm chart's operator subchart (1.9.10): in namespace starrocks
// the ServiceAccount starrocks, the ClusterRole kube-starrocks-operator (starrocksclusters and
// starrockswarehouses with their finalizers and status, the apps and core types it manages,
// abbreviated) and binding, the Deployment kube-starrocks-operator with the chart's labels and
// image; the CRDs of starrocks.com. The cluster kube-starrocks (FE and CN StatefulSets, owned by
// it), the warehouse wh1 of that cluster and its CN StatefulSet wh1-warehouse-cn, owned by the
// warehouse and carrying the protection finalizer.
func TestCorpusStarRocksWarehouseStatefulSetDeletedDirectly(t *testing.T) {
	chart := `{app.kubernetes.io/name: operator, app.kubernetes.io/instance: kube-starrocks, app.kubernetes.io/managed-by: Helm, helm.sh/chart: operator-1.9.10}`
	replay{
		crds: []crd{
			{group: "starrocks.com", kind: "StarRocksCluster", plural: "starrocksclusters", namespaced: true, versions: []string{"v1"}},
			{group: "starrocks.com", kind: "StarRocksWarehouse", plural: "starrockswarehouses", namespaced: true, versions: []string{"v1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: starrocks
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: starrocks
  namespace: starrocks
  labels: ` + chart + `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kube-starrocks-operator
  labels: ` + chart + `
rules:
- apiGroups: ["apps"]
  resources: ["deployments", "statefulsets"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["autoscaling"]
  resources: ["horizontalpodautoscalers"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["configmaps", "serviceaccounts", "services", "endpoints", "pods", "secrets"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["starrocks.com"]
  resources: ["starrocksclusters", "starrockswarehouses"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["starrocks.com"]
  resources: ["starrocksclusters/finalizers", "starrockswarehouses/finalizers"]
  verbs: ["update"]
- apiGroups: ["starrocks.com"]
  resources: ["starrocksclusters/status", "starrockswarehouses/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kube-starrocks-operator
  labels: ` + chart + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: kube-starrocks-operator
subjects:
- kind: ServiceAccount
  name: starrocks
  namespace: starrocks
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kube-starrocks-operator
  namespace: starrocks
  labels: ` + chart + `
spec:
  replicas: 1
  selector:
    matchLabels: {app: kube-starrocks-operator}
  template:
    metadata:
      labels: {app: kube-starrocks-operator, version: v1.9.10}
    spec:
      serviceAccountName: starrocks
      containers:
      - name: manager
        image: starrocks/operator:v1.9.10
        command: ["/sroperator"]
        args: ["--leader-elect"]
`,
		objects: `
apiVersion: starrocks.com/v1
kind: StarRocksCluster
metadata:
  name: kube-starrocks
  namespace: starrocks
spec:
  starRocksFeSpec:
    image: starrocks/fe-ubuntu:3.3-latest
    replicas: 3
    runAsNonRoot: true
  starRocksCnSpec:
    image: starrocks/cn-ubuntu:3.3-latest
    replicas: 1
status:
  phase: running
  starRocksFeStatus: {phase: running, serviceName: kube-starrocks-fe-service}
  starRocksCnStatus: {phase: running, serviceName: kube-starrocks-cn-service}
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: kube-starrocks-fe
  namespace: starrocks
  labels: {app.kubernetes.io/component: fe, app.starrocks.ownerreference/name: kube-starrocks-fe}
  ownerReferences:
  - apiVersion: starrocks.com/v1
    kind: StarRocksCluster
    name: kube-starrocks
    controller: true
    blockOwnerDeletion: true
spec:
  replicas: 3
  serviceName: kube-starrocks-fe-search
  selector:
    matchLabels: {app.kubernetes.io/component: fe, app.starrocks.ownerreference/name: kube-starrocks-fe}
  template:
    metadata:
      labels: {app.kubernetes.io/component: fe, app.starrocks.ownerreference/name: kube-starrocks-fe}
    spec:
      containers:
      - name: fe
        image: starrocks/fe-ubuntu:3.3-latest
---
apiVersion: starrocks.com/v1
kind: StarRocksWarehouse
metadata:
  name: wh1
  namespace: starrocks
spec:
  starRocksCluster: kube-starrocks
  template:
    image: starrocks/cn-ubuntu:3.3-latest
    replicas: 3
status:
  phase: running
  serviceName: wh1-warehouse-cn-service
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: wh1-warehouse-cn
  namespace: starrocks
  labels: {app.kubernetes.io/component: cn, app.starrocks.ownerreference/name: wh1-warehouse-cn}
  finalizers: [starrocks.com.starrockswarehouse/protection]
  ownerReferences:
  - apiVersion: starrocks.com/v1
    kind: StarRocksWarehouse
    name: wh1
    controller: true
    blockOwnerDeletion: true
spec:
  replicas: 3
  serviceName: wh1-warehouse-cn-search
  selector:
    matchLabels: {app.kubernetes.io/component: cn, app.starrocks.ownerreference/name: wh1-warehouse-cn}
  template:
    metadata:
      labels: {app.kubernetes.io/component: cn, app.starrocks.ownerreference/name: wh1-warehouse-cn}
    spec:
      containers:
      - name: cn
        image: starrocks/cn-ubuntu:3.3-latest
`,
		deletes: []string{"StatefulSet/starrocks/wh1-warehouse-cn"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "statefulsets.apps", "wh1-warehouse-cn", "-n", "starrocks")
	d.exit(1, "STUCK")
	f := d.finalizer("statefulsets.apps/wh1-warehouse-cn -n starrocks", "starrocks.com.starrockswarehouse/protection")
	d.remover(f, "deployments.apps/kube-starrocks-operator -n starrocks", true)
	// The operator removes it only while the owning warehouse is being deleted, and the
	// warehouse lives: the diagnosis names it, and the finalizer is removed by hand (the
	// operator makes the StatefulSet again) or the warehouse is deleted.
	d.names(f, "starrockswarehouses.starrocks.com/wh1 -n starrocks")
	d.offers(f, stripFinalizer)
	d.notFirstFix(f, readLogs)
	d.never(f, reinstall, restoreController)
}
