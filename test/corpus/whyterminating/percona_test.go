package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/percona/percona-server-mongodb-operator/pull/1691 (K8SPSMDB-1156,
// "fix deletion of cluster with finalizers"): "Deleting a cluster with the
// percona.com/delete-psmdb-pods-in-order finalizer is currently not possible if the cluster is in
// an error state" — reproduced by setting spec.tls.allowInvalidCertificates to false on the
// default cr.yaml and deleting the cluster. The operator (running) keeps the finalizer until it
// has scaled the replica set down pod by pod, which needs a working connection to mongod; in the
// error state that never happens, and nothing else explains the wait. Until the fixed operator,
// the way out is to remove that finalizer by hand: the pods then go with their StatefulSet,
// without the primary-last order (nothing stays behind; the claims are kept, as they are without
// percona.com/delete-psmdb-pvc).
//
// Modelled on the operator's deploy/bundle.yaml (1.17.0): namespace psmdb, ServiceAccount,
// Role and RoleBinding percona-server-mongodb-operator with the Role's rules on
// psmdb.percona.com (abbreviated) and the Deployment with its labels and image; the CRDs of
// psmdb.percona.com; the cluster's replica set StatefulSet my-cluster-name-rs0, its three pods
// running and Ready.
func TestCorpusPerconaMongoDBErrorStateFinalizer(t *testing.T) {
	replay{
		crds: []crd{
			{group: "psmdb.percona.com", kind: "PerconaServerMongoDB", plural: "perconaservermongodbs", namespaced: true, versions: []string{"v1"}},
			{group: "psmdb.percona.com", kind: "PerconaServerMongoDBBackup", plural: "perconaservermongodbbackups", namespaced: true, versions: []string{"v1"}},
			{group: "psmdb.percona.com", kind: "PerconaServerMongoDBRestore", plural: "perconaservermongodbrestores", namespaced: true, versions: []string{"v1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: psmdb
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: percona-server-mongodb-operator
  namespace: psmdb
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: percona-server-mongodb-operator
  namespace: psmdb
rules:
- apiGroups: ["psmdb.percona.com"]
  resources: ["perconaservermongodbs", "perconaservermongodbs/status", "perconaservermongodbs/finalizers", "perconaservermongodbbackups", "perconaservermongodbbackups/status", "perconaservermongodbbackups/finalizers", "perconaservermongodbrestores", "perconaservermongodbrestores/status", "perconaservermongodbrestores/finalizers"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["pods", "pods/exec", "services", "persistentvolumeclaims", "secrets", "configmaps"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["apps"]
  resources: ["deployments", "replicasets", "statefulsets"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["batch"]
  resources: ["cronjobs"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: service-account-percona-server-mongodb-operator
  namespace: psmdb
subjects:
- kind: ServiceAccount
  name: percona-server-mongodb-operator
roleRef:
  kind: Role
  name: percona-server-mongodb-operator
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: percona-server-mongodb-operator
  namespace: psmdb
  labels:
    app.kubernetes.io/component: operator
    app.kubernetes.io/instance: percona-server-mongodb-operator
    app.kubernetes.io/name: percona-server-mongodb-operator
    app.kubernetes.io/part-of: percona-server-mongodb-operator
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/component: operator
      app.kubernetes.io/instance: percona-server-mongodb-operator
      app.kubernetes.io/name: percona-server-mongodb-operator
      app.kubernetes.io/part-of: percona-server-mongodb-operator
  template:
    metadata:
      labels:
        app.kubernetes.io/component: operator
        app.kubernetes.io/instance: percona-server-mongodb-operator
        app.kubernetes.io/name: percona-server-mongodb-operator
        app.kubernetes.io/part-of: percona-server-mongodb-operator
    spec:
      serviceAccountName: percona-server-mongodb-operator
      containers:
      - name: percona-server-mongodb-operator
        image: percona/percona-server-mongodb-operator:1.17.0
        command: ["percona-server-mongodb-operator"]
        ports:
        - containerPort: 8080
          name: metrics
`,
		objects: `
apiVersion: psmdb.percona.com/v1
kind: PerconaServerMongoDB
metadata:
  name: my-cluster-name
  namespace: psmdb
  finalizers:
  - percona.com/delete-psmdb-pods-in-order
spec:
  crVersion: 1.17.0
  image: percona/percona-server-mongodb:7.0.12-7
  tls:
    mode: preferTLS
    allowInvalidCertificates: false
  replsets:
  - name: rs0
    size: 3
    volumeSpec:
      persistentVolumeClaim:
        resources:
          requests:
            storage: 3Gi
status:
  state: error
  message: 'Error: failed to get mongo client: ping mongo: server selection error: context deadline exceeded, current topology: { Type: ReplicaSetNoPrimary, Servers: [{ Addr: my-cluster-name-rs0-0.my-cluster-name-rs0.psmdb.svc.cluster.local:27017, Type: Unknown, Last error: tls: failed to verify certificate: x509: certificate signed by unknown authority }] }'
  conditions:
  - type: error
    status: "True"
    reason: ErrorReconcile
    message: 'failed to get mongo client: ping mongo: server selection error: context deadline exceeded'
    lastTransitionTime: "2024-10-30T09:14:27Z"
  replsets:
    rs0:
      size: 3
      ready: 3
      status: ready
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: my-cluster-name-rs0
  namespace: psmdb
  labels:
    app.kubernetes.io/component: mongod
    app.kubernetes.io/instance: my-cluster-name
    app.kubernetes.io/managed-by: percona-server-mongodb-operator
    app.kubernetes.io/name: percona-server-mongodb
    app.kubernetes.io/part-of: percona-server-mongodb
    app.kubernetes.io/replset: rs0
spec:
  replicas: 3
  serviceName: my-cluster-name-rs0
  selector:
    matchLabels:
      app.kubernetes.io/component: mongod
      app.kubernetes.io/instance: my-cluster-name
      app.kubernetes.io/replset: rs0
  template:
    metadata:
      labels:
        app.kubernetes.io/component: mongod
        app.kubernetes.io/instance: my-cluster-name
        app.kubernetes.io/managed-by: percona-server-mongodb-operator
        app.kubernetes.io/name: percona-server-mongodb
        app.kubernetes.io/part-of: percona-server-mongodb
        app.kubernetes.io/replset: rs0
    spec:
      containers:
      - name: mongod
        image: percona/percona-server-mongodb:7.0.12-7
        ports:
        - containerPort: 27017
          name: mongodb
`,
		deletes: []string{"PerconaServerMongoDB/psmdb/my-cluster-name"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "perconaservermongodbs.psmdb.percona.com", "my-cluster-name", "-n", "psmdb")
	d.exit(1, "STUCK")
	f := d.finalizer("perconaservermongodbs.psmdb.percona.com/my-cluster-name -n psmdb", "percona.com/delete-psmdb-pods-in-order")
	d.remover(f, "deployments.apps/percona-server-mongodb-operator -n psmdb", true)
	d.verdict(f, removerStalled)
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
