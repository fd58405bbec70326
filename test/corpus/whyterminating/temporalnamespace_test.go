package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/alexandrevilain/temporal-operator/issues/552 ("Delete linked
// TemporalNamespace when a TemporalCluster is deleted", operator v0.16): a TemporalNamespace
// registered through the CRD "always get stuck" on delete; the reporter had to delete the whole
// Kubernetes namespace. The maintainer: "Deleting the namespace requires the cluster .. if it has
// been deleted it can't work." The operator (running) reads the TemporalCluster that
// spec.clusterRef names before anything else and, not finding it, never reaches the code that
// removes deletion.finalizers.temporal.io (controllers/temporalnamespace_controller.go); #666
// later let it go when the cluster does not exist. The way out: remove the finalizer by hand —
// the Temporal namespace lived in the cluster that is gone — or create the cluster again. The
// namespace's own Ready condition dates from before the cluster was deleted.
//
// Modelled on config/ of alexandrevilain/temporal-operator v0.16.2 as `kubectl apply` of its
// release manifest leaves it (kustomize: namespace temporal-system, prefix temporal-operator-):
// the ServiceAccount and Deployment temporal-operator-controller-manager, the ClusterRole
// temporal-operator-manager-role (the core, apps, batch and mesh types it manages, temporal.io's
// four kinds with their finalizers and status) and its binding; the CRDs of temporal.io
// (v1beta1). The webhook is left out (the replay's pods answer no requests).
func TestCorpusTemporalNamespaceOfADeletedCluster(t *testing.T) {
	temporal := func(kind, plural string) crd {
		return crd{group: "temporal.io", kind: kind, plural: plural, namespaced: true, versions: []string{"v1beta1"}}
	}
	replay{
		crds: []crd{temporal("TemporalCluster", "temporalclusters"), temporal("TemporalNamespace", "temporalnamespaces"),
			temporal("TemporalClusterClient", "temporalclusterclients"), temporal("TemporalWorkerProcess", "temporalworkerprocesses")},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: temporal-system
  labels:
    control-plane: controller-manager
---
apiVersion: v1
kind: Namespace
metadata:
  name: temporal-dev
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: temporal-operator-controller-manager
  namespace: temporal-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: temporal-operator-manager-role
rules:
- apiGroups: [""]
  resources: ["configmaps", "serviceaccounts"]
  verbs: ["create", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: [""]
  resources: ["secrets", "services"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["batch"]
  resources: ["jobs"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["networking.k8s.io"]
  resources: ["ingresses"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["temporal.io"]
  resources: ["temporalclusterclients", "temporalclusters", "temporalnamespaces", "temporalworkerprocesses"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["temporal.io"]
  resources: ["temporalclusterclients/finalizers", "temporalclusters/finalizers", "temporalnamespaces/finalizers", "temporalworkerprocesses/finalizers"]
  verbs: ["update"]
- apiGroups: ["temporal.io"]
  resources: ["temporalclusterclients/status", "temporalclusters/status", "temporalnamespaces/status", "temporalworkerprocesses/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: temporal-operator-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: temporal-operator-manager-role
subjects:
- kind: ServiceAccount
  name: temporal-operator-controller-manager
  namespace: temporal-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: temporal-operator-controller-manager
  namespace: temporal-system
  labels:
    control-plane: controller-manager
spec:
  replicas: 1
  selector:
    matchLabels:
      control-plane: controller-manager
  template:
    metadata:
      labels:
        control-plane: controller-manager
    spec:
      serviceAccountName: temporal-operator-controller-manager
      containers:
      - name: manager
        image: ghcr.io/alexandrevilain/temporal-operator:v0.16.2
        command: ["/manager"]
        args: ["--leader-elect"]
`,
		objects: `
apiVersion: temporal.io/v1beta1
kind: TemporalNamespace
metadata:
  name: my-temporal-namespace
  namespace: temporal-dev
  finalizers:
  - deletion.finalizers.temporal.io
spec:
  clusterRef:
    name: temporalclusterdev
  description: Default namespace for my Service.
  retentionPeriod: 8760h
  allowDeletion: true
status:
  conditions:
  - type: Ready
    status: "True"
    reason: TemporalNamespaceCreated
    message: Namespace successfully created
    lastTransitionTime: "2023-11-08T16:02:31Z"
  - type: ReconcileSuccess
    status: "True"
    reason: ReconcileSuccess
    message: ""
    lastTransitionTime: "2023-11-08T16:02:31Z"
`,
		deletes: []string{"TemporalNamespace/temporal-dev/my-temporal-namespace"},
	}.run(t)

	d := diagnoseAfter(t, 30*time.Minute, "temporalnamespaces.temporal.io", "my-temporal-namespace", "-n", "temporal-dev")
	d.exit(1, "STUCK")
	f := d.finalizer("temporalnamespaces.temporal.io/my-temporal-namespace -n temporal-dev", "deletion.finalizers.temporal.io")
	d.remover(f, "deployments.apps/temporal-operator-controller-manager -n temporal-system", true)
	// The cluster its clusterRef names is gone: that is what holds it, not something in the logs.
	d.blocker(f, "temporalclusters.temporal.io/temporalclusterdev -n temporal-dev", "missing-object")
	d.notFirstFix(f, readLogs)
	d.never(f, reinstall, restoreController)
	d.offers(f, stripFinalizer)
}
