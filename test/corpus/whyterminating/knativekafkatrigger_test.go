package whyterminating_test

import "testing"

// Report: https://github.com/knative-extensions/eventing-kafka-broker/issues/1590 ("Deleting
// Broker before Trigger leaves the Trigger's kafka.triggers.eventing.knative.dev finalizer
// stuck", 0.26, installed by the Serverless operator): a Kafka-class Broker was deleted first,
// then one of its Triggers; the Trigger stays Terminating. The maintainer's fix (#1350, "Remove
// Trigger finalizer when Broker is removed"): "t1 will be in Terminating state forever since our
// reconciler will not reconcile it since we can't know if Trigger is our trigger given that there
// is not b1" — the Kafka controller (running) filters Triggers by their Broker's class, and the
// Broker the Trigger's spec.broker names is gone. What it guarded (the Trigger's entry in the
// Broker's data-plane contract) went with the Broker: the way out is to remove the finalizer by
// hand, or to create the Broker again so that the controller finalizes the Trigger. Knative
// Eventing's own controller also runs and may update Triggers; it is not this finalizer's remover.
//
// Modelled on the releases v0.26.1 of knative/eventing (config/core: namespace knative-eventing,
// the ServiceAccount eventing-controller, ClusterRole knative-eventing-controller and its
// binding, the Deployment eventing-controller; the CRDs brokers, triggers, eventtypes of
// eventing.knative.dev and channels, subscriptions of messaging.knative.dev) and of
// knative-extensions/eventing-kafka-broker (control-plane/config: the ServiceAccount, ClusterRole
// and binding kafka-controller, the Deployment kafka-controller, the ConfigMap
// kafka-broker-config; the CRD kafkasinks.eventing.knative.dev). The Trigger's status is what
// Knative Eventing's Trigger reconciler wrote once the Broker was gone (BrokerDoesNotExist).
func TestCorpusKnativeKafkaTriggerOfADeletedBroker(t *testing.T) {
	eventing := map[string]string{"eventing.knative.dev/release": "v0.26.1", "knative.dev/crd-install": "true"}
	kafka := map[string]string{"kafka.eventing.knative.dev/release": "v0.26.1"}
	replay{
		crds: []crd{
			{group: "eventing.knative.dev", kind: "Broker", plural: "brokers", namespaced: true, versions: []string{"v1"}, labels: eventing},
			{group: "eventing.knative.dev", kind: "Trigger", plural: "triggers", namespaced: true, versions: []string{"v1"}, labels: eventing},
			{group: "eventing.knative.dev", kind: "EventType", plural: "eventtypes", namespaced: true, versions: []string{"v1beta1"}, labels: eventing},
			{group: "messaging.knative.dev", kind: "Channel", plural: "channels", namespaced: true, versions: []string{"v1"}, labels: eventing},
			{group: "messaging.knative.dev", kind: "Subscription", plural: "subscriptions", namespaced: true, versions: []string{"v1"}, labels: eventing},
			{group: "eventing.knative.dev", kind: "KafkaSink", plural: "kafkasinks", namespaced: true, versions: []string{"v1alpha1"}, labels: kafka},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: knative-eventing
---
apiVersion: v1
kind: Namespace
metadata:
  name: orders
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: eventing-controller
  namespace: knative-eventing
  labels:
    eventing.knative.dev/release: v0.26.1
    app.kubernetes.io/version: v0.26.1
    app.kubernetes.io/part-of: knative-eventing
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: knative-eventing-controller
  labels:
    eventing.knative.dev/release: v0.26.1
    app.kubernetes.io/version: v0.26.1
    app.kubernetes.io/part-of: knative-eventing
rules:
- apiGroups: [""]
  resources: ["namespaces", "secrets", "configmaps", "services", "endpoints", "events", "serviceaccounts", "pods"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
- apiGroups: ["apps"]
  resources: ["deployments/finalizers"]
  verbs: ["update"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["rolebindings"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
- apiGroups: ["eventing.knative.dev"]
  resources: ["brokers", "brokers/status", "triggers", "triggers/status", "eventtypes", "eventtypes/status"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
- apiGroups: ["eventing.knative.dev"]
  resources: ["brokers/finalizers", "triggers/finalizers"]
  verbs: ["update"]
- apiGroups: ["messaging.knative.dev"]
  resources: ["sequences", "sequences/status", "channels", "channels/status", "parallels", "parallels/status", "subscriptions", "subscriptions/status"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
- apiGroups: ["messaging.knative.dev"]
  resources: ["sequences/finalizers", "parallels/finalizers", "channels/finalizers"]
  verbs: ["update"]
- apiGroups: ["apiextensions.k8s.io"]
  resources: ["customresourcedefinitions"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: eventing-controller
  labels:
    eventing.knative.dev/release: v0.26.1
    app.kubernetes.io/version: v0.26.1
    app.kubernetes.io/part-of: knative-eventing
subjects:
- kind: ServiceAccount
  name: eventing-controller
  namespace: knative-eventing
roleRef:
  kind: ClusterRole
  name: knative-eventing-controller
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: eventing-controller
  namespace: knative-eventing
  labels:
    eventing.knative.dev/release: v0.26.1
    knative.dev/high-availability: "true"
    app.kubernetes.io/name: eventing-controller
    app.kubernetes.io/version: v0.26.1
    app.kubernetes.io/part-of: knative-eventing
spec:
  selector:
    matchLabels:
      app: eventing-controller
  template:
    metadata:
      labels:
        app: eventing-controller
        eventing.knative.dev/release: v0.26.1
        app.kubernetes.io/name: eventing-controller
        app.kubernetes.io/version: v0.26.1
        app.kubernetes.io/part-of: knative-eventing
    spec:
      serviceAccountName: eventing-controller
      containers:
      - name: eventing-controller
        image: gcr.io/knative-releases/knative.dev/eventing/cmd/controller:v0.26.1
        env:
        - name: SYSTEM_NAMESPACE
          value: knative-eventing
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: kafka-broker-config
  namespace: knative-eventing
  labels:
    kafka.eventing.knative.dev/release: v0.26.1
data:
  default.topic.partitions: "10"
  default.topic.replication.factor: "3"
  bootstrap.servers: my-cluster-kafka-bootstrap.kafka:9092
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kafka-controller
  namespace: knative-eventing
  labels:
    kafka.eventing.knative.dev/release: v0.26.1
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kafka-controller
  labels:
    kafka.eventing.knative.dev/release: v0.26.1
rules:
- apiGroups: ["*"]
  resources: ["configmaps"]
  verbs: ["get", "list", "watch", "update", "create"]
- apiGroups: ["*"]
  resources: ["pods"]
  verbs: ["list", "update", "get", "watch"]
- apiGroups: ["*"]
  resources: ["events"]
  verbs: ["patch", "create"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
- apiGroups: ["*"]
  resources: ["secrets"]
  verbs: ["list", "get", "watch"]
- apiGroups: ["eventing.knative.dev"]
  resources: ["brokers", "brokers/status", "triggers", "triggers/status", "kafkasinks", "kafkasinks/status"]
  verbs: ["list", "get", "watch", "patch", "update"]
- apiGroups: ["eventing.knative.dev"]
  resources: ["brokers/finalizers", "triggers/finalizers", "kafkasinks/finalizers"]
  verbs: ["update"]
- apiGroups: ["messaging.knative.dev"]
  resources: ["kafkachannels", "kafkachannels/status"]
  verbs: ["get", "list", "watch", "update", "patch"]
- apiGroups: ["messaging.knative.dev"]
  resources: ["kafkachannels/finalizers"]
  verbs: ["update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kafka-controller
  labels:
    kafka.eventing.knative.dev/release: v0.26.1
subjects:
- kind: ServiceAccount
  name: kafka-controller
  namespace: knative-eventing
roleRef:
  kind: ClusterRole
  name: kafka-controller
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kafka-controller
  namespace: knative-eventing
  labels:
    app: kafka-controller
    kafka.eventing.knative.dev/release: v0.26.1
spec:
  selector:
    matchLabels:
      app: kafka-controller
  template:
    metadata:
      labels:
        app: kafka-controller
        kafka.eventing.knative.dev/release: v0.26.1
    spec:
      serviceAccountName: kafka-controller
      containers:
      - name: controller
        image: gcr.io/knative-releases/knative.dev/eventing-kafka-broker/control-plane/cmd/kafka-controller:v0.26.1
        env:
        - name: BROKER_DATA_PLANE_CONFIG_MAP_NAMESPACE
          value: knative-eventing
        - name: BROKER_DATA_PLANE_CONFIG_MAP_NAME
          value: kafka-broker-brokers-triggers
        - name: BROKER_GENERAL_CONFIG_MAP_NAME
          value: kafka-broker-config
`,
		objects: `
apiVersion: v1
kind: Service
metadata:
  name: event-display
  namespace: orders
spec:
  selector:
    app: event-display
  ports:
  - port: 80
    targetPort: 8080
---
apiVersion: eventing.knative.dev/v1
kind: Trigger
metadata:
  name: order-created
  namespace: orders
  labels:
    eventing.knative.dev/broker: orders-broker
  finalizers:
  - kafka.triggers.eventing.knative.dev
spec:
  broker: orders-broker
  filter:
    attributes:
      type: dev.example.order.created
  subscriber:
    ref:
      apiVersion: v1
      kind: Service
      name: event-display
status:
  observedGeneration: 1
  subscriberUri: http://event-display.orders.svc.cluster.local
  conditions:
  - type: BrokerReady
    status: "False"
    reason: BrokerDoesNotExist
    message: Broker "orders-broker" does not exist
    lastTransitionTime: "2021-12-13T10:41:07Z"
  - type: DependencyReady
    status: "True"
    lastTransitionTime: "2021-12-13T10:20:01Z"
  - type: Ready
    status: "False"
    reason: BrokerDoesNotExist
    message: Broker "orders-broker" does not exist
    lastTransitionTime: "2021-12-13T10:41:07Z"
  - type: SubscriberResolved
    status: "True"
    lastTransitionTime: "2021-12-13T10:20:01Z"
`,
		deletes: []string{"Trigger/orders/order-created"},
	}.run(t)

	d := diagnose(t, "triggers.eventing.knative.dev", "order-created", "-n", "orders")
	d.exit(1, "STUCK")
	f := d.finalizer("triggers.eventing.knative.dev/order-created -n orders", "kafka.triggers.eventing.knative.dev")
	// The Kafka controller is the remover, not Knative Eventing's own controller.
	d.remover(f, "deployments.apps/kafka-controller -n knative-eventing", true)
	// What holds it: the Broker its spec names is gone; nothing to reinstall, logs say no more.
	d.blocker(f, "brokers.eventing.knative.dev/orders-broker -n orders", "missing-object")
	d.never(f, reinstall, restoreController)
	d.notFirstFix(f, readLogs)
	d.offers(f, stripFinalizer)
}
