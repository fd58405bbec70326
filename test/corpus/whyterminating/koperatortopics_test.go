package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/banzaicloud/koperator/issues/262 ("Issues deleting KafkaCluster",
// kafka-operator 0.8): the example KafkaCluster would not go. The operator (running) logged
// "KafkaCluster is marked for deletion, checking for children ... Still waiting for the
// following topics to be deleted: [kafka/kafka-cruise-control-topic]": its finalizer
// finalizer.kafkaclusters.kafka.banzaicloud.io stays until every KafkaTopic that refers to the
// cluster (spec.clusterRef, label kafkaCluster) is gone. That KafkaTopic is itself being deleted
// and keeps finalizer.kafkatopics.kafka.banzaicloud.io until the operator has deleted the topic
// through ZooKeeper, which the reporter had deleted first ("You shouldn't delete ZK until all
// resources are cleaned up as ZK is required by Kafka"; #653 is the same after a namespace
// delete). What holds the cluster is that topic; the way out is to remove the topic's finalizer
// by hand (its data went with ZooKeeper and the brokers), after which the operator finishes the
// cluster itself. The cluster's own finalizer is not what to remove.
//
// Modelled on the kafka-operator Helm chart (0.2.x, operator 0.8): in namespace kafka, the
// ServiceAccount kafka-operator-operator, its ClusterRole (rules on kafka.banzaicloud.io and the
// core and apps types it manages, abbreviated) and binding, the Deployment
// kafka-operator-operator with the chart's labels and image; the CRDs of kafka.banzaicloud.io.
// The webhook is left out (the replay's pods answer no requests). ZooKeeper was installed as the
// operator's docs say, by the Pravega zookeeper-operator in namespace zookeeper; the reporter
// deleted the ZookeeperCluster and its claims, so its Service zookeeper-client is gone while the
// namespace and the zookeeper-operator stay (added after the first run, which had no namespace
// zookeeper at all: the install the report implies). The brokers are gone too.
func TestCorpusKoperatorClusterWaitsForTopic(t *testing.T) {
	chart := map[string]string{"app.kubernetes.io/name": "kafka-operator", "app.kubernetes.io/instance": "kafka-operator", "app.kubernetes.io/managed-by": "Tiller", "helm.sh/chart": "kafka-operator-0.2.6"}
	replay{
		crds: []crd{
			{group: "kafka.banzaicloud.io", kind: "KafkaCluster", plural: "kafkaclusters", namespaced: true, versions: []string{"v1beta1"}, labels: chart},
			{group: "kafka.banzaicloud.io", kind: "KafkaTopic", plural: "kafkatopics", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
			{group: "kafka.banzaicloud.io", kind: "KafkaUser", plural: "kafkausers", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: kafka
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kafka-operator-operator
  namespace: kafka
  labels:
    app.kubernetes.io/name: kafka-operator
    app.kubernetes.io/instance: kafka-operator
    app.kubernetes.io/component: operator
    helm.sh/chart: kafka-operator-0.2.6
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kafka-operator-operator
  labels:
    app.kubernetes.io/name: kafka-operator
    app.kubernetes.io/instance: kafka-operator
    helm.sh/chart: kafka-operator-0.2.6
rules:
- apiGroups: ["kafka.banzaicloud.io"]
  resources: ["kafkaclusters", "kafkaclusters/status", "kafkatopics", "kafkatopics/status", "kafkausers", "kafkausers/status"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["configmaps", "persistentvolumeclaims", "pods", "secrets", "services", "events"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["policy"]
  resources: ["poddisruptionbudgets"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["namespaces"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kafka-operator-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: kafka-operator-operator
subjects:
- kind: ServiceAccount
  name: kafka-operator-operator
  namespace: kafka
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kafka-operator-operator
  namespace: kafka
  labels:
    app.kubernetes.io/name: kafka-operator
    app.kubernetes.io/instance: kafka-operator
    app.kubernetes.io/component: operator
    app.kubernetes.io/managed-by: Tiller
    helm.sh/chart: kafka-operator-0.2.6
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: kafka-operator
      app.kubernetes.io/instance: kafka-operator
      app.kubernetes.io/component: operator
  template:
    metadata:
      labels:
        app.kubernetes.io/name: kafka-operator
        app.kubernetes.io/instance: kafka-operator
        app.kubernetes.io/component: operator
    spec:
      serviceAccountName: kafka-operator-operator
      containers:
      - name: manager
        image: banzaicloud/kafka-operator:v0.8.2
        command: ["/manager"]
        args: ["--enable-leader-election", "--cert-manager-enabled=false"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: zookeeper
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: zookeeper-operator
  namespace: zookeeper
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: zookeeper-operator
  namespace: zookeeper
  labels:
    app.kubernetes.io/name: zookeeper-operator
spec:
  replicas: 1
  selector:
    matchLabels:
      name: zookeeper-operator
  template:
    metadata:
      labels:
        name: zookeeper-operator
    spec:
      serviceAccountName: zookeeper-operator
      containers:
      - name: zookeeper-operator
        image: pravega/zookeeper-operator:0.2.4
        command: ["zookeeper-operator"]
---
apiVersion: kafka.banzaicloud.io/v1beta1
kind: KafkaCluster
metadata:
  name: kafka
  namespace: kafka
  labels:
    controller-tools.k8s.io: "1.0"
  finalizers:
  - finalizer.kafkaclusters.kafka.banzaicloud.io
  - users.kafkaclusters.kafka.banzaicloud.io
spec:
  headlessServiceEnabled: true
  zkAddresses:
  - zookeeper-client.zookeeper:2181
  oneBrokerPerNode: false
  clusterImage: wurstmeister/kafka:2.12-2.3.0
  rollingUpgradeConfig:
    failureThreshold: 1
  brokers:
  - id: 0
    brokerConfigGroup: default
  - id: 1
    brokerConfigGroup: default
  - id: 2
    brokerConfigGroup: default
  listenersConfig:
    internalListeners:
    - type: plaintext
      name: plaintext
      containerPort: 29092
      usedForInnerBrokerCommunication: true
  cruiseControlConfig:
    topicConfig:
      partitions: 12
      replicationFactor: 3
status:
  state: ClusterRunning
---
apiVersion: kafka.banzaicloud.io/v1alpha1
kind: KafkaTopic
metadata:
  name: kafka-cruise-control-topic
  namespace: kafka
  labels:
    kafkaCluster: kafka.kafka
  finalizers:
  - finalizer.kafkatopics.kafka.banzaicloud.io
spec:
  clusterRef:
    name: kafka
    namespace: kafka
  name: __CruiseControlMetrics
  partitions: 12
  replicationFactor: 3
status:
  state: created
`,
		deletes: []string{"KafkaCluster/kafka/kafka", "KafkaTopic/kafka/kafka-cruise-control-topic"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "kafkaclusters.kafka.banzaicloud.io", "kafka", "-n", "kafka")
	d.exit(1, "STUCK")
	f := d.finalizer("kafkaclusters.kafka.banzaicloud.io/kafka -n kafka", "finalizer.kafkaclusters.kafka.banzaicloud.io")
	d.remover(f, "deployments.apps/kafka-operator-operator -n kafka", true)
	// The running operator waits for the topic that refers to the cluster: it is the blocker,
	// and the cluster's own finalizer is not stripped first.
	d.blocker(f, "kafkatopics.kafka.banzaicloud.io/kafka-cruise-control-topic -n kafka")
	d.notFirstFix(f, stripFinalizer, readLogs)
	// The topic is stuck on its own finalizer; removing that one is the way out.
	tf := d.finalizer("kafkatopics.kafka.banzaicloud.io/kafka-cruise-control-topic -n kafka", "finalizer.kafkatopics.kafka.banzaicloud.io")
	d.remover(tf, "deployments.apps/kafka-operator-operator -n kafka", true)
	// Why it can never go: the cluster it refers to is being deleted, and the ZooKeeper that
	// cluster names is gone already.
	d.names(tf, "services/zookeeper-client -n zookeeper")
	d.offers(tf, stripFinalizer)
	d.never(tf, reinstall, restoreController)
}
