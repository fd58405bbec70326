package whyterminating_test

import "testing"

// Report: https://github.com/infinispan/infinispan-operator/pull/2585 (closing #2578,
// "Reconcilation pause annotation"): with infinispan.org/paused: "true" the operator skips every
// reconcile of the resource, and "pausing also prevents deletion processing. A paused CR with
// finalizers will stay in Terminating state until unpaused." The fix is to remove the
// annotation; stripping finalizer.infinispan.org would skip the operator's cleanup.
//
// Modelled on the operator's kustomize install (config/default, config/rbac): namespace
// infinispan-operator-system, ServiceAccount infinispan-operator-controller-manager, ClusterRole
// infinispan-operator-manager-role with its rules on infinispan.org, the binding, and the
// Deployment infinispan-operator-controller-manager (control-plane: controller-manager).
func TestCorpusInfinispanPausedAnnotation(t *testing.T) {
	replay{
		crds: []crd{
			{group: "infinispan.org", kind: "Infinispan", plural: "infinispans", namespaced: true, versions: []string{"v1"}},
			{group: "infinispan.org", kind: "Cache", plural: "caches", namespaced: true, versions: []string{"v2alpha1"}},
			{group: "infinispan.org", kind: "Backup", plural: "backups", namespaced: true, versions: []string{"v2alpha1"}},
			{group: "infinispan.org", kind: "Restore", plural: "restores", namespaced: true, versions: []string{"v2alpha1"}},
			{group: "infinispan.org", kind: "Batch", plural: "batches", namespaced: true, versions: []string{"v2alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: infinispan-operator-system
  labels:
    control-plane: controller-manager
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: infinispan-operator-controller-manager
  namespace: infinispan-operator-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: infinispan-operator-manager-role
rules:
- apiGroups: [""]
  resources: ["configmaps", "persistentvolumeclaims", "pods", "secrets", "services", "events"]
  verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
- apiGroups: ["apps"]
  resources: ["deployments", "statefulsets"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["infinispan.org"]
  resources: ["infinispans", "caches", "backups", "restores", "batches"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["infinispan.org"]
  resources: ["infinispans/finalizers", "caches/finalizers", "backups/finalizers", "restores/finalizers", "batches/finalizers"]
  verbs: ["update"]
- apiGroups: ["infinispan.org"]
  resources: ["infinispans/status", "caches/status", "backups/status", "restores/status", "batches/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: infinispan-operator-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: infinispan-operator-manager-role
subjects:
- kind: ServiceAccount
  name: infinispan-operator-controller-manager
  namespace: infinispan-operator-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: infinispan-operator-controller-manager
  namespace: infinispan-operator-system
  labels:
    app.kubernetes.io/name: infinispan-operator
    control-plane: controller-manager
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: infinispan-operator
      control-plane: controller-manager
  template:
    metadata:
      labels:
        app.kubernetes.io/name: infinispan-operator
        control-plane: controller-manager
    spec:
      serviceAccountName: infinispan-operator-controller-manager
      containers:
      - name: manager
        image: quay.io/infinispan/operator:2.5.0.Final
        args: ["operator"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: cache-dev
---
apiVersion: infinispan.org/v1
kind: Infinispan
metadata:
  name: example-infinispan
  namespace: cache-dev
  annotations:
    infinispan.org/paused: "true"
  finalizers:
  - finalizer.infinispan.org
spec:
  replicas: 2
  service:
    type: DataGrid
status:
  conditions:
  - type: ReconciliationPaused
    status: "True"
    message: Reconciliation paused via annotation 'infinispan.org/paused'
  - type: WellFormed
    status: "True"
`,
		deletes: []string{"Infinispan/cache-dev/example-infinispan"},
	}.run(t)

	d := diagnose(t, "infinispans.infinispan.org", "example-infinispan", "-n", "cache-dev")
	d.exit(1, "STUCK")
	f := d.finalizer("infinispans.infinispan.org/example-infinispan -n cache-dev", "finalizer.infinispan.org")
	d.remover(f, "deployments.apps/infinispan-operator-controller-manager -n infinispan-operator-system", true)
	d.verdict(f, reconcilePaused)
	if len(f.Paused) == 0 || f.Paused[0].Field != "metadata.annotations[infinispan.org/paused]" {
		t.Errorf("pause markers %+v, want metadata.annotations[infinispan.org/paused]", f.Paused)
	}
	d.firstFix(f, unpause)
	d.never(f, stripFinalizer, readLogs)
}
