package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/openeverest/openeverest/issues/601 ("Unable to delete any DB
// cluster after upgrading from v1.0.1 to v1.1.0"; cause and fix in
// openeverest/openeverest-operator#491, "Fix DBs stuck in the "Deleting" state"): database
// clusters created under Everest 1.0.1 and deleted after the upgrade to 1.1.0 stay in
// "Deleting". "In PR #428 we removed the dbb-cleanup finalizer because we introduced owner
// references that automatically delete the objects. However, DBs created with previous versions
// of the everest-operator will still feature the dbb-cleanup finalizer which needs to be
// properly handled otherwise the DB will be stuck". The operator of 1.1.0 runs and handles
// everest.percona.com/upstream-cluster-cleanup, which the databases it created carry; nothing
// running handles everest.percona.com/dbb-cleanup any more. The fix restores its handling
// (1.1.1); on 1.1.0 the way out is to remove that one finalizer by hand: the backups it cleaned
// up are owned by the DatabaseCluster since 1.1.0 and go with it.
//
// Modelled on the Everest Helm chart of 1.1.0 (percona-helm-charts, charts/everest): in
// namespace everest-system the operator's ServiceAccount everest-operator-controller-manager,
// its ClusterRole (every everest.percona.com resource with finalizers and status, the Percona
// operators' groups it drives, the core types, abbreviated) and binding and the Deployment
// everest-operator-controller-manager; the API server everest-server with its own account
// everest-admin, whose ClusterRole lets it create and update the DatabaseClusters it serves to
// the UI; the CRDs of everest.percona.com. In the database namespace everest, the Percona
// Server for MongoDB operator the Everest install puts there (its Role covers psmdb.percona.com
// only), the database mongodb-gl8 made under 1.0.1 (its upstream cluster already gone) and
// postgresql-k3x, made after the upgrade.
func TestCorpusEverestDatabaseOfAnOlderOperatorKeepsItsBackupCleanupFinalizer(t *testing.T) {
	ev := func(kind, plural string) crd {
		return crd{group: "everest.percona.com", kind: kind, plural: plural, namespaced: true, versions: []string{"v1alpha1"}}
	}
	chart := `{app.kubernetes.io/name: everest, app.kubernetes.io/instance: everest, app.kubernetes.io/managed-by: Helm, helm.sh/chart: everest-1.1.0}`
	replay{
		crds: []crd{
			ev("DatabaseCluster", "databaseclusters"),
			ev("DatabaseClusterBackup", "databaseclusterbackups"),
			ev("DatabaseClusterRestore", "databaseclusterrestores"),
			ev("DatabaseEngine", "databaseengines"),
			ev("BackupStorage", "backupstorages"),
			ev("MonitoringConfig", "monitoringconfigs"),
			{group: "psmdb.percona.com", kind: "PerconaServerMongoDB", plural: "perconaservermongodbs", namespaced: true, versions: []string{"v1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: everest-system
---
apiVersion: v1
kind: Namespace
metadata:
  name: everest
  labels: {app.kubernetes.io/managed-by: everest}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: everest-operator-controller-manager
  namespace: everest-system
  labels: ` + chart + `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: everest-operator-manager-role
  labels: ` + chart + `
rules:
- apiGroups: ["everest.percona.com"]
  resources: ["databaseclusters", "databaseclusterbackups", "databaseclusterrestores", "databaseengines", "backupstorages", "monitoringconfigs"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["everest.percona.com"]
  resources: ["databaseclusters/finalizers", "databaseclusterbackups/finalizers", "databaseclusterrestores/finalizers", "databaseengines/finalizers", "backupstorages/finalizers", "monitoringconfigs/finalizers"]
  verbs: ["update"]
- apiGroups: ["everest.percona.com"]
  resources: ["databaseclusters/status", "databaseclusterbackups/status", "databaseclusterrestores/status", "databaseengines/status", "backupstorages/status", "monitoringconfigs/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["psmdb.percona.com", "pxc.percona.com", "pgv2.percona.com"]
  resources: ["*"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["secrets", "configmaps", "namespaces"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["get", "list", "watch", "update", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: everest-operator-manager-rolebinding
  labels: ` + chart + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: everest-operator-manager-role
subjects:
- kind: ServiceAccount
  name: everest-operator-controller-manager
  namespace: everest-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: everest-operator-controller-manager
  namespace: everest-system
  labels: {app.kubernetes.io/name: everest-operator, app.kubernetes.io/instance: everest, app.kubernetes.io/managed-by: Helm, helm.sh/chart: everest-1.1.0, control-plane: controller-manager}
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: everest-operator, control-plane: controller-manager}
  template:
    metadata:
      labels: {app.kubernetes.io/name: everest-operator, control-plane: controller-manager}
    spec:
      serviceAccountName: everest-operator-controller-manager
      containers:
      - name: manager
        image: docker.io/percona/everest-operator:1.1.0
        command: ["/manager"]
        args: ["--health-probe-bind-address=:8081", "--metrics-bind-address=127.0.0.1:8080", "--leader-elect"]
        env:
        - {name: SYSTEM_NAMESPACE, value: everest-system}
        - {name: MONITORING_NAMESPACE, value: everest-monitoring}
        - {name: DB_NAMESPACES, value: everest}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: everest-admin
  namespace: everest-system
  labels: ` + chart + `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: everest-admin-cluster-role
  labels: ` + chart + `
rules:
- apiGroups: ["everest.percona.com"]
  resources: ["databaseclusters", "databaseclusterbackups", "databaseclusterrestores", "databaseengines", "backupstorages", "monitoringconfigs"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["secrets", "namespaces", "configmaps"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: everest-admin-cluster-role-binding
  labels: ` + chart + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: everest-admin-cluster-role
subjects:
- kind: ServiceAccount
  name: everest-admin
  namespace: everest-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: everest-server
  namespace: everest-system
  labels: {app.kubernetes.io/name: everest-server, app.kubernetes.io/instance: everest, app.kubernetes.io/managed-by: Helm, helm.sh/chart: everest-1.1.0, app.kubernetes.io/component: server}
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: everest-server, app.kubernetes.io/component: server}
  template:
    metadata:
      labels: {app.kubernetes.io/name: everest-server, app.kubernetes.io/component: server}
    spec:
      serviceAccountName: everest-admin
      containers:
      - name: everest
        image: docker.io/percona/everest:1.1.0
        ports:
        - containerPort: 8080
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: percona-server-mongodb-operator
  namespace: everest
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: percona-server-mongodb-operator
  namespace: everest
rules:
- apiGroups: ["psmdb.percona.com"]
  resources: ["perconaservermongodbs", "perconaservermongodbs/status", "perconaservermongodbs/finalizers", "perconaservermongodbbackups", "perconaservermongodbbackups/status", "perconaservermongodbbackups/finalizers", "perconaservermongodbrestores", "perconaservermongodbrestores/status"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["", "apps"]
  resources: ["pods", "services", "secrets", "configmaps", "persistentvolumeclaims", "statefulsets", "deployments"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: service-account-percona-server-mongodb-operator
  namespace: everest
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: percona-server-mongodb-operator
subjects:
- kind: ServiceAccount
  name: percona-server-mongodb-operator
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: percona-server-mongodb-operator
  namespace: everest
  labels: {app.kubernetes.io/name: percona-server-mongodb-operator, app.kubernetes.io/instance: percona-server-mongodb-operator, app.kubernetes.io/component: operator}
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: percona-server-mongodb-operator, app.kubernetes.io/component: operator}
  template:
    metadata:
      labels: {app.kubernetes.io/name: percona-server-mongodb-operator, app.kubernetes.io/component: operator}
    spec:
      serviceAccountName: percona-server-mongodb-operator
      containers:
      - name: percona-server-mongodb-operator
        image: percona/percona-server-mongodb-operator:1.16.2
        command: ["percona-server-mongodb-operator"]
`,
		objects: `
apiVersion: everest.percona.com/v1alpha1
kind: DatabaseCluster
metadata:
  name: mongodb-gl8
  namespace: everest
  finalizers: [everest.percona.com/dbb-cleanup]
spec:
  engine:
    type: psmdb
    version: 6.0.15-12
    replicas: 3
    storage:
      size: 25Gi
    resources:
      cpu: "1"
      memory: 4G
  proxy:
    expose:
      type: external
status:
  status: deleting
  hostname: mongodb-gl8-rs0.everest.svc.cluster.local
  port: 27017
  crVersion: 1.16.2
---
apiVersion: everest.percona.com/v1alpha1
kind: DatabaseCluster
metadata:
  name: postgresql-k3x
  namespace: everest
  finalizers: [everest.percona.com/upstream-cluster-cleanup]
spec:
  engine:
    type: postgresql
    version: "16.3"
    replicas: 1
    storage:
      size: 25Gi
    resources:
      cpu: "1"
      memory: 2G
  proxy:
    type: pgbouncer
    replicas: 1
status:
  status: ready
  ready: 2
  size: 2
  hostname: postgresql-k3x-pgbouncer.everest.svc
  port: 5432
  crVersion: 2.4.1
`,
		deletes: []string{"DatabaseCluster/everest/mongodb-gl8"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "databaseclusters.everest.percona.com", "mongodb-gl8", "-n", "everest")
	d.exit(1, "STUCK")
	f := d.finalizer("databaseclusters.everest.percona.com/mongodb-gl8 -n everest", "everest.percona.com/dbb-cleanup")
	d.notRemover(f, "deployments.apps/everest-server -n everest-system")
	d.notRemover(f, "deployments.apps/percona-server-mongodb-operator -n everest")
	// The running operator no longer handles this finalizer (its databases carry
	// upstream-cluster-cleanup): removing it by hand is the way out, not the logs.
	d.verdict(f, finalizerOrphaned)
	d.firstFix(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
