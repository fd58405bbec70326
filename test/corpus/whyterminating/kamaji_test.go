package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/clastix/kamaji/issues/491 ("Kamaji broken after namespace
// removal"), the comment of 2024-10-30: the TenantControlPlane upgrading-ci-cp-test is gone, its
// pods are gone, and its namespace has been Terminating for 75 minutes because the Secret
// upgrading-ci-cp-test-datastore-config keeps finalizer.kamaji.clastix.io/datastore-secret.
// Kamaji (running) removes that finalizer only while it finalizes the TenantControlPlane the
// Secret belongs to (its controller owner), after de-provisioning the tenant's data in the
// DataStore (kamaji#569: "it's required to de-provision the Datastore data, such as cleaning up
// the etcd key-prefixed data, or the RDBMS schema"); with the owner gone nothing will. The way
// out the threads settled on (kamaji#491, cozystack#1660, cozystack#3078): remove that finalizer
// from the Secret by hand; what it leaves is the tenant's data in the DataStore.
//
// Modelled on Kamaji's Helm chart (charts/kamaji: the ServiceAccount kamaji, the ClusterRole
// kamaji-manager-role from controller-gen/clusterrole.yaml, abbreviated, and its binding, the
// Deployment kamaji with the chart's labels and image) and the CRDs of kamaji.clastix.io. The
// webhook configurations are left out: the replay's pods answer no requests. The Secret carries
// the ownerReference Kamaji sets, to the TenantControlPlane that no longer exists; the garbage
// collector has marked it for deletion, as it would.
func TestCorpusKamajiDatastoreSecretOwnerGone(t *testing.T) {
	kamaji := map[string]string{"app.kubernetes.io/name": "kamaji", "app.kubernetes.io/instance": "kamaji", "app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "kamaji-1.0.0"}
	replay{
		crds: []crd{
			{group: "kamaji.clastix.io", kind: "TenantControlPlane", plural: "tenantcontrolplanes", namespaced: true, versions: []string{"v1alpha1"}, labels: kamaji},
			{group: "kamaji.clastix.io", kind: "DataStore", plural: "datastores", versions: []string{"v1alpha1"}, labels: kamaji},
			{group: "kamaji.clastix.io", kind: "KubeconfigGenerator", plural: "kubeconfiggenerators", versions: []string{"v1alpha1"}, labels: kamaji},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: kamaji-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kamaji
  namespace: kamaji-system
  labels:
    app.kubernetes.io/name: kamaji
    app.kubernetes.io/instance: kamaji
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: kamaji-1.0.0
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kamaji-manager-role
rules:
- apiGroups: [""]
  resources: ["configmaps", "secrets", "services"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["namespaces"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["batch"]
  resources: ["jobs"]
  verbs: ["create", "delete", "get", "list", "watch"]
- apiGroups: ["kamaji.clastix.io"]
  resources: ["datastores", "tenantcontrolplanes"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["kamaji.clastix.io"]
  resources: ["datastores/status", "kubeconfiggenerators/status", "tenantcontrolplanes/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["kamaji.clastix.io"]
  resources: ["kubeconfiggenerators/finalizers", "tenantcontrolplanes/finalizers"]
  verbs: ["update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kamaji-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: kamaji-manager-role
subjects:
- kind: ServiceAccount
  name: kamaji
  namespace: kamaji-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kamaji
  namespace: kamaji-system
  labels:
    app.kubernetes.io/name: kamaji
    app.kubernetes.io/instance: kamaji
    app.kubernetes.io/version: v1.0.0
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: kamaji-1.0.0
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: kamaji
      app.kubernetes.io/instance: kamaji
  template:
    metadata:
      labels:
        app.kubernetes.io/name: kamaji
        app.kubernetes.io/instance: kamaji
    spec:
      serviceAccountName: kamaji
      containers:
      - name: manager
        image: clastix/kamaji:v1.0.0
        command: ["/kamaji"]
        args: ["manager", "--leader-elect", "--datastore=default"]
---
apiVersion: kamaji.clastix.io/v1alpha1
kind: DataStore
metadata:
  name: default
spec:
  driver: etcd
  endpoints:
  - etcd-0.etcd.kamaji-system.svc.cluster.local:2379
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: ceabf732259b4dc4a06ad44c1f255c70
---
apiVersion: v1
kind: Secret
metadata:
  name: upgrading-ci-cp-test-datastore-config
  namespace: ceabf732259b4dc4a06ad44c1f255c70
  labels:
    kamaji.clastix.io/name: upgrading-ci-cp-test
  finalizers:
  - finalizer.kamaji.clastix.io/datastore-secret
  ownerReferences:
  - apiVersion: kamaji.clastix.io/v1alpha1
    kind: TenantControlPlane
    name: upgrading-ci-cp-test
    uid: 6b0c3f1e-2f57-4d5e-9a8e-3f3d1c0b7a11
    controller: true
    blockOwnerDeletion: true
type: Opaque
data:
  DB_CONNECTION_STRING: ZXRjZC0wLmV0Y2Qua2FtYWppLXN5c3RlbS5zdmMuY2x1c3Rlci5sb2NhbDoyMzc5
  DB_SCHEMA: Y2VhYmY3MzJfdXBncmFkaW5nX2NpX2NwX3Rlc3Q=
`,
		deletes: []string{"Namespace//ceabf732259b4dc4a06ad44c1f255c70"},
	}.run(t)

	d := diagnoseAfter(t, 75*time.Minute, "namespace", "ceabf732259b4dc4a06ad44c1f255c70")
	d.exit(1, "STUCK")
	f := d.finalizer("secrets/upgrading-ci-cp-test-datastore-config -n ceabf732259b4dc4a06ad44c1f255c70", "finalizer.kamaji.clastix.io/datastore-secret")
	d.remover(f, "deployments.apps/kamaji -n kamaji-system", true)
	// The gone owner is itself the blocker (a missing object), whatever the remover's idle time.
	d.verdict(f, removerStalled, finalizerOrphaned, blockedByObjects)
	// What the finalizer waits for is the finalization of an owner that no longer exists.
	d.names(f, "tenantcontrolplanes.kamaji.clastix.io/upgrading-ci-cp-test -n ceabf732259b4dc4a06ad44c1f255c70")
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
