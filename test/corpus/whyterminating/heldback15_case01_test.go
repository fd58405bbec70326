// Held back in batch 15 and wrong at first sight (2026-12-03, main 24f7bd8): the reconciler-manager,
// which holds cluster-admin and belongs to the same product, was named the remover; the
// per-namespace reconciler, which the RepoSync's status names and which lost the RoleBinding that
// let it update RepoSyncs when the namespace's content went, was not, nor its service account;
// reading logs came first. Failure classes: a candidate with broad RBAC ranked over the workload
// the object's own status names; a remover whose namespaced binding was in the terminating
// namespace not read as having lost its rights. Passes since (branch ranking) by the rules of "The
// remover ranked by its ties to the object" (objectties.go): the object's own status.reconciler
// names the remover before any rights; a named remover whose account may no longer update the
// object lost its rights, and in a namespace being deleted the strip comes first.

package whyterminating_test

import (
	"strings"
	"testing"
	"time"
)

// Report: https://github.com/GoogleContainerTools/config-sync/pull/1191 ("Fix a race condition on
// reconciler finalizer removal"): "the reconciler is responsible for removing the reconciler
// finalizer from the RSync object, but if the reconciler fails to update RSync to remove the
// finalizer (e.g. the reconciler is deleted or the reconciler doesn't have permissions to update
// RSync), RSync would stuck in deletion forever." The case is a RepoSync whose namespace is
// deleted: the RepoSync carries configsync.gke.io/reconciler (added because its
// configsync.gke.io/deletion-propagation-policy is Foreground), and its reconciler
// ns-reconciler-team-a (a Deployment the reconciler-manager made in config-management-system)
// may update RepoSyncs in team-a only through the RoleBinding the reconciler-manager made in
// team-a — which the namespace controller deleted with the rest of the namespace's content. The
// reconciler runs, but may no longer update the RepoSync; the namespace stays Terminating. The
// fix makes the reconciler-manager drop the finalizer when the RSync's namespace is terminating
// (the reviewers: the managed objects could not be deleted anyway); before it, the way out is to
// remove the finalizer by hand. A new binding cannot be made: the namespace is terminating and
// takes no new content.
//
// Modelled on Config Sync's manifests (GoogleContainerTools/kpt-config-sync manifests/): namespace
// config-management-system, the reconciler-manager Deployment and ServiceAccount (bound to
// cluster-admin: it binds cluster-admin to RootSync reconcilers, which it may only do holding
// it), the ClusterRole configsync.gke.io:ns-reconciler (reposyncs and their status: get, list,
// watch, update, patch; kpt.dev resourcegroups), the reconciler Deployment ns-reconciler-team-a
// and its ServiceAccount as the reconciler-manager makes them; the CRDs reposyncs and rootsyncs
// of configsync.gke.io and resourcegroups of kpt.dev. The RepoSync repo-sync in team-a; the
// RoleBinding configsync.gke.io:ns-reconciler in team-a is already gone, as the namespace
// controller leaves it.
func TestCorpusConfigSyncRepoSyncWhoseReconcilerLostItsBinding(t *testing.T) {
	labels := map[string]string{"configmanagement.gke.io/system": "true", "configmanagement.gke.io/arch": "csmr"}
	replay{
		crds: []crd{
			{group: "configsync.gke.io", kind: "RepoSync", plural: "reposyncs", namespaced: true, versions: []string{"v1beta1", "v1alpha1"}, labels: labels},
			{group: "configsync.gke.io", kind: "RootSync", plural: "rootsyncs", namespaced: true, versions: []string{"v1beta1", "v1alpha1"}, labels: labels},
			{group: "kpt.dev", kind: "ResourceGroup", plural: "resourcegroups", namespaced: true, versions: []string{"v1alpha1"}, labels: labels},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: config-management-system
  labels: {configmanagement.gke.io/system: "true"}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: reconciler-manager
  namespace: config-management-system
  labels: {configmanagement.gke.io/system: "true", configmanagement.gke.io/arch: "csmr"}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: configsync.gke.io:reconciler-manager
  labels: {configmanagement.gke.io/system: "true", configmanagement.gke.io/arch: "csmr"}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-admin
subjects:
- kind: ServiceAccount
  name: reconciler-manager
  namespace: config-management-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: configsync.gke.io:ns-reconciler
  labels: {configmanagement.gke.io/system: "true", configmanagement.gke.io/arch: "csmr"}
rules:
- apiGroups: ["configsync.gke.io"]
  resources: ["reposyncs"]
  verbs: ["get", "list", "watch", "update", "patch"]
- apiGroups: ["configsync.gke.io"]
  resources: ["reposyncs/status"]
  verbs: ["get", "list", "watch", "update", "patch"]
- apiGroups: ["kpt.dev"]
  resources: ["resourcegroups"]
  verbs: ["*"]
- apiGroups: ["kpt.dev"]
  resources: ["resourcegroups/status"]
  verbs: ["*"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: reconciler-manager
  namespace: config-management-system
  labels: {app: reconciler-manager, configmanagement.gke.io/system: "true", configmanagement.gke.io/arch: "csmr"}
spec:
  replicas: 1
  strategy: {type: Recreate}
  selector:
    matchLabels: {app: reconciler-manager}
  template:
    metadata:
      labels: {app: reconciler-manager, configsync.gke.io/deployment-name: reconciler-manager}
    spec:
      serviceAccountName: reconciler-manager
      containers:
      - name: reconciler-manager
        image: gcr.io/config-management-release/reconciler-manager:v1.17.2-rc.1
        command: ["/reconciler-manager"]
        args: ["--enable-leader-election", "-v=1"]
      - name: otel-agent
        image: gcr.io/config-management-release/otelcontribcol:v0.91.0-gke.8
        command: ["/otelcontribcol"]
        args: ["--config=/conf/otel-agent-config.yaml"]
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: ns-reconciler-team-a
  namespace: config-management-system
  labels: {configmanagement.gke.io/system: "true", configmanagement.gke.io/arch: "csmr", configsync.gke.io/sync-kind: RepoSync, configsync.gke.io/sync-name: repo-sync, configsync.gke.io/sync-namespace: team-a}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ns-reconciler-team-a
  namespace: config-management-system
  labels: {app: reconciler, configmanagement.gke.io/system: "true", configmanagement.gke.io/arch: "csmr", configsync.gke.io/reconciler: ns-reconciler-team-a, configsync.gke.io/sync-kind: RepoSync, configsync.gke.io/sync-name: repo-sync, configsync.gke.io/sync-namespace: team-a}
spec:
  replicas: 1
  selector:
    matchLabels: {app: reconciler, configsync.gke.io/reconciler: ns-reconciler-team-a}
  template:
    metadata:
      labels: {app: reconciler, configsync.gke.io/reconciler: ns-reconciler-team-a, configsync.gke.io/deployment-name: ns-reconciler-team-a, configsync.gke.io/sync-kind: RepoSync, configsync.gke.io/sync-name: repo-sync, configsync.gke.io/sync-namespace: team-a}
    spec:
      serviceAccountName: ns-reconciler-team-a
      containers:
      - name: reconciler
        image: gcr.io/config-management-release/reconciler:v1.17.2-rc.1
        command: ["/reconciler"]
        args: ["--scope=team-a", "--sync-name=repo-sync", "--reconciler-name=ns-reconciler-team-a", "--source-type=git", "--sync-dir=/repo/source/rev/namespaces/team-a"]
      - name: git-sync
        image: gcr.io/config-management-release/git-sync:v4.2.1-gke.4__linux_amd64
        args: ["--root=/repo/source", "--link=rev", "--max-failures=30", "--error-file=error.json"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: team-a
---
apiVersion: configsync.gke.io/v1beta1
kind: RepoSync
metadata:
  name: repo-sync
  namespace: team-a
  annotations:
    configsync.gke.io/deletion-propagation-policy: Foreground
  finalizers: [configsync.gke.io/reconciler]
spec:
  sourceFormat: unstructured
  sourceType: git
  git:
    repo: https://github.com/example-org/team-a-config
    branch: main
    dir: namespaces/team-a
    auth: none
status:
  observedGeneration: 1
  reconciler: ns-reconciler-team-a
  lastSyncedCommit: 9d3c1f0b7e4a2c58d6f1a0b3e9c7d5f2a4b6c8e0
  conditions:
  - type: Reconciling
    status: "False"
    reason: Deployment
    message: Reconciler deployment is ready
    lastUpdateTime: "2026-11-02T09:12:44Z"
    lastTransitionTime: "2026-11-02T09:12:44Z"
  - type: Syncing
    status: "False"
    reason: Sync
    message: Sync Completed
    commit: 9d3c1f0b7e4a2c58d6f1a0b3e9c7d5f2a4b6c8e0
    lastUpdateTime: "2026-11-02T09:13:05Z"
    lastTransitionTime: "2026-11-02T09:13:05Z"
`,
		deletes: []string{"Namespace//team-a"},
	}.run(t)

	d := diagnoseAfter(t, 2*time.Hour, "namespace", "team-a")
	d.exit(1, "STUCK")
	f := d.finalizer("reposyncs.configsync.gke.io/repo-sync -n team-a", "configsync.gke.io/reconciler")
	// The reconciler that removes it runs, but may no longer update the RepoSync: its binding in
	// team-a went with the namespace's content. Reading its logs or waiting does not free it.
	d.remover(f, "deployments.apps/ns-reconciler-team-a -n config-management-system", true)
	d.names(f, "serviceaccounts/ns-reconciler-team-a -n config-management-system")
	d.notFirstFix(f, readLogs)
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
	// Nothing new can be created in the terminating namespace: no step may tell the operator to.
	for _, r := range f.Remedies {
		if strings.Contains(r.Command, "create") && strings.Contains(r.Command, "team-a") {
			t.Errorf("finalizer %s: step %s %q creates content in the terminating namespace team-a", f.Name, r.Code, r.Command)
		}
	}
}
