package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/RedisLabs/redislabs-docs/pull/2334 (the Redis Enterprise operator's
// release notes, 6.4.2-4, known issue: "When an REC cluster is deployed in a project (namespace)
// and has REDB resources, the REDB resources must be deleted first before the REC can be
// deleted ... The fix is to delete the REDB resources first and the REC second"); the same state
// in RedisLabs/redis-enterprise-k8s-docs#214, where the operator logs "Cannot delete REC:" with
// finalizers [redbfinalizer.redisenterpriseclusters.app.redislabs.com] while the database
// harbordb of cluster harbor-cluster exists. The RedisEnterpriseCluster keeps its finalizer
// redbfinalizer.redisenterpriseclusters.app.redislabs.com as long as a RedisEnterpriseDatabase
// names it (spec.redisEnterpriseCluster.name): the operator runs and waits for the databases to
// go. What holds it is the REDB; deleting it first (the operator then deletes the database in
// the cluster) lets the REC go. Removing the REC's finalizer by hand is the documented last
// resort only when the operator is not working ("add more info that finalizer only fails when
// operator isn't working right", redislabs-docs#1843).
//
// Modelled on the operator's Helm chart redis-enterprise-operator (templates/role.yaml,
// operator.yaml, service_account.yaml, role_binding.yaml; 6.4.2-4): in namespace
// redis-enterprise the ServiceAccount, the namespaced Role redis-enterprise-operator (every
// app.redislabs.com resource with its status and finalizers, secrets, statefulsets, services,
// claims, abbreviated), its binding and the Deployment redis-enterprise-operator with its two
// containers (operator, admission); the CRDs of app.redislabs.com. The cluster rec the REC
// made: its StatefulSet (owned by the REC, image redislabs/redis) and the services rigger
// Deployment, which runs as the cluster's own ServiceAccount rec with a Role that only reads
// the REC. The admission webhook is left out (the replay's pods answer no requests).
func TestCorpusRedisEnterpriseClusterWaitsForItsDatabases(t *testing.T) {
	re := func(kind, plural string, versions ...string) crd {
		return crd{group: "app.redislabs.com", kind: kind, plural: plural, namespaced: true, versions: versions,
			labels: map[string]string{"app": "redis-enterprise"}}
	}
	replay{
		crds: []crd{
			re("RedisEnterpriseCluster", "redisenterpriseclusters", "v1", "v1alpha1"),
			re("RedisEnterpriseDatabase", "redisenterprisedatabases", "v1alpha1"),
			re("RedisEnterpriseRemoteCluster", "redisenterpriseremoteclusters", "v1alpha1"),
			re("RedisEnterpriseActiveActiveDatabase", "redisenterpriseactiveactivedatabases", "v1alpha1"),
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: redis-enterprise
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: redis-enterprise-operator
  namespace: redis-enterprise
  labels: {app: redis-enterprise}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: redis-enterprise-operator
  namespace: redis-enterprise
  labels: {app: redis-enterprise}
rules:
- apiGroups: ["rbac.authorization.k8s.io", ""]
  resources: ["roles", "serviceaccounts", "rolebindings"]
  verbs: ["create", "get", "update", "patch", "delete"]
- apiGroups: ["app.redislabs.com"]
  resources: ["redisenterpriseclusters", "redisenterpriseclusters/status", "redisenterpriseclusters/finalizers", "redisenterprisedatabases", "redisenterprisedatabases/status", "redisenterprisedatabases/finalizers", "redisenterpriseremoteclusters", "redisenterpriseremoteclusters/status", "redisenterpriseremoteclusters/finalizers", "redisenterpriseactiveactivedatabases", "redisenterpriseactiveactivedatabases/status", "redisenterpriseactiveactivedatabases/finalizers"]
  verbs: ["delete", "get", "list", "patch", "create", "update", "watch"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["update", "get", "create", "patch", "delete", "list", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: ["apps"]
  resources: ["deployments", "statefulsets", "replicasets"]
  verbs: ["create", "delete", "get", "patch", "update", "list", "watch"]
- apiGroups: [""]
  resources: ["configmaps", "persistentvolumeclaims", "services"]
  verbs: ["create", "delete", "get", "update", "list", "watch"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "update", "patch", "delete", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: redis-enterprise-operator
  namespace: redis-enterprise
  labels: {app: redis-enterprise}
subjects:
- kind: ServiceAccount
  name: redis-enterprise-operator
roleRef:
  kind: Role
  name: redis-enterprise-operator
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: redis-enterprise-operator
  namespace: redis-enterprise
  labels: {app: redis-enterprise}
spec:
  replicas: 1
  selector:
    matchLabels: {name: redis-enterprise-operator}
  strategy:
    type: Recreate
  template:
    metadata:
      labels: {app: redis-enterprise, name: redis-enterprise-operator}
    spec:
      serviceAccountName: redis-enterprise-operator
      containers:
      - name: redis-enterprise-operator
        image: redislabs/operator:6.4.2-4
        command: ["operator-root", "operator"]
        env:
        - {name: OPERATOR_NAME, value: redis-enterprise-operator}
        ports:
        - containerPort: 8080
      - name: admission
        image: redislabs/operator:6.4.2-4
        command: ["operator-root", "admission"]
        ports:
        - containerPort: 8443
`,
		objects: `
apiVersion: app.redislabs.com/v1
kind: RedisEnterpriseCluster
metadata:
  name: rec
  namespace: redis-enterprise
  finalizers: [redbfinalizer.redisenterpriseclusters.app.redislabs.com]
spec:
  nodes: 3
  redisEnterpriseNodeResources:
    limits: {cpu: "2", memory: 4Gi}
    requests: {cpu: "2", memory: 4Gi}
status:
  state: Running
  specStatus: Valid
  modules:
  - {displayName: RediSearch 2, name: search, versions: ["2.6.6"]}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: rec
  namespace: redis-enterprise
  labels: {app: redis-enterprise, redis.io/cluster: rec}
  ownerReferences:
  - apiVersion: app.redislabs.com/v1
    kind: RedisEnterpriseCluster
    name: rec
    controller: true
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: rec
  namespace: redis-enterprise
  labels: {app: redis-enterprise, redis.io/cluster: rec}
  ownerReferences:
  - apiVersion: app.redislabs.com/v1
    kind: RedisEnterpriseCluster
    name: rec
    controller: true
rules:
- apiGroups: ["app.redislabs.com"]
  resources: ["redisenterpriseclusters"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["services", "endpoints", "pods"]
  verbs: ["get", "list", "watch", "update", "patch", "create", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: rec
  namespace: redis-enterprise
  labels: {app: redis-enterprise, redis.io/cluster: rec}
  ownerReferences:
  - apiVersion: app.redislabs.com/v1
    kind: RedisEnterpriseCluster
    name: rec
    controller: true
subjects:
- kind: ServiceAccount
  name: rec
roleRef:
  kind: Role
  name: rec
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: rec
  namespace: redis-enterprise
  labels: {app: redis-enterprise, redis.io/cluster: rec}
  ownerReferences:
  - apiVersion: app.redislabs.com/v1
    kind: RedisEnterpriseCluster
    name: rec
    controller: true
    blockOwnerDeletion: true
spec:
  replicas: 3
  serviceName: rec
  selector:
    matchLabels: {app: redis-enterprise, redis.io/cluster: rec, redis.io/role: node}
  template:
    metadata:
      labels: {app: redis-enterprise, redis.io/cluster: rec, redis.io/role: node}
    spec:
      serviceAccountName: rec
      containers:
      - name: redis-enterprise-node
        image: redislabs/redis:6.4.2-43
      - name: bootstrapper
        image: redislabs/operator:6.4.2-4
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: rec-services-rigger
  namespace: redis-enterprise
  labels: {app: redis-enterprise, redis.io/cluster: rec}
  ownerReferences:
  - apiVersion: app.redislabs.com/v1
    kind: RedisEnterpriseCluster
    name: rec
    controller: true
    blockOwnerDeletion: true
spec:
  replicas: 1
  selector:
    matchLabels: {app: redis-enterprise, redis.io/cluster: rec, redis.io/role: services-rigger}
  template:
    metadata:
      labels: {app: redis-enterprise, redis.io/cluster: rec, redis.io/role: services-rigger}
    spec:
      serviceAccountName: rec
      containers:
      - name: services-rigger
        image: redislabs/k8s-controller:6.4.2-4
---
apiVersion: app.redislabs.com/v1alpha1
kind: RedisEnterpriseDatabase
metadata:
  name: harbordb
  namespace: redis-enterprise
  finalizers: [finalizer.redisenterprisedatabases.app.redislabs.com]
spec:
  redisEnterpriseCluster:
    name: rec
  memorySize: 100MB
  shardCount: 1
status:
  status: active
  specStatus: Valid
  databaseUID: "1"
  internalEndpoints:
  - {host: redis-14095.rec.redis-enterprise.svc.cluster.local, port: 14095}
`,
		deletes: []string{"RedisEnterpriseCluster/redis-enterprise/rec"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "redisenterpriseclusters.app.redislabs.com", "rec", "-n", "redis-enterprise")
	d.exit(1, "STUCK")
	f := d.finalizer("redisenterpriseclusters.app.redislabs.com/rec -n redis-enterprise", "redbfinalizer.redisenterpriseclusters.app.redislabs.com")
	d.remover(f, "deployments.apps/redis-enterprise-operator -n redis-enterprise", true)
	d.notRemover(f, "deployments.apps/rec-services-rigger -n redis-enterprise")
	// The operator runs and waits for the database that names the cluster: delete it first.
	d.verdict(f, blockedByObjects)
	d.blocker(f, "redisenterprisedatabases.app.redislabs.com/harbordb -n redis-enterprise")
	d.notFirstFix(f, stripFinalizer, readLogs)
	d.never(f, reinstall, restoreController)
}
