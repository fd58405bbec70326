//go:build corpusopen

package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/movetokube/postgres-operator/issues/44 ("Can't delete PostgresUser
// CR after deleting Postgres CR", ext-postgres-operator 0.4.2): a PostgresUser refers to the
// Postgres CR of its database by name (spec.database: my-db). Once that Postgres CR was deleted,
// deleting the PostgresUser never finished: the operator (running) keeps
// finalizer.db.movetokube.com until it has dropped the user's role, which it does through the
// Postgres CR the user refers to, and "will loop over an error" because that CR no longer exists
// (issue #118 is the same failure three years later). The fix (#45) made the operator clean up
// users of a deleted Postgres itself; for a user already stuck the way out is to remove the
// finalizer by hand, which leaves the user's role (status.postgresRole) in the PostgreSQL server.
//
// Still open (tag corpusopen): the reference is a field named neither after the kind it names nor
// with a Ref/Name suffix (spec.database holds the name of a Postgres CR), which no general rule
// here resolves without the CRD's own description; the tool says "read the logs" first.
//
// Modelled on the operator's deploy/ manifests (0.4.x): namespace ext-postgres-operator, the
// ServiceAccount, ClusterRole (its rules on db.movetokube.com and the Secrets it writes) and
// binding, the Deployment ext-postgres-operator with its image; the CRDs postgres and
// postgresusers of db.movetokube.com.
func TestCorpusExtPostgresUserOfDeletedPostgres(t *testing.T) {
	replay{
		crds: []crd{
			{group: "db.movetokube.com", kind: "Postgres", plural: "postgres", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "db.movetokube.com", kind: "PostgresUser", plural: "postgresusers", namespaced: true, versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: ext-postgres-operator
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: ext-postgres-operator
  namespace: ext-postgres-operator
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ext-postgres-operator
rules:
- apiGroups: [""]
  resources: ["pods", "services", "endpoints", "events", "configmaps", "secrets"]
  verbs: ["*"]
- apiGroups: ["apps"]
  resources: ["deployments", "replicasets"]
  verbs: ["get"]
- apiGroups: ["db.movetokube.com"]
  resources: ["*"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: ext-postgres-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: ext-postgres-operator
subjects:
- kind: ServiceAccount
  name: ext-postgres-operator
  namespace: ext-postgres-operator
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ext-postgres-operator
  namespace: ext-postgres-operator
spec:
  replicas: 1
  selector:
    matchLabels:
      name: ext-postgres-operator
  template:
    metadata:
      labels:
        name: ext-postgres-operator
    spec:
      serviceAccountName: ext-postgres-operator
      containers:
      - name: ext-postgres-operator
        image: movetokube/postgres-operator:0.4.2
        command: ["postgres-operator"]
        env:
        - name: WATCH_NAMESPACE
          value: ""
        - name: OPERATOR_NAME
          value: ext-postgres-operator
        - name: POSTGRES_HOST
          value: postgres.databases.svc.cluster.local
        - name: POSTGRES_DEFAULT_DATABASE
          value: postgres
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: app
---
apiVersion: db.movetokube.com/v1alpha1
kind: PostgresUser
metadata:
  name: my-db-user
  namespace: app
  finalizers:
  - finalizer.db.movetokube.com
spec:
  role: username
  database: my-db
  secretName: my-secret
  privileges: OWNER
status:
  succeeded: true
  postgresRole: username-6xq2kd
  postgresGroup: test-db-group
  databaseName: test-db
`,
		deletes: []string{"PostgresUser/app/my-db-user"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "postgresusers.db.movetokube.com", "my-db-user", "-n", "app")
	d.exit(1, "STUCK")
	f := d.finalizer("postgresusers.db.movetokube.com/my-db-user -n app", "finalizer.db.movetokube.com")
	d.remover(f, "deployments.apps/ext-postgres-operator -n ext-postgres-operator", true)
	// The Postgres the user refers to is gone: that is why the running operator never finishes,
	// and it is named; the strip is the way out, and says the role stays in the server.
	d.names(f, "postgres.db.movetokube.com/my-db -n app")
	d.offers(f, stripFinalizer)
	d.stripCosts(f, "username-6xq2kd")
	d.notFirstFix(f, readLogs)
	d.never(f, reinstall, restoreController)
}
