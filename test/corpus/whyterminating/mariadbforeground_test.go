package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/mariadb-operator/mariadb-operator/issues/1223 ("Cannot delete MariaDB
// CR with propagation policy foreground", mariadb-operator 0.38): a MariaDB deleted with
// foreground propagation waits (foregroundDeletion) for its dependents, among them the "sql" CRs
// (User, Database) that carry blockOwnerDeletion: true. "This happens when the StatefulSet is
// deleted first. In this case the "sql" CRs like user and database cannot be removed as they
// have a finalizer": the operator (running) removes user.k8s.mariadb.com/finalizer and
// database.k8s.mariadb.com/finalizer only after it has dropped the user and the database in the
// server of the MariaDB they refer to (spec.mariaDbRef), which is being deleted and has no
// server left. The fix (#1224) makes the operator drop those finalizers while their MariaDB is
// being deleted; for a MariaDB already stuck, the way out is to remove the finalizers of the
// User and the Database by hand (nothing is left: their server is gone), never the MariaDB's
// own foregroundDeletion.
//
// Modelled on the mariadb-operator Helm chart (0.38.0): namespace mariadb-operator, the
// ServiceAccount, ClusterRole (its rules on k8s.mariadb.com and the core and apps types it
// manages, abbreviated) and binding, the Deployment mariadb-operator with the chart's labels and
// image; the CRDs of k8s.mariadb.com. The webhook and cert-controller Deployments are left out
// (the replay's pods answer no requests). The MariaDB's StatefulSet and pods are gone already, as
// in the report.
func TestCorpusMariaDBForegroundDeletionHeldBySQLFinalizers(t *testing.T) {
	chart := map[string]string{"app.kubernetes.io/name": "mariadb-operator", "app.kubernetes.io/instance": "mariadb-operator", "app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "mariadb-operator-crds-0.38.0"}
	replay{
		crds: []crd{
			{group: "k8s.mariadb.com", kind: "MariaDB", plural: "mariadbs", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
			{group: "k8s.mariadb.com", kind: "User", plural: "users", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
			{group: "k8s.mariadb.com", kind: "Database", plural: "databases", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
			{group: "k8s.mariadb.com", kind: "Grant", plural: "grants", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
			{group: "k8s.mariadb.com", kind: "Backup", plural: "backups", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: mariadb-operator
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: mariadb-operator
  namespace: mariadb-operator
  labels:
    app.kubernetes.io/name: mariadb-operator
    app.kubernetes.io/instance: mariadb-operator
    helm.sh/chart: mariadb-operator-0.38.0
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: mariadb-operator
  labels:
    app.kubernetes.io/name: mariadb-operator
    app.kubernetes.io/instance: mariadb-operator
    helm.sh/chart: mariadb-operator-0.38.0
rules:
- apiGroups: [""]
  resources: ["configmaps", "endpoints", "events", "persistentvolumeclaims", "pods", "secrets", "serviceaccounts", "services"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["apps"]
  resources: ["statefulsets", "deployments"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["batch"]
  resources: ["cronjobs", "jobs"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["k8s.mariadb.com"]
  resources: ["backups", "connections", "databases", "grants", "mariadbs", "maxscales", "restores", "sqljobs", "users"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["k8s.mariadb.com"]
  resources: ["backups/finalizers", "databases/finalizers", "grants/finalizers", "mariadbs/finalizers", "users/finalizers"]
  verbs: ["update"]
- apiGroups: ["k8s.mariadb.com"]
  resources: ["backups/status", "databases/status", "grants/status", "mariadbs/status", "users/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["rolebindings", "roles", "clusterrolebindings"]
  verbs: ["create", "list", "patch", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: mariadb-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: mariadb-operator
subjects:
- kind: ServiceAccount
  name: mariadb-operator
  namespace: mariadb-operator
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: mariadb-operator
  namespace: mariadb-operator
  labels:
    app.kubernetes.io/name: mariadb-operator
    app.kubernetes.io/instance: mariadb-operator
    app.kubernetes.io/version: 0.38.0
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: mariadb-operator-0.38.0
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: mariadb-operator
      app.kubernetes.io/instance: mariadb-operator
  template:
    metadata:
      labels:
        app.kubernetes.io/name: mariadb-operator
        app.kubernetes.io/instance: mariadb-operator
    spec:
      serviceAccountName: mariadb-operator
      containers:
      - name: controller
        image: docker-registry3.mariadb.com/mariadb-operator/mariadb-operator:0.38.0
        args: ["--metrics-addr=:8080", "--log-level=INFO", "--leader-elect"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: k8s.mariadb.com/v1alpha1
kind: MariaDB
metadata:
  name: mariadb
  namespace: shop
  finalizers:
  - foregroundDeletion
spec:
  rootPasswordSecretKeyRef:
    name: mariadb-root
    key: password
  storage:
    size: 1Gi
  replicas: 1
status:
  currentReplicas: 0
  conditions:
  - type: Ready
    status: "False"
    reason: StatefulSetNotReady
    message: Not ready
    lastTransitionTime: "2025-03-29T09:12:40Z"
---
apiVersion: k8s.mariadb.com/v1alpha1
kind: User
metadata:
  name: shop-user
  namespace: shop
  finalizers:
  - user.k8s.mariadb.com/finalizer
  ownerReferences:
  - apiVersion: k8s.mariadb.com/v1alpha1
    kind: MariaDB
    name: mariadb
    blockOwnerDeletion: true
spec:
  mariaDbRef:
    name: mariadb
  passwordSecretKeyRef:
    name: shop-user-password
    key: password
  maxUserConnections: 20
  host: "%"
status:
  conditions:
  - type: Ready
    status: "True"
    reason: Created
    message: Created
    lastTransitionTime: "2025-03-20T10:01:12Z"
---
apiVersion: k8s.mariadb.com/v1alpha1
kind: Database
metadata:
  name: shop
  namespace: shop
  finalizers:
  - database.k8s.mariadb.com/finalizer
  ownerReferences:
  - apiVersion: k8s.mariadb.com/v1alpha1
    kind: MariaDB
    name: mariadb
    blockOwnerDeletion: true
spec:
  mariaDbRef:
    name: mariadb
  characterSet: utf8
  collate: utf8_general_ci
status:
  conditions:
  - type: Ready
    status: "True"
    reason: Created
    message: Created
    lastTransitionTime: "2025-03-20T10:01:10Z"
`,
		deletes: []string{"MariaDB/shop/mariadb", "User/shop/shop-user", "Database/shop/shop"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "mariadbs.k8s.mariadb.com", "mariadb", "-n", "shop")
	d.exit(1, "STUCK")
	f := d.finalizer("mariadbs.k8s.mariadb.com/mariadb -n shop", "foregroundDeletion")
	// The MariaDB waits for its blocking dependents; they are the blockers, and its own
	// foregroundDeletion is not what to remove.
	d.blocker(f, "users.k8s.mariadb.com/shop-user -n shop")
	d.blocker(f, "databases.k8s.mariadb.com/shop -n shop")
	d.notFirstFix(f, stripFinalizer)
	for _, c := range []struct{ ref, name string }{
		{"users.k8s.mariadb.com/shop-user -n shop", "user.k8s.mariadb.com/finalizer"},
		{"databases.k8s.mariadb.com/shop -n shop", "database.k8s.mariadb.com/finalizer"},
	} {
		u := d.finalizer(c.ref, c.name)
		d.remover(u, "deployments.apps/mariadb-operator -n mariadb-operator", true)
		// The running operator cannot finish: the MariaDB it must drop them in is being deleted.
		d.names(u, "mariadbs.k8s.mariadb.com/mariadb -n shop")
		d.offers(u, stripFinalizer)
		d.notFirstFix(u, readLogs)
		d.never(u, reinstall, restoreController)
	}
}
