package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/apecloud/kubeblocks/issues/10348 ("Backup deletion can get stuck when
// namespace guard lacks RBAC"): a Backup with deletionPolicy Delete stayed Deleting with the
// finalizer dataprotection.kubeblocks.io/finalizer; no delete-backup-files Job was created and
// nothing of the backup's was left running in its namespace. The DataProtection controller
// (running) removes the finalizer after a Job deletes the backup's files from its BackupRepo,
// and a new guard made it read the Backup's Namespace first, which its ServiceAccount
// (kb-kubeblocks) may not: the controller's logs repeat that it cannot list namespaces. The fix
// (#10347) grants the controller that read. The finalizer is not to be removed by hand: the
// backup's files (status.path in the repository) would stay, which the data-safety
// boundary forbids; nothing is to be reinstalled. The controller's logs say why; the KubeBlocks
// operator, which shares the ServiceAccount, does not finalize Backups.
//
// Modelled on the Helm chart deploy/helm of KubeBlocks 1.0 (release kb, the report's): in
// namespace kb-system the ServiceAccount kb-kubeblocks, the ClusterRoles kb-kubeblocks (the
// operator's: apps.kubeblocks.io and the workloads it makes) and kb-kubeblocks-dataprotection
// (every dataprotection.kubeblocks.io resource with its finalizers and status; pods, claims,
// secrets, service accounts, jobs, role bindings in the Backup's namespace; no namespaces) and
// their bindings, and the Deployments kb-kubeblocks and kb-kubeblocks-dataprotection with the
// chart's labels; the CRDs of apps.kubeblocks.io and dataprotection.kubeblocks.io, unlabelled,
// trimmed. The admission webhooks are left out: the replay's pods answer no requests, and the
// report is not about them. In namespace demo the Dameng cluster's Backup, its BackupPolicy, and
// the PVC-backed BackupRepo the backup's files are in.
func TestCorpusKubeBlocksBackupWhoseControllerLacksANamespaceRead(t *testing.T) {
	dp := func(kind, plural string, namespaced bool) crd {
		return crd{group: "dataprotection.kubeblocks.io", kind: kind, plural: plural, namespaced: namespaced, versions: []string{"v1alpha1"}}
	}
	chart := `{app.kubernetes.io/name: kubeblocks, app.kubernetes.io/instance: kb, app.kubernetes.io/managed-by: Helm, app.kubernetes.io/version: 1.0.0, helm.sh/chart: kubeblocks-1.0.0}`
	replay{
		crds: []crd{
			{group: "apps.kubeblocks.io", kind: "Cluster", plural: "clusters", namespaced: true, versions: []string{"v1"}},
			{group: "apps.kubeblocks.io", kind: "ClusterDefinition", plural: "clusterdefinitions", versions: []string{"v1"}},
			{group: "apps.kubeblocks.io", kind: "Component", plural: "components", namespaced: true, versions: []string{"v1"}},
			dp("Backup", "backups", true),
			dp("BackupPolicy", "backuppolicies", true),
			dp("BackupSchedule", "backupschedules", true),
			dp("Restore", "restores", true),
			dp("ActionSet", "actionsets", false),
			dp("BackupRepo", "backuprepos", false),
			dp("StorageProvider", "storageproviders", false),
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: kb-system
---
apiVersion: v1
kind: Namespace
metadata:
  name: demo
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kb-kubeblocks
  namespace: kb-system
  labels: ` + chart + `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kb-kubeblocks
  labels: ` + chart + `
rules:
- apiGroups: ["apps.kubeblocks.io", "workloads.kubeblocks.io", "operations.kubeblocks.io"]
  resources: ["*"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["apps"]
  resources: ["statefulsets", "deployments"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["pods", "services", "configmaps", "secrets", "persistentvolumeclaims", "serviceaccounts"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["dataprotection.kubeblocks.io"]
  resources: ["backuppolicies", "backupschedules", "actionsets"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["dataprotection.kubeblocks.io"]
  resources: ["backups"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kb-kubeblocks-dataprotection
  labels: ` + chart + `
rules:
- apiGroups: ["dataprotection.kubeblocks.io"]
  resources: ["actionsets", "backuppolicies", "backuprepos", "backups", "backupschedules", "restores", "storageproviders"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["dataprotection.kubeblocks.io"]
  resources: ["actionsets/finalizers", "backuppolicies/finalizers", "backuprepos/finalizers", "backups/finalizers", "backupschedules/finalizers", "restores/finalizers", "storageproviders/finalizers"]
  verbs: ["update"]
- apiGroups: ["dataprotection.kubeblocks.io"]
  resources: ["actionsets/status", "backuppolicies/status", "backuprepos/status", "backups/status", "backupschedules/status", "restores/status", "storageproviders/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["apps.kubeblocks.io"]
  resources: ["clusters", "components", "clusterdefinitions"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["pods", "persistentvolumeclaims", "persistentvolumes", "secrets", "serviceaccounts", "configmaps"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: ["batch"]
  resources: ["jobs", "cronjobs"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["rolebindings"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["storage.k8s.io"]
  resources: ["storageclasses", "csidrivers"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kb-kubeblocks
  labels: ` + chart + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: kb-kubeblocks
subjects:
- kind: ServiceAccount
  name: kb-kubeblocks
  namespace: kb-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kb-kubeblocks-dataprotection
  labels: ` + chart + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: kb-kubeblocks-dataprotection
subjects:
- kind: ServiceAccount
  name: kb-kubeblocks
  namespace: kb-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kb-kubeblocks
  namespace: kb-system
  labels: ` + chart + `
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: kubeblocks, app.kubernetes.io/instance: kb}
  template:
    metadata:
      labels: {app.kubernetes.io/name: kubeblocks, app.kubernetes.io/instance: kb}
    spec:
      serviceAccountName: kb-kubeblocks
      containers:
      - name: manager
        image: docker.io/apecloud/kubeblocks:1.0.0
        args: ["--health-probe-bind-address=:8081", "--metrics-bind-address=:8080", "--leader-elect"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kb-kubeblocks-dataprotection
  namespace: kb-system
  labels: {app.kubernetes.io/name: kubeblocks-dataprotection, app.kubernetes.io/instance: kb, app.kubernetes.io/managed-by: Helm, app.kubernetes.io/version: 1.0.0, helm.sh/chart: kubeblocks-1.0.0}
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: kubeblocks-dataprotection, app.kubernetes.io/instance: kb}
  template:
    metadata:
      labels: {app.kubernetes.io/name: kubeblocks-dataprotection, app.kubernetes.io/instance: kb}
    spec:
      serviceAccountName: kb-kubeblocks
      containers:
      - name: dataprotection
        image: docker.io/apecloud/kubeblocks-dataprotection:1.0.0
        args: ["--health-probe-bind-address=:8081", "--metrics-bind-address=:8080", "--leader-elect"]
`,
		objects: `
apiVersion: dataprotection.kubeblocks.io/v1alpha1
kind: BackupRepo
metadata:
  name: backuprepo-pvc
  annotations: {dataprotection.kubeblocks.io/is-default-repo: "true"}
spec:
  storageProviderRef: pvc
  accessMethod: Mount
  pvReclaimPolicy: Retain
  volumeCapacity: 100Gi
status:
  phase: Ready
---
apiVersion: apps.kubeblocks.io/v1
kind: Cluster
metadata:
  name: dm-cluster
  namespace: demo
spec:
  clusterDef: dameng
  terminationPolicy: Delete
status:
  phase: Running
---
apiVersion: dataprotection.kubeblocks.io/v1alpha1
kind: BackupPolicy
metadata:
  name: dm-cluster-dameng-backup-policy
  namespace: demo
  labels: {app.kubernetes.io/instance: dm-cluster}
spec:
  backupRepoName: backuprepo-pvc
  target:
    podSelector:
      matchLabels: {app.kubernetes.io/instance: dm-cluster}
  backupMethods:
  - name: full
    actionSetName: dameng-physical-backup
status:
  phase: Available
---
apiVersion: dataprotection.kubeblocks.io/v1alpha1
kind: Backup
metadata:
  name: dm-cluster-full-20260605
  namespace: demo
  labels:
    app.kubernetes.io/instance: dm-cluster
    dataprotection.kubeblocks.io/backup-policy: dm-cluster-dameng-backup-policy
    dataprotection.kubeblocks.io/backup-type: Full
  finalizers: [dataprotection.kubeblocks.io/finalizer]
spec:
  backupMethod: full
  backupPolicyName: dm-cluster-dameng-backup-policy
  deletionPolicy: Delete
status:
  phase: Deleting
  backupRepoName: backuprepo-pvc
  path: /demo/dm-cluster-6f1c2a4e/dm-cluster-full-20260605
  persistentVolumeClaimName: pvc-backuprepo-pvc-x7k2p
  totalSize: "1287364608"
  startTimestamp: "2026-06-05T08:12:40Z"
  completionTimestamp: "2026-06-05T08:14:02Z"
`,
		deletes: []string{"Backup/demo/dm-cluster-full-20260605"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "backups.dataprotection.kubeblocks.io", "dm-cluster-full-20260605", "-n", "demo")
	d.exit(1, "STUCK")
	ref := "backups.dataprotection.kubeblocks.io/dm-cluster-full-20260605 -n demo"
	f := d.finalizer(ref, "dataprotection.kubeblocks.io/finalizer")
	d.remover(f, "deployments.apps/kb-kubeblocks-dataprotection -n kb-system", true)
	d.notDeleting(ref, "a backup unfinalized for an hour")
	// The controller runs and says why in its logs; the strip is not the way out, and if offered
	// at all, its cost names the backup's files it would leave in the repository.
	d.notFirstFix(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
	d.stripCosts(f, "/demo/dm-cluster-6f1c2a4e/dm-cluster-full-20260605")
}
