package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/bitpoke/mysql-operator/issues/349 ("Cannot delete cluster",
// mysql-operator 0.2.x on DigitalOcean): after `helm delete --purge` of the operator, `kubectl
// delete mysql db-cluster` never returned, with or without --force. The maintainer: "On the
// cluster is added a finalizer, to prevent cluster deletion until is removed from k8s. So you
// either remove that finalizer by hand ... or you reinstall the operator to remove the finalizer
// itself." The finalizer of that release is OrchestratorFinalizer (renamed
// mysql.presslabs.org/registered-in-orchestrator in 0.3.0); the operator that removes it, once
// the cluster's nodes are out of Orchestrator, was purged with Orchestrator. The reporter removed
// the finalizer (the reinstall failed); what that leaves is the cluster's registration in an
// Orchestrator that no longer exists, i.e. nothing.
//
// Modelled on what the purge leaves: the CRDs of mysql.presslabs.org (Helm's crd-install hook
// keeps them), no operator; the MysqlCluster as the report's `kubectl get mysql` shows it.
func TestCorpusPresslabsMySQLClusterAfterOperatorPurge(t *testing.T) {
	replay{
		crds: []crd{
			{group: "mysql.presslabs.org", kind: "MysqlCluster", plural: "mysqlclusters", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "mysql.presslabs.org", kind: "MysqlBackup", plural: "mysqlbackups", namespaced: true, versions: []string{"v1alpha1"}},
		},
		objects: `
apiVersion: mysql.presslabs.org/v1alpha1
kind: MysqlCluster
metadata:
  name: db-cluster
  namespace: default
  finalizers:
  - OrchestratorFinalizer
spec:
  replicas: 2
  secretName: db-cluster-secret
  mysqlVersion: "5.7"
  volumeSpec:
    persistentVolumeClaim:
      accessModes: ["ReadWriteOnce"]
      resources:
        requests:
          storage: 1Gi
status:
  readyNodes: 2
  conditions:
  - type: Ready
    status: "True"
    lastTransitionTime: "2019-06-07T14:22:05Z"
`,
		deletes: []string{"MysqlCluster/default/db-cluster"},
	}.run(t)

	d := diagnoseAfter(t, 2*24*time.Hour, "mysqlclusters.mysql.presslabs.org", "db-cluster", "-n", "default")
	d.exit(1, "STUCK")
	f := d.finalizer("mysqlclusters.mysql.presslabs.org/db-cluster -n default", "OrchestratorFinalizer")
	// Nothing that could remove it runs: no remover is named as running, logs are no step, and
	// the strip is offered.
	d.verdict(f, controllerAbsent, finalizerOrphaned)
	d.noRunningRemover(f)
	d.never(f, readLogs)
	d.offers(f, stripFinalizer)
}
