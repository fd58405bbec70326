package whyterminating_test

import (
	"strings"
	"testing"
	"time"
)

// Report: https://github.com/digitalocean/do-operator/issues/4 ("Delete never succeeds if you
// delete an object that would never have formed a cluster"): the DigitalOcean operator's README
// example Database spells a field num_nodes instead of numNodes, so the database is never created
// at DigitalOcean (the operator's create call fails and retries); deleting that Database never
// completes. "If you manually delete the finalizers from the object using `kubectl edit database
// example` then the object clears out immediately." The operator's code (v0.0.3,
// pkg/controller/database) shows why: on a deletion it returns at once when status.id is empty —
// there is nothing at DigitalOcean to delete — without removing its finalizer
// finalizer.database.doop.do.co. The operator runs; nothing will ever remove it; the strip is the
// way out and leaves nothing behind, since nothing was ever created.
//
// Modelled on the release manifest releases/v0.0.3/manifest.yaml, applied to the default
// namespace as the README says: the CRD databases.doop.do.co, the Role and RoleBinding do-operator
// (doop.do.co: everything), its ServiceAccount and Deployment, with the access-token Secret the
// README creates. The Database of the README, its finalizer added by the operator, its status
// empty (never created), deleted.
func TestCorpusDOOperatorDatabaseThatWasNeverProvisioned(t *testing.T) {
	replay{
		crds: []crd{{group: "doop.do.co", kind: "Database", plural: "databases", namespaced: true, versions: []string{"v1alpha1"}}},
		install: `
apiVersion: v1
kind: Secret
metadata:
  name: do-operator
  namespace: default
type: Opaque
stringData:
  DIGITALOCEAN_ACCESS_TOKEN: dop_v1_example0000000000000000000000000000000000000000000000000000
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: do-operator
  namespace: default
rules:
- apiGroups: [""]
  resources: ["pods", "services", "services/finalizers", "endpoints", "persistentvolumeclaims", "events", "configmaps", "secrets"]
  verbs: ["*"]
- apiGroups: ["apps"]
  resources: ["deployments", "daemonsets", "replicasets", "statefulsets"]
  verbs: ["*"]
- apiGroups: ["monitoring.coreos.com"]
  resources: ["servicemonitors"]
  verbs: ["get", "create"]
- apiGroups: ["apps"]
  resourceNames: ["do-operator"]
  resources: ["deployments/finalizers"]
  verbs: ["update"]
- apiGroups: ["doop.do.co"]
  resources: ["*"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: do-operator
  namespace: default
subjects:
- kind: ServiceAccount
  name: do-operator
  namespace: default
roleRef:
  kind: Role
  name: do-operator
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: do-operator
  namespace: default
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: do-operator
  namespace: default
spec:
  replicas: 1
  selector:
    matchLabels: {name: do-operator}
  template:
    metadata:
      labels: {name: do-operator}
    spec:
      serviceAccountName: do-operator
      containers:
      - name: do-operator
        image: snormore/do-operator:v0.0.3
        command: ["do-operator"]
        env:
        - name: WATCH_NAMESPACE
          valueFrom: {fieldRef: {fieldPath: metadata.namespace}}
        - name: POD_NAME
          valueFrom: {fieldRef: {fieldPath: metadata.name}}
        - {name: OPERATOR_NAME, value: do-operator}
        - name: DIGITALOCEAN_ACCESS_TOKEN
          valueFrom: {secretKeyRef: {name: do-operator, key: DIGITALOCEAN_ACCESS_TOKEN}}
`,
		objects: `
apiVersion: doop.do.co/v1alpha1
kind: Database
metadata:
  name: example
  namespace: default
  finalizers: [finalizer.database.doop.do.co]
spec:
  name: example
  engine: redis
  version: "5"
  size: db-s-2vcpu-4gb
  region: sfo2
  num_nodes: 2
  tags: [test, doop]
`,
		finalizersBy: map[string]string{"Database/default/example": "do-operator"},
		deletes:      []string{"Database/default/example"},
	}.run(t)

	d := diagnoseAfter(t, 2*time.Hour, "databases.doop.do.co", "example", "-n", "default")
	d.exit(1, "STUCK")
	f := d.finalizer("databases.doop.do.co/example -n default", "finalizer.database.doop.do.co")
	d.remover(f, "deployments.apps/do-operator -n default", true)
	d.never(f, reinstall, restoreController)
	// The Database was never created at DigitalOcean (its status records no id): the strip is the
	// way out, and it leaves nothing outside the cluster.
	d.firstFix(f, stripFinalizer)
	for _, r := range f.Remedies {
		if r.Code != stripFinalizer {
			continue
		}
		for _, field := range []string{"sfo2", "db-s-2vcpu-4gb", "redis"} {
			if strings.Contains(r.Cost, field) {
				t.Errorf("the strip's cost %q names %q from the spec as left behind; nothing was ever created", r.Cost, field)
			}
		}
	}
}
