package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/datastax/cass-operator/issues/357 ("Cassandra Datacenter deletion
// hangs on finalizer", cass-operator 1.5.0 installed with Helm together with the datacenter):
// after `helm delete`, the CassandraDatacenter stayed; `kubectl delete cassdc` hung, with
// --force too. "The cassdc needs to be explicitly deleted, and then the operator can reconcile
// that change and do some cleanup on other resources (namely PVCs) and then it removes the
// finalizer"; Helm deletes without order, and the operator went first (k8ssandra#623 is the same
// race). The reporter's way out: edit the datacenter and remove finalizer.cassandra.datastax.com
// by hand; what that leaves is what the operator would have cleaned up, the data claims of the
// datacenter's StatefulSet (server-data-*), with their volumes.
//
// Modelled on what `helm delete` of that release leaves: the CRD cassandradatacenters of
// cassandra.datastax.com (kept by Helm), no operator (its Deployment, ServiceAccount, Role and
// RoleBinding went with the release); in namespace cassandra the CassandraDatacenter dc1, its
// StatefulSet cassandra-dc1-default-sts (owned by the datacenter, as the operator makes it) with
// its pod running, and the pod's data claim, labelled as the operator labels them. The claim is
// created before the StatefulSet: the control plane's StatefulSet controller would otherwise
// make it from the template first (a race with the replay's create), and it keeps a claim that
// exists.
func TestCorpusCassOperatorDatacenterAfterHelmDelete(t *testing.T) {
	replay{
		crds: []crd{
			{group: "cassandra.datastax.com", kind: "CassandraDatacenter", plural: "cassandradatacenters", namespaced: true, versions: []string{"v1beta1"}},
		},
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: cassandra
---
apiVersion: cassandra.datastax.com/v1beta1
kind: CassandraDatacenter
metadata:
  name: dc1
  namespace: cassandra
  finalizers:
  - finalizer.cassandra.datastax.com
spec:
  clusterName: cassandra
  serverType: cassandra
  serverVersion: 3.11.9
  size: 1
  storageConfig:
    cassandraDataVolumeClaimSpec:
      storageClassName: standard
      accessModes: ["ReadWriteOnce"]
      resources:
        requests:
          storage: 5Gi
status:
  cassandraOperatorProgress: Ready
  nodeStatuses:
    cassandra-dc1-default-sts-0:
      hostID: 4f3b2c1e-9a8d-4e7f-b6c5-d4e3f2a1b0c9
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: server-data-cassandra-dc1-default-sts-0
  namespace: cassandra
  labels:
    app.kubernetes.io/managed-by: cass-operator
    cassandra.datastax.com/cluster: cassandra
    cassandra.datastax.com/datacenter: dc1
    cassandra.datastax.com/rack: default
spec:
  storageClassName: standard
  accessModes: ["ReadWriteOnce"]
  resources:
    requests:
      storage: 5Gi
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: cassandra-dc1-default-sts
  namespace: cassandra
  labels:
    app.kubernetes.io/managed-by: cass-operator
    cassandra.datastax.com/cluster: cassandra
    cassandra.datastax.com/datacenter: dc1
    cassandra.datastax.com/rack: default
  ownerReferences:
  - apiVersion: cassandra.datastax.com/v1beta1
    kind: CassandraDatacenter
    name: dc1
    controller: true
    blockOwnerDeletion: true
spec:
  serviceName: cassandra-dc1-all-pods-service
  replicas: 1
  selector:
    matchLabels:
      cassandra.datastax.com/cluster: cassandra
      cassandra.datastax.com/datacenter: dc1
      cassandra.datastax.com/rack: default
  template:
    metadata:
      labels:
        app.kubernetes.io/managed-by: cass-operator
        cassandra.datastax.com/cluster: cassandra
        cassandra.datastax.com/datacenter: dc1
        cassandra.datastax.com/rack: default
    spec:
      containers:
      - name: cassandra
        image: datastax/cassandra-mgmtapi-3_11_9:v0.1.17
      - name: server-system-logger
        image: busybox
  volumeClaimTemplates:
  - metadata:
      name: server-data
      labels:
        cassandra.datastax.com/cluster: cassandra
        cassandra.datastax.com/datacenter: dc1
    spec:
      storageClassName: standard
      accessModes: ["ReadWriteOnce"]
      resources:
        requests:
          storage: 5Gi
`,
		deletes: []string{"CassandraDatacenter/cassandra/dc1"},
	}.run(t)

	d := diagnoseAfter(t, 3*time.Hour, "cassandradatacenters.cassandra.datastax.com", "dc1", "-n", "cassandra")
	d.exit(1, "STUCK")
	f := d.finalizer("cassandradatacenters.cassandra.datastax.com/dc1 -n cassandra", "finalizer.cassandra.datastax.com")
	// The operator is gone with the release: nothing that runs removes it. The strip is offered,
	// and says it leaves the datacenter's data claims that the operator would have deleted.
	d.verdict(f, controllerAbsent, finalizerOrphaned)
	d.noRunningRemover(f)
	d.never(f, readLogs)
	d.offers(f, stripFinalizer)
	d.stripCosts(f, "server-data-cassandra-dc1-default-sts-0")
}
