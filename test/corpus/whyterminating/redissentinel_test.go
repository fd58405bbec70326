package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/OT-CONTAINER-KIT/redis-operator/issues/935 ("Unable to delete
// redis-sentinel when redis-replication was deleted first", redis-operator 0.16.0): the
// RedisSentinel and the RedisReplication it monitors were deleted together (`kubectl delete -f
// <sentinel_replication.yaml>`); the replication went, the sentinel stays with its finalizer
// redisSentinelFinalizer. The operator (running) reconciles a sentinel by first checking the
// RedisReplication its spec.redisSentinelConfig.redisReplicationName names ("Redis Replication
// is specified but not ready, so will reconcile again in 10 seconds") and only then handles
// the finalizer; with the replication gone it requeues forever. "The workaround I found was to
// recreate the redis-replication": with the replication back, the next pass reaches the
// finalizer and the sentinel goes. What holds it is the missing RedisReplication; the operator
// is not to be restarted or reinstalled.
//
// Modelled on the redis-operator Helm chart 0.16.0 (OT-CONTAINER-KIT/helm-charts,
// charts/redis-operator): in namespace ot-operators the ServiceAccount redis-operator, the
// ClusterRole redis-operator (every redis.redis.opstreelabs.in resource with its finalizers and
// status, the core and apps types it manages, abbreviated) and binding, the Deployment
// redis-operator with the chart's labels and image; the CRDs of redis.redis.opstreelabs.in. In
// namespace integration the RedisSentinel redis-sentinel as the operator's example makes it and
// the sentinel StatefulSet it owns.
func TestCorpusRedisSentinelAfterItsReplicationWasDeleted(t *testing.T) {
	ot := func(kind, plural string) crd {
		return crd{group: "redis.redis.opstreelabs.in", kind: kind, plural: plural, namespaced: true, versions: []string{"v1beta2", "v1beta1"}}
	}
	chart := `{control-plane: redis-operator, app.kubernetes.io/name: redis-operator, helm.sh/chart: redis-operator-0.16.0, app.kubernetes.io/managed-by: Helm, app.kubernetes.io/instance: redis-operator, app.kubernetes.io/version: 0.16.0}`
	replay{
		crds: []crd{
			ot("Redis", "redis"),
			ot("RedisCluster", "redisclusters"),
			ot("RedisReplication", "redisreplications"),
			ot("RedisSentinel", "redissentinels"),
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: ot-operators
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: redis-operator
  namespace: ot-operators
  labels: ` + chart + `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: redis-operator
  labels: ` + chart + `
rules:
- apiGroups: ["redis.redis.opstreelabs.in"]
  resources: ["rediss", "redisclusters", "redisreplications", "redis", "rediscluster", "redissentinel", "redissentinels", "redisreplication"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["redis.redis.opstreelabs.in"]
  resources: ["redis/finalizers", "rediscluster/finalizers", "redisclusters/finalizers", "redissentinel/finalizers", "redissentinels/finalizers", "redisreplication/finalizers", "redisreplications/finalizers"]
  verbs: ["update"]
- apiGroups: ["redis.redis.opstreelabs.in"]
  resources: ["redis/status", "rediscluster/status", "redisclusters/status", "redissentinel/status", "redissentinels/status", "redisreplication/status", "redisreplications/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: [""]
  resources: ["secrets", "pods/exec", "pods", "services", "configmaps", "events", "persistentvolumeclaims", "namespaces"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["apps"]
  resources: ["statefulsets"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["policy"]
  resources: ["poddisruptionbudgets"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: redis-operator
  labels: ` + chart + `
subjects:
- kind: ServiceAccount
  name: redis-operator
  namespace: ot-operators
roleRef:
  kind: ClusterRole
  name: redis-operator
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: redis-operator
  namespace: ot-operators
  labels: ` + chart + `
spec:
  replicas: 1
  selector:
    matchLabels: {name: redis-operator}
  template:
    metadata:
      labels: {name: redis-operator}
    spec:
      serviceAccountName: redis-operator
      containers:
      - name: redis-operator
        image: quay.io/opstree/redis-operator:v0.16.0
        command: ["/manager"]
        args: ["--leader-elect"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: integration
---
apiVersion: redis.redis.opstreelabs.in/v1beta2
kind: RedisSentinel
metadata:
  name: redis-sentinel
  namespace: integration
  finalizers: [redisSentinelFinalizer]
spec:
  clusterSize: 3
  podSecurityContext:
    runAsUser: 1000
    fsGroup: 1000
  redisSentinelConfig:
    redisReplicationName: redis-multi-rep
    masterGroupName: myMaster
    redisPort: "6379"
    quorum: "2"
  kubernetesConfig:
    image: quay.io/opstree/redis-sentinel:v7.0.12
    imagePullPolicy: IfNotPresent
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: redis-sentinel-sentinel
  namespace: integration
  labels: {app: redis-sentinel-sentinel, redis_setup_type: sentinel, role: sentinel}
  ownerReferences:
  - apiVersion: redis.redis.opstreelabs.in/v1beta2
    kind: RedisSentinel
    name: redis-sentinel
    controller: true
spec:
  replicas: 3
  serviceName: redis-sentinel-sentinel-headless
  selector:
    matchLabels: {app: redis-sentinel-sentinel, redis_setup_type: sentinel, role: sentinel}
  template:
    metadata:
      labels: {app: redis-sentinel-sentinel, redis_setup_type: sentinel, role: sentinel}
    spec:
      containers:
      - name: redis-sentinel-sentinel
        image: quay.io/opstree/redis-sentinel:v7.0.12
`,
		deletes: []string{"RedisSentinel/integration/redis-sentinel"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "redissentinels.redis.redis.opstreelabs.in", "redis-sentinel", "-n", "integration")
	d.exit(1, "STUCK")
	f := d.finalizer("redissentinels.redis.redis.opstreelabs.in/redis-sentinel -n integration", "redisSentinelFinalizer")
	d.remover(f, "deployments.apps/redis-operator -n ot-operators", true)
	// The operator waits for the RedisReplication the sentinel names, which is gone: creating
	// it again lets the operator reach the finalizer.
	d.blocker(f, "redisreplications.redis.redis.opstreelabs.in/redis-multi-rep -n integration")
	d.notFirstFix(f, readLogs)
	d.never(f, reinstall, restoreController)
}
