package whyterminating_test

import "testing"

// Report: https://github.com/rabbitmq/messaging-topology-operator/issues/786 ("Namespace stuck
// in Terminating due to Permission and User"): deleting the namespace of a RabbitmqCluster
// removed the cluster and its default-user Secret; the User and Permission that refer to the
// cluster keep their finalizers, their status saying "failed to retrieve cluster from
// reference: Secret \"rabbitmq-quorum-default-user\" not found". The topology operator runs but
// cannot reach a cluster that no longer exists; "the only way to delete users and permission is
// to patch finalizers" (nothing is left in RabbitMQ to clean up: the cluster is gone).
//
// Modelled on the messaging-topology-operator release manifest (v1.13.0,
// messaging-topology-operator-with-certmanager.yaml) and the cluster operator's
// (cluster-operator.yml): namespace rabbitmq-system, both operators' ServiceAccounts,
// ClusterRoles and bindings with their rules on rabbitmq.com, and Deployments with their
// app.kubernetes.io labels and images. The topology operator's validating webhook is left out:
// the replay's pods answer no requests.
func TestCorpusRabbitMQTopologyUserOfAGoneCluster(t *testing.T) {
	replay{
		crds: []crd{
			{group: "rabbitmq.com", kind: "RabbitmqCluster", plural: "rabbitmqclusters", namespaced: true, versions: []string{"v1beta1"}},
			{group: "rabbitmq.com", kind: "User", plural: "users", namespaced: true, versions: []string{"v1beta1"}},
			{group: "rabbitmq.com", kind: "Permission", plural: "permissions", namespaced: true, versions: []string{"v1beta1"}},
			{group: "rabbitmq.com", kind: "Vhost", plural: "vhosts", namespaced: true, versions: []string{"v1beta1"}},
			{group: "rabbitmq.com", kind: "Queue", plural: "queues", namespaced: true, versions: []string{"v1beta1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: rabbitmq-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: rabbitmq-cluster-operator
  namespace: rabbitmq-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: rabbitmq-cluster-operator-role
rules:
- apiGroups: [""]
  resources: ["configmaps", "services", "secrets", "serviceaccounts", "persistentvolumeclaims"]
  verbs: ["create", "get", "list", "update", "watch", "delete"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "update", "watch"]
- apiGroups: ["apps"]
  resources: ["statefulsets"]
  verbs: ["create", "delete", "get", "list", "update", "watch"]
- apiGroups: ["rabbitmq.com"]
  resources: ["rabbitmqclusters"]
  verbs: ["create", "get", "list", "update", "watch"]
- apiGroups: ["rabbitmq.com"]
  resources: ["rabbitmqclusters/finalizers", "rabbitmqclusters/status"]
  verbs: ["get", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: rabbitmq-cluster-operator-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: rabbitmq-cluster-operator-role
subjects:
- kind: ServiceAccount
  name: rabbitmq-cluster-operator
  namespace: rabbitmq-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: rabbitmq-cluster-operator
  namespace: rabbitmq-system
  labels:
    app.kubernetes.io/component: rabbitmq-operator
    app.kubernetes.io/name: rabbitmq-cluster-operator
    app.kubernetes.io/part-of: rabbitmq
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: rabbitmq-cluster-operator
  template:
    metadata:
      labels:
        app.kubernetes.io/component: rabbitmq-operator
        app.kubernetes.io/name: rabbitmq-cluster-operator
        app.kubernetes.io/part-of: rabbitmq
    spec:
      serviceAccountName: rabbitmq-cluster-operator
      containers:
      - name: operator
        image: rabbitmqoperator/cluster-operator:2.7.0
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: messaging-topology-operator
  namespace: rabbitmq-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: messaging-topology-manager-role
rules:
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "get", "patch"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["create", "get", "list", "update", "watch"]
- apiGroups: [""]
  resources: ["services"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["rabbitmq.com"]
  resources: ["rabbitmqclusters"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["rabbitmq.com"]
  resources: ["rabbitmqclusters/status"]
  verbs: ["get"]
- apiGroups: ["rabbitmq.com"]
  resources: ["users", "permissions", "vhosts", "queues", "exchanges", "bindings", "policies", "federations", "shovels", "schemareplications", "superstreams", "topicpermissions", "operatorpolicies"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["rabbitmq.com"]
  resources: ["users/finalizers", "permissions/finalizers", "vhosts/finalizers", "queues/finalizers"]
  verbs: ["update"]
- apiGroups: ["rabbitmq.com"]
  resources: ["users/status", "permissions/status", "vhosts/status", "queues/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: messaging-topology-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: messaging-topology-manager-role
subjects:
- kind: ServiceAccount
  name: messaging-topology-operator
  namespace: rabbitmq-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: messaging-topology-operator
  namespace: rabbitmq-system
  labels:
    app.kubernetes.io/component: messaging-topology-operator
    app.kubernetes.io/name: messaging-topology-operator
    app.kubernetes.io/part-of: rabbitmq
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: messaging-topology-operator
  template:
    metadata:
      labels:
        app.kubernetes.io/component: messaging-topology-operator
        app.kubernetes.io/name: messaging-topology-operator
        app.kubernetes.io/part-of: rabbitmq
    spec:
      serviceAccountName: messaging-topology-operator
      containers:
      - name: manager
        image: rabbitmqoperator/messaging-topology-operator:1.13.0
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: rabbitmq-system-quorum
---
apiVersion: rabbitmq.com/v1beta1
kind: User
metadata:
  name: admin
  namespace: rabbitmq-system-quorum
  finalizers:
  - deletion.finalizers.users.rabbitmq.com
spec:
  rabbitmqClusterReference:
    name: rabbitmq-quorum
    namespace: rabbitmq-system-quorum
status:
  conditions:
  - type: Ready
    status: "False"
    reason: FailedCreateOrUpdate
    message: 'failed to retrieve cluster from reference: Secret "rabbitmq-quorum-default-user" not found'
    lastTransitionTime: "2024-03-28T09:12:41Z"
---
apiVersion: rabbitmq.com/v1beta1
kind: Permission
metadata:
  name: comelit-permission
  namespace: rabbitmq-system-quorum
  finalizers:
  - deletion.finalizers.permissions.rabbitmq.com
spec:
  vhost: /
  userReference:
    name: admin
  permissions:
    write: .*
    configure: .*
    read: .*
  rabbitmqClusterReference:
    name: rabbitmq-quorum
    namespace: rabbitmq-system-quorum
status:
  conditions:
  - type: Ready
    status: "False"
    reason: FailedCreateOrUpdate
    message: 'failed to retrieve cluster from reference: Secret "rabbitmq-quorum-default-user" not found'
    lastTransitionTime: "2024-03-28T09:12:41Z"
`,
		deletes: []string{"Namespace//rabbitmq-system-quorum"},
	}.run(t)

	d := diagnose(t, "namespace", "rabbitmq-system-quorum")
	d.exit(1, "STUCK")
	for ref, fin := range map[string]string{
		"users.rabbitmq.com/admin -n rabbitmq-system-quorum":                    "deletion.finalizers.users.rabbitmq.com",
		"permissions.rabbitmq.com/comelit-permission -n rabbitmq-system-quorum": "deletion.finalizers.permissions.rabbitmq.com",
	} {
		f := d.finalizer(ref, fin)
		d.remover(f, "deployments.apps/messaging-topology-operator -n rabbitmq-system", true)
		d.notRemover(f, "deployments.apps/rabbitmq-cluster-operator -n rabbitmq-system")
		// What the cleanup needs and cannot find, as the objects' own conditions name it.
		d.names(f, "secrets/rabbitmq-quorum-default-user -n rabbitmq-system-quorum")
		d.offers(f, stripFinalizer)
	}
}
