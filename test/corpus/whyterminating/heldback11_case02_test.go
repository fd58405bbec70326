package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/fluvio-community/fluvio/issues/913 ("fluvio didn't clean up deleted
// topic"; the fix and its reproduction in #914, "Topic delete reconcillation"): after a topic is
// deleted it stays, with deletionTimestamp set and finalizers [foregroundDeletion]. Its
// partitions, which the topic owns, carry partitions.finalizer.fluvio.infinyon.com: the
// streaming controller (fluvio-sc, running) removes it only once the SPU that holds the replica
// has deleted it, and that SPU is not running ("Change the SPU pod image to something invalid
// (just to simulate SPU pod being inactive)"; in #914: kill the SPU, delete the topic, "The topic
// will be delete mode but not removed because of finalizer"). "Restarting SPU will complete" the
// deletion. So the topic waits for its partition, and the partition for the offline SPU (the
// SPU group's StatefulSet fluvio-spg-main, whose pod is not ready); the way out is to bring the
// SPU back, not to strip the topic's foregroundDeletion.
//
// Modelled on Fluvio's Helm charts of the time (k8-util/helm: fluvio-sys for the CRDs of
// fluvio.infinyon.com, fluvio-app for the rest): in namespace default the ServiceAccount fluvio,
// its Role (the core types, apps and every fluvio.infinyon.com resource) and RoleBinding, the
// Deployment fluvio-sc; the SPU group main and the StatefulSet fluvio-spg-main the controller
// made for it (owned by the group), whose pod runs an image that cannot start; the SPU main-0
// the group registered, offline; the topic t0 with one partition t0-0 whose leader is SPU 0.
func TestCorpusFluvioTopicWaitsForAPartitionOfAnOfflineSPU(t *testing.T) {
	fl := func(kind, plural string) crd {
		return crd{group: "fluvio.infinyon.com", kind: kind, plural: plural, namespaced: true, versions: []string{"v1"}}
	}
	replay{
		crds: []crd{
			fl("SpuGroup", "spugroups"),
			fl("Spu", "spus"),
			fl("Topic", "topics"),
			fl("Partition", "partitions"),
		},
		install: `
apiVersion: v1
kind: ServiceAccount
metadata:
  name: fluvio
  namespace: default
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: fluvio
  namespace: default
rules:
- apiGroups: [""]
  resources: ["pods", "services", "statefulsets.apps", "persistentvolumeclaims", "persistentvolumes", "replicasets", "deployments", "configmaps"]
  verbs: ["*"]
- apiGroups: ["apps"]
  resources: ["*"]
  verbs: ["*"]
- apiGroups: ["fluvio.infinyon.com"]
  resources: ["*"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: fluvio
  namespace: default
subjects:
- kind: ServiceAccount
  name: fluvio
roleRef:
  kind: Role
  name: fluvio
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: fluvio-sc
  namespace: default
spec:
  replicas: 1
  selector:
    matchLabels: {app: fluvio-sc}
  template:
    metadata:
      labels: {app: fluvio-sc}
    spec:
      serviceAccountName: fluvio
      containers:
      - name: fluvio-sc
        image: infinyon/fluvio:0.7.3
        command: ["/fluvio-run", "sc"]
        args: ["--k8"]
        ports:
        - containerPort: 9003
        env:
        - {name: RUST_LOG, value: info}
---
apiVersion: v1
kind: Service
metadata:
  name: fluvio-sc-public
  namespace: default
spec:
  selector: {app: fluvio-sc}
  ports:
  - port: 9003
    targetPort: 9003
`,
		objects: `
apiVersion: fluvio.infinyon.com/v1
kind: SpuGroup
metadata:
  name: main
  namespace: default
spec:
  replicas: 1
  minId: 0
status:
  resolution: Reserved
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: fluvio-spg-main
  namespace: default
  labels: {app: spu, group: main}
  ownerReferences:
  - apiVersion: fluvio.infinyon.com/v1
    kind: SpuGroup
    name: main
    controller: true
spec:
  replicas: 1
  serviceName: fluvio-spg-main
  selector:
    matchLabels: {app: spu, group: main}
  template:
    metadata:
      labels: {app: spu, group: main}
    spec:
      containers:
      - name: fluvio-spu
        image: infinyon/fluvio:does-not-exist
        command: ["/fluvio-run", "spu"]
        args: ["--sc-addr", "fluvio-sc-internal.default.svc.cluster.local:9004"]
---
apiVersion: fluvio.infinyon.com/v1
kind: Spu
metadata:
  name: main-0
  namespace: default
  ownerReferences:
  - apiVersion: fluvio.infinyon.com/v1
    kind: SpuGroup
    name: main
spec:
  spuId: 0
  spuType: Managed
  publicEndpoint: {host: fluvio-spu-main-0.default.svc.cluster.local, port: 9005}
  privateEndpoint: {host: fluvio-spg-main-0.fluvio-spg-main.default.svc.cluster.local, port: 9006}
status:
  resolution: Offline
---
apiVersion: fluvio.infinyon.com/v1
kind: Topic
metadata:
  name: t0
  namespace: default
  finalizers: [foregroundDeletion]
spec:
  type: computed
  partitions: 1
  replicationFactor: 1
status:
  resolution: Deleting
  reason: ""
  replicaMap:
    "0": [0]
---
apiVersion: fluvio.infinyon.com/v1
kind: Partition
metadata:
  name: t0-0
  namespace: default
  finalizers: [partitions.finalizer.fluvio.infinyon.com]
  ownerReferences:
  - apiVersion: fluvio.infinyon.com/v1
    kind: Topic
    name: t0
    blockOwnerDeletion: true
spec:
  leader: 0
  replicas: [0]
status:
  resolution: Offline
  isBeingDeleted: true
`,
		unready: []string{"default/fluvio-spg-main"},
		deletes: []string{"Topic/default/t0"},
	}.run(t)

	d := diagnoseAfter(t, 30*time.Minute, "topics.fluvio.infinyon.com", "t0", "-n", "default")
	d.exit(1, "STUCK")
	f := d.finalizer("topics.fluvio.infinyon.com/t0 -n default", "foregroundDeletion")
	// The topic waits for its partition; its own foregroundDeletion is not what to remove.
	d.blocker(f, "partitions.fluvio.infinyon.com/t0-0 -n default")
	d.notFirstFix(f, stripFinalizer)
	p := d.finalizer("partitions.fluvio.infinyon.com/t0-0 -n default", "partitions.finalizer.fluvio.infinyon.com")
	d.remover(p, "deployments.apps/fluvio-sc -n default", true)
	// The controller runs and waits for the SPU holding the replica, which is not running:
	// bringing the SPU back completes the deletion.
	d.names(p, "fluvio-spg-main")
	d.notFirstFix(p, stripFinalizer)
	d.never(p, reinstall, restoreController)
}
