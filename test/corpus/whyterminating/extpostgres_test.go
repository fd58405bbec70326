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
// First run WRONG (BATCH3-SPLIT.txt, 04): the reference is a field named neither after the kind
// it names nor with a Ref/Name suffix (spec.database holds the name of a Postgres CR), so the
// tool said "read the logs" first. Right since the part-of rule (internal/finalizers/partof.go,
// docs/why-terminating.md "What the object itself refers to that does not exist"): PostgresUser
// is built on the group's kind Postgres, no owner reference or field named for Postgres says
// which one, and spec.database is the one spec field that can hold a name (spec.role's value is
// what status.postgresRole records as made, secretName names a Secret, privileges is no name),
// so the missing Postgres is named, with confidence low; creating it again or repointing the
// field comes first, the logs next, the strip with its cost last.
//
// Modelled on the operator's deploy/ manifests at tag 0.4.2: namespace operators, the
// ServiceAccount, the ClusterRole ext-postgres-operator and its binding, the Deployment
// ext-postgres-operator reading its PostgreSQL connection from the Secret ext-postgres-operator
// (envFrom; the replay's values are placeholders); the CRDs postgres and postgresusers of
// db.movetokube.com (their schema is not modelled). The replay first set the connection as
// inline env values naming an in-cluster Service the replay lacked, which the official install
// does not (corrected with the part-of rule; the tool reads no Secret).
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
  name: operators
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: ext-postgres-operator
  namespace: operators
---
apiVersion: v1
kind: Secret
metadata:
  name: ext-postgres-operator
  namespace: operators
type: Opaque
stringData:
  POSTGRES_HOST: postgres.databases
  POSTGRES_USER: postgres
  POSTGRES_PASS: replay-placeholder
  POSTGRES_URI_ARGS: sslmode=disable
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ext-postgres-operator
rules:
- apiGroups: [""]
  resources: ["pods", "services", "endpoints", "persistentvolumeclaims", "events", "configmaps", "secrets"]
  verbs: ["*"]
- apiGroups: ["apps"]
  resources: ["deployments", "daemonsets", "replicasets", "statefulsets"]
  verbs: ["*"]
- apiGroups: ["apps"]
  resourceNames: ["ext-postgres-operator"]
  resources: ["deployments/finalizers"]
  verbs: ["update"]
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
  namespace: operators
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ext-postgres-operator
  namespace: operators
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
        envFrom:
        - secretRef:
            name: ext-postgres-operator
        env:
        - name: WATCH_NAMESPACE
          value: ""
        - name: POD_NAME
          valueFrom:
            fieldRef:
              fieldPath: metadata.name
        - name: OPERATOR_NAME
          value: ext-postgres-operator
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
	d.remover(f, "deployments.apps/ext-postgres-operator -n operators", true)
	// The Postgres the user refers to is gone: that is why the running operator never finishes,
	// and it is named; the strip is the way out, and says the role stays in the server.
	d.names(f, "postgres.db.movetokube.com/my-db -n app")
	d.offers(f, stripFinalizer)
	d.stripCosts(f, "username-6xq2kd")
	d.notFirstFix(f, readLogs)
	d.never(f, reinstall, restoreController)
}
