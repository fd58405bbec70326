package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/streamnative/pulsar-resources-operator/issues/114 ("PulsarTopic
// cannot be deleted: already deleted"): deleting a PulsarTopic whose lifecyclePolicy is
// CleanUpAfterDeletion "sometimes results in the resource getting stuck"; the operator (running)
// logs "code: 404 reason: Topic not exist" on every pass. It had deleted the topic in Pulsar, its
// update removing the finalizer then failed on a conflict ("the object has been modified"), and
// each later pass tries to delete the topic again, fails on the 404 and never reaches the
// finalizer. The fix (#122) removes the finalizer when Pulsar says the topic does not exist;
// until then the way out is to remove the finalizer cloud.streamnative.io/finalizer by hand —
// what it guarded (the topic in Pulsar) is gone already, which only the operator's log shows.
// The operator is not to be reinstalled or restarted: it runs and acts on the object.
//
// Modelled on the chart charts/pulsar-resources-operator v0.3.3 (the release of the report): in
// namespace sn-system the ServiceAccount, ClusterRole pulsar-resources-operator-manager-cluster-
// role (rules on resource.streamnative.io and their finalizers and status subresources, the
// configmaps and secrets it reads), its binding, the leader-election Role and the Deployment with
// the chart's labels, the kube-rbac-proxy and manager containers; the CRDs of
// resource.streamnative.io from the chart's crds/, unlabelled (the finalizer's prefix,
// cloud.streamnative.io, is not the CRDs' group). The Pulsar cluster the PulsarConnection names runs (the Apache Pulsar chart's broker
// StatefulSet and Service in namespace pulsar): the broker answers, with a 404.
func TestCorpusPulsarTopicAlreadyGoneInPulsar(t *testing.T) {
	crd8 := func(kind, plural string) crd {
		return crd{group: "resource.streamnative.io", kind: kind, plural: plural, namespaced: true, versions: []string{"v1alpha1"}}
	}
	replay{
		crds: []crd{
			crd8("PulsarConnection", "pulsarconnections"),
			crd8("PulsarTenant", "pulsartenants"),
			crd8("PulsarNamespace", "pulsarnamespaces"),
			crd8("PulsarTopic", "pulsartopics"),
			crd8("PulsarPermission", "pulsarpermissions"),
			crd8("PulsarGeoReplication", "pulsargeoreplications"),
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: sn-system
---
apiVersion: v1
kind: Namespace
metadata:
  name: pulsar
---
apiVersion: v1
kind: Namespace
metadata:
  name: orders
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: pulsar-resources-operator
  namespace: sn-system
  labels:
    app.kubernetes.io/name: pulsar-resources-operator
    app.kubernetes.io/instance: pulsar-resources-operator
    app.kubernetes.io/managed-by: Helm
    app.kubernetes.io/version: v0.3.3
    helm.sh/chart: pulsar-resources-operator-v0.3.3
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: pulsar-resources-operator-manager-cluster-role
rules:
- apiGroups: [""]
  resources: ["configmaps", "secrets"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["resource.streamnative.io"]
  resources: ["pulsarconnections", "pulsarnamespaces", "pulsarpermissions", "pulsartenants", "pulsartopics", "pulsargeoreplications"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["resource.streamnative.io"]
  resources: ["pulsarconnections/finalizers", "pulsarnamespaces/finalizers", "pulsarpermissions/finalizers", "pulsartenants/finalizers", "pulsartopics/finalizers", "pulsargeoreplications/finalizers"]
  verbs: ["update"]
- apiGroups: ["resource.streamnative.io"]
  resources: ["pulsarconnections/status", "pulsarnamespaces/status", "pulsarpermissions/status", "pulsartenants/status", "pulsartopics/status", "pulsargeoreplications/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: pulsar-resources-operator-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: pulsar-resources-operator-manager-cluster-role
subjects:
- kind: ServiceAccount
  name: pulsar-resources-operator
  namespace: sn-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: pulsar-resources-operator-leader-election-role
  namespace: sn-system
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: pulsar-resources-operator-leader-election-rolebinding
  namespace: sn-system
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: pulsar-resources-operator-leader-election-role
subjects:
- kind: ServiceAccount
  name: pulsar-resources-operator
  namespace: sn-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: pulsar-resources-operator
  namespace: sn-system
  labels:
    app.kubernetes.io/name: pulsar-resources-operator
    app.kubernetes.io/instance: pulsar-resources-operator
    app.kubernetes.io/managed-by: Helm
    app.kubernetes.io/version: v0.3.3
    helm.sh/chart: pulsar-resources-operator-v0.3.3
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: pulsar-resources-operator
      app.kubernetes.io/instance: pulsar-resources-operator
  template:
    metadata:
      labels:
        app.kubernetes.io/name: pulsar-resources-operator
        app.kubernetes.io/instance: pulsar-resources-operator
    spec:
      serviceAccountName: pulsar-resources-operator
      containers:
      - name: kube-rbac-proxy
        image: gcr.io/kubebuilder/kube-rbac-proxy:v0.14.1
        args: ["--secure-listen-address=0.0.0.0:8443", "--upstream=http://127.0.0.1:8080/", "--logtostderr=true", "--v=0"]
      - name: manager
        image: docker.cloudsmith.io/streamnative/operators/pulsar-resources-operator:v0.3.3
        command: ["/manager"]
        args: ["--health-probe-bind-address=:8081", "--metrics-bind-address=127.0.0.1:8080", "--leader-elect"]
---
apiVersion: v1
kind: Service
metadata:
  name: pulsar-broker
  namespace: pulsar
  labels:
    app: pulsar
    release: pulsar
    component: broker
spec:
  clusterIP: None
  selector:
    app: pulsar
    release: pulsar
    component: broker
  ports:
  - name: http
    port: 8080
  - name: pulsar
    port: 6650
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: pulsar-broker
  namespace: pulsar
  labels:
    app: pulsar
    release: pulsar
    component: broker
spec:
  replicas: 1
  serviceName: pulsar-broker
  selector:
    matchLabels:
      app: pulsar
      release: pulsar
      component: broker
  template:
    metadata:
      labels:
        app: pulsar
        release: pulsar
        component: broker
    spec:
      containers:
      - name: pulsar-broker
        image: apachepulsar/pulsar-all:2.10.4
        command: ["sh", "-c"]
        args: ["bin/pulsar broker"]
`,
		objects: `
apiVersion: resource.streamnative.io/v1alpha1
kind: PulsarConnection
metadata:
  name: pulsar-connection
  namespace: orders
  finalizers:
  - cloud.streamnative.io/finalizer
spec:
  adminServiceURL: http://pulsar-broker.pulsar.svc.cluster.local:8080
  brokerServiceURL: pulsar://pulsar-broker.pulsar.svc.cluster.local:6650
  clusterName: pulsar
status:
  observedGeneration: 1
  conditions:
  - type: Ready
    status: "True"
    reason: Reconciled
    message: ""
    observedGeneration: 1
    lastTransitionTime: "2023-05-17T09:12:03Z"
---
apiVersion: resource.streamnative.io/v1alpha1
kind: PulsarTopic
metadata:
  name: order-events
  namespace: orders
  labels:
    app.kubernetes.io/instance: orders
  finalizers:
  - cloud.streamnative.io/finalizer
spec:
  connectionRef:
    name: pulsar-connection
  name: persistent://public/default/order-events
  persistent: true
  partitions: 3
  lifecyclePolicy: CleanUpAfterDeletion
status:
  observedGeneration: 1
  conditions:
  - type: Ready
    status: "True"
    reason: Reconciled
    message: ""
    observedGeneration: 1
    lastTransitionTime: "2023-05-17T09:12:05Z"
`,
		deletes: []string{"PulsarTopic/orders/order-events"},
	}.run(t)

	// The reporter found it stuck well after the deletion: the operator had retried for long.
	d := diagnoseAfter(t, time.Hour, "pulsartopics.resource.streamnative.io", "order-events", "-n", "orders")
	d.exit(1, "STUCK")
	ref := "pulsartopics.resource.streamnative.io/order-events -n orders"
	f := d.finalizer(ref, "cloud.streamnative.io/finalizer")
	// The operator runs and is the remover: not the broker, not absent, nothing to reinstall.
	d.remover(f, "deployments.apps/pulsar-resources-operator -n sn-system", true)
	d.notRemover(f, "statefulsets.apps/pulsar-broker -n pulsar")
	d.never(f, reinstall, restoreController)
	d.notDeleting(ref, "a topic unfinalized for an hour")
	// The way out the fix takes: remove the finalizer by hand; what it leaves is the topic in
	// Pulsar that the object names, if it still exists.
	d.offers(f, stripFinalizer)
	d.stripCosts(f, "persistent://public/default/order-events")
}
