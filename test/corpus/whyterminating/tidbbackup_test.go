package whyterminating_test

import (
	"strings"
	"testing"
	"time"
)

// Report: https://github.com/pingcap/tidb-operator/issues/2888 ("backups block namespace
// deletion", TiDB Operator v1.1.0): the namespace of a TidbCluster was deleted while it held
// Backups; it stayed Terminating. A Backup carries tidb.pingcap.com/backup-protection; when it is
// deleted with cleanPolicy Delete the operator (running) first runs a Job that deletes the backup
// data from S3, "However, since the namespace is Terminating, Kubernetes refuses to create the
// Job. The operator will keep retrying, and the finalizer on the Backup prevents it from being
// deleted. ... The only workaround seems to be to delete the finalizers." What that leaves: the
// backup's files in the S3 bucket and prefix the Backup names (delete them there by hand).
//
// Modelled on the tidb-operator Helm chart (v1.1.0): namespace tidb-admin, the ServiceAccount
// tidb-controller-manager, its ClusterRole (rules on pingcap.com and the core and batch types it
// manages, abbreviated) and binding, the Deployment tidb-controller-manager with the chart's
// labels and image; the CRDs of pingcap.com. The cluster's own pods went with the namespace's
// content (not replayed).
func TestCorpusTiDBBackupCleanupInTerminatingNamespace(t *testing.T) {
	chart := map[string]string{"app.kubernetes.io/name": "tidb-operator", "app.kubernetes.io/instance": "tidb-operator", "app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "tidb-operator-v1.1.0"}
	replay{
		crds: []crd{
			{group: "pingcap.com", kind: "TidbCluster", plural: "tidbclusters", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
			{group: "pingcap.com", kind: "Backup", plural: "backups", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
			{group: "pingcap.com", kind: "Restore", plural: "restores", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
			{group: "pingcap.com", kind: "BackupSchedule", plural: "backupschedules", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: tidb-admin
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: tidb-controller-manager
  namespace: tidb-admin
  labels:
    app.kubernetes.io/name: tidb-operator
    app.kubernetes.io/instance: tidb-operator
    app.kubernetes.io/component: controller-manager
    helm.sh/chart: tidb-operator-v1.1.0
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: tidb-operator:tidb-controller-manager
  labels:
    app.kubernetes.io/name: tidb-operator
    app.kubernetes.io/instance: tidb-operator
    app.kubernetes.io/component: controller-manager
    helm.sh/chart: tidb-operator-v1.1.0
rules:
- apiGroups: [""]
  resources: ["services", "events"]
  verbs: ["*"]
- apiGroups: [""]
  resources: ["endpoints", "configmaps"]
  verbs: ["create", "get", "list", "watch", "update", "delete"]
- apiGroups: [""]
  resources: ["serviceaccounts"]
  verbs: ["create", "get", "update", "delete"]
- apiGroups: ["batch"]
  resources: ["jobs"]
  verbs: ["get", "list", "watch", "create", "update", "delete"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["create", "update", "get", "list", "watch", "delete"]
- apiGroups: [""]
  resources: ["persistentvolumeclaims"]
  verbs: ["get", "list", "watch", "create", "update", "delete", "patch"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "update", "delete"]
- apiGroups: ["apps"]
  resources: ["statefulsets", "deployments"]
  verbs: ["*"]
- apiGroups: ["pingcap.com"]
  resources: ["*"]
  verbs: ["*"]
- apiGroups: [""]
  resources: ["nodes", "persistentvolumes"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["storage.k8s.io"]
  resources: ["storageclasses"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["roles", "rolebindings"]
  verbs: ["create", "get", "update", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: tidb-operator:tidb-controller-manager
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: tidb-operator:tidb-controller-manager
subjects:
- kind: ServiceAccount
  name: tidb-controller-manager
  namespace: tidb-admin
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: tidb-controller-manager
  namespace: tidb-admin
  labels:
    app.kubernetes.io/name: tidb-operator
    app.kubernetes.io/instance: tidb-operator
    app.kubernetes.io/component: controller-manager
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: tidb-operator-v1.1.0
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: tidb-operator
      app.kubernetes.io/instance: tidb-operator
      app.kubernetes.io/component: controller-manager
  template:
    metadata:
      labels:
        app.kubernetes.io/name: tidb-operator
        app.kubernetes.io/instance: tidb-operator
        app.kubernetes.io/component: controller-manager
    spec:
      serviceAccountName: tidb-controller-manager
      containers:
      - name: tidb-operator
        image: pingcap/tidb-operator:v1.1.0
        command:
        - /usr/local/bin/tidb-controller-manager
        - -tidb-backup-manager-image=pingcap/tidb-backup-manager:v1.1.0
        - -tidb-discovery-image=pingcap/tidb-operator:v1.1.0
        - -cluster-scoped=true
        - -auto-failover=true
        - -v=2
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: tidb-cluster
---
apiVersion: pingcap.com/v1alpha1
kind: Backup
metadata:
  name: demo1-backup-s3
  namespace: tidb-cluster
  labels:
    app.kubernetes.io/component: backup
    app.kubernetes.io/managed-by: backup-operator
    tidb.pingcap.com/backup: demo1-backup-s3
  finalizers:
  - tidb.pingcap.com/backup-protection
spec:
  backupType: full
  cleanPolicy: Delete
  br:
    cluster: demo1
    clusterNamespace: tidb-cluster
  s3:
    provider: aws
    region: us-west-2
    bucket: tidb-backups-prod
    prefix: demo1/2020-07-07
    secretName: s3-secret
status:
  backupPath: s3://tidb-backups-prod/demo1/2020-07-07/
  backupSize: 52428800
  commitTs: "417817384524066817"
  timeStarted: "2020-07-07T21:00:03Z"
  timeCompleted: "2020-07-07T21:06:41Z"
  conditions:
  - type: Complete
    status: "True"
    lastTransitionTime: "2020-07-07T21:06:41Z"
`,
		deletes: []string{"Namespace//tidb-cluster"},
	}.run(t)

	d := diagnoseAfter(t, 2*time.Hour, "namespace", "tidb-cluster")
	d.exit(1, "STUCK")
	f := d.finalizer("backups.pingcap.com/demo1-backup-s3 -n tidb-cluster", "tidb.pingcap.com/backup-protection")
	d.remover(f, "deployments.apps/tidb-controller-manager -n tidb-admin", true)
	d.verdict(f, removerStalled)
	// The namespace refuses the clean Job: the verdict says so, and the strip is the way out,
	// with what it leaves where the Backup records it.
	if f.Stalled == nil || !strings.Contains(strings.Join(append(append([]string{}, f.Stalled.Evidence...), f.Stalled.LikelyReasons...), "\n"), "namespaces/tidb-cluster") {
		t.Errorf("the stalled verdict does not name the Terminating namespace namespaces/tidb-cluster, which refuses the clean Job")
	}
	d.offers(f, stripFinalizer)
	d.stripCosts(f, "s3://tidb-backups-prod/demo1/2020-07-07/")
	d.never(f, reinstall, restoreController)
}
