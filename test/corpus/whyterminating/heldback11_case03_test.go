package whyterminating_test

import "testing"

// Report: https://github.com/Orange-OpenSource/casskop/issues/159 ("Removal of namespace hangs
// on terminating"): a namespace holding CassKop and a running Cassandra cluster is deleted
// "without prior warning"; it hangs in Terminating. "The issue may come from the finalizer of the
// CRD": the CassandraCluster (spec.deletePVC: true) carries kubernetes.io/pvc-to-delete, which
// the operator removes once it has deleted the cluster's data claims, and the operator ran in
// that same namespace (the chart's namespaced Role, WATCH_NAMESPACE its own namespace): the
// namespace deletion removed it before it could finish. Nothing left runs that removes the
// finalizer. The ways out the thread reached: delete the cluster and wait for it to be gone
// before deleting the namespace (`kubectl -n <namespace> wait --for=delete ...`), and for a
// namespace already stuck, remove the finalizer by hand (the claims go with the namespace).
//
// Modelled on CassKop's Helm chart cassandra-operator 0.5.0 (the release of the report): the CRD
// cassandraclusters.db.orange.com with the chart's labels; the operator's ServiceAccount, Role,
// RoleBinding and Deployment were in the deleted namespace and went with it (not replayed). The
// cluster as the chart's example makes it (one DC, one rack), Running before the deletion.
func TestCorpusCassKopNamespaceDeletedWithItsOperator(t *testing.T) {
	replay{
		crds: []crd{
			{group: "db.orange.com", kind: "CassandraCluster", plural: "cassandraclusters", namespaced: true, versions: []string{"v1alpha1"},
				labels: map[string]string{"app": "cassandra-operator", "chart": "cassandra-operator-0.5.0", "release": "casskop", "heritage": "Tiller"}},
		},
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: cassandra-demo
---
apiVersion: db.orange.com/v1alpha1
kind: CassandraCluster
metadata:
  name: cassandra-demo
  namespace: cassandra-demo
  labels:
    cluster: k8s.pic
  finalizers: [kubernetes.io/pvc-to-delete]
spec:
  nodesPerRacks: 1
  cassandraImage: cassandra:3.11
  deletePVC: true
  autoPilot: true
  dataCapacity: 3Gi
  resources:
    requests: {cpu: 500m, memory: 1Gi}
    limits: {cpu: "1", memory: 2Gi}
  topology:
    dc:
    - name: dc1
      rack:
      - name: rack1
status:
  phase: Running
  lastClusterAction: Initializing
  lastClusterActionStatus: Done
  cassandraRackStatus:
    dc1-rack1:
      phase: Running
      cassandraLastAction:
        name: Initializing
        status: Done
`,
		deletes: []string{"Namespace//cassandra-demo"},
	}.run(t)

	d := diagnose(t, "namespace", "cassandra-demo")
	d.exit(1, "STUCK")
	f := d.finalizer("cassandraclusters.db.orange.com/cassandra-demo -n cassandra-demo", "kubernetes.io/pvc-to-delete")
	// Its remover went with the namespace: no running workload removes it.
	d.noRunningRemover(f)
	d.offers(f, stripFinalizer)
	d.never(f, restoreController)
	// Added after the held-back run (BATCH11-SPLIT.txt 07): the finalizer's domain is Kubernetes'
	// own, and what carries its labels (the cluster's bootstrap RBAC) is not the product's.
	d.stripNeverCosts(f, "clusterrolebindings.rbac.authorization.k8s.io/cluster-admin", "labelled in kubernetes.io")
}
