package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/GoogleCloudPlatform/k8s-config-connector/issues/375 ("Deleting a
// Namespace breaks KCC in namespace mode"): Config Connector runs in namespaced mode, one
// controller manager per namespace, which the configconnector-operator starts for each
// ConfigConnectorContext and stops when that context is deleted. `kubectl delete namespace X`
// deletes the namespace's ConfigConnectorContext together with everything else, so the
// operator removes the namespace's controller manager (its StatefulSet and service account)
// while the namespace's Config Connector resources still carry cnrm.cloud.google.com/finalizer,
// "which causes all the kcc resources in that namespace to block on a finalizer that hangs
// forever, blocking deletion of the namespace". The deletion defender (cnrm-deletiondefender,
// running) only handles its own finalizer. The reporter's way out: mark each resource abandoned
// (annotation cnrm.cloud.google.com/deletion-policy: abandon) and remove its finalizer; the
// Google Cloud resources stay (delete them in the project if they are not wanted).
//
// Open until #38's held-back fixes (BATCH4-SPLIT.txt 04; the earlier reasoning is in git
// history): the tool named the running deletion defender the remover of
// cnrm.cloud.google.com/finalizer and sent the operator to its logs, and nothing in the replay
// could tell the defender from the gone namespaced controller manager by a general rule. The
// cluster fact that tells them apart is who added the finalizer: the object's managedFields
// entry that owns `f:metadata.f:finalizers.v:"cnrm.cloud.google.com/finalizer"`. Config
// Connector's controller manager adds it (with the defender's own finalizer) through its
// lifecycle handler's update, written with client.FieldOwner(k8s.ControllerManagedFieldManager),
// "cnrm-controller-manager" (GoogleCloudPlatform/k8s-config-connector pkg/k8s constants and
// pkg/controller/lifecyclehandler/handler.go, as read in the current source; whether the v1.31
// of the report already wrote with that field owner is not checked — an older binary writing as
// its user agent's first word, "manager", names nothing of the domain and would leave the rule
// silent, not wrong). The replay now adds the finalizers as that field manager (finalizersBy);
// the general rule (internal/finalizers/finalizeradder.go) then finds that no workload answers
// to it, lists the defender apart, and gives the gone component's verdict with the strip.
//
// Modelled on the Config Connector operator's namespaced-mode install (v1.31): namespace
// configconnector-operator-system with the StatefulSet configconnector-operator; namespace
// cnrm-system with the Deployment cnrm-webhook-manager and the StatefulSets
// cnrm-deletiondefender and cnrm-resource-stats-recorder, their service accounts, the
// ClusterRoles (rules abbreviated to the groups that bear on the case) and bindings, with the
// install's cnrm.cloud.google.com labels; the CRDs of the resources in the case and of
// core.cnrm.cloud.google.com. The namespace's own controller manager is gone, as the operator
// left it once the ConfigConnectorContext was deleted. The webhooks are left out: the replay's
// pods answer no requests.
func TestCorpusConfigConnectorNamespacedControllerGone(t *testing.T) {
	kcc := map[string]string{"cnrm.cloud.google.com/managed-by-kcc": "true", "cnrm.cloud.google.com/system": "true", "cnrm.cloud.google.com/stability-level": "stable"}
	replay{
		crds: []crd{
			{group: "core.cnrm.cloud.google.com", kind: "ConfigConnector", plural: "configconnectors", versions: []string{"v1beta1"}, labels: map[string]string{"cnrm.cloud.google.com/operator-system": "true"}},
			{group: "core.cnrm.cloud.google.com", kind: "ConfigConnectorContext", plural: "configconnectorcontexts", namespaced: true, versions: []string{"v1beta1"}, labels: map[string]string{"cnrm.cloud.google.com/operator-system": "true"}},
			{group: "storage.cnrm.cloud.google.com", kind: "StorageBucket", plural: "storagebuckets", namespaced: true, versions: []string{"v1beta1"}, labels: kcc},
			{group: "pubsub.cnrm.cloud.google.com", kind: "PubSubTopic", plural: "pubsubtopics", namespaced: true, versions: []string{"v1beta1"}, labels: kcc},
			{group: "iam.cnrm.cloud.google.com", kind: "IAMServiceAccount", plural: "iamserviceaccounts", namespaced: true, versions: []string{"v1beta1"}, labels: kcc},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: configconnector-operator-system
  labels:
    cnrm.cloud.google.com/operator-system: "true"
---
apiVersion: v1
kind: Namespace
metadata:
  name: cnrm-system
  labels:
    cnrm.cloud.google.com/system: "true"
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: configconnector-operator
  namespace: configconnector-operator-system
  labels:
    cnrm.cloud.google.com/operator-system: "true"
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: configconnector-operator-manager-role
  labels:
    cnrm.cloud.google.com/operator-system: "true"
rules:
- apiGroups: ["core.cnrm.cloud.google.com"]
  resources: ["configconnectors", "configconnectors/status", "configconnectorcontexts", "configconnectorcontexts/status"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["apps"]
  resources: ["statefulsets", "deployments"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["serviceaccounts", "services", "namespaces"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["clusterroles", "clusterrolebindings", "roles", "rolebindings"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete", "bind", "escalate"]
- apiGroups: ["apiextensions.k8s.io"]
  resources: ["customresourcedefinitions"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: configconnector-operator-manager-rolebinding
  labels:
    cnrm.cloud.google.com/operator-system: "true"
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: configconnector-operator-manager-role
subjects:
- kind: ServiceAccount
  name: configconnector-operator
  namespace: configconnector-operator-system
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: configconnector-operator
  namespace: configconnector-operator-system
  labels:
    cnrm.cloud.google.com/operator-system: "true"
    cnrm.cloud.google.com/component: configconnector-operator
  annotations:
    cnrm.cloud.google.com/operator-version: 1.31.1
spec:
  replicas: 1
  serviceName: configconnector-operator-service
  selector:
    matchLabels:
      cnrm.cloud.google.com/operator-system: "true"
      cnrm.cloud.google.com/component: configconnector-operator
  template:
    metadata:
      labels:
        cnrm.cloud.google.com/operator-system: "true"
        cnrm.cloud.google.com/component: configconnector-operator
    spec:
      serviceAccountName: configconnector-operator
      containers:
      - name: manager
        image: gcr.io/gke-release/cnrm/operator:1.31.1
        command: ["/configconnector-operator/manager"]
        args: ["--local-repo=/configconnector-operator/channels"]
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: cnrm-deletiondefender
  namespace: cnrm-system
  labels:
    cnrm.cloud.google.com/system: "true"
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: cnrm-webhook-manager
  namespace: cnrm-system
  labels:
    cnrm.cloud.google.com/system: "true"
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: cnrm-resource-stats-recorder
  namespace: cnrm-system
  labels:
    cnrm.cloud.google.com/system: "true"
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: cnrm-deletiondefender-role
  labels:
    cnrm.cloud.google.com/system: "true"
rules:
- apiGroups: ["apiextensions.k8s.io"]
  resources: ["customresourcedefinitions"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["storage.cnrm.cloud.google.com", "pubsub.cnrm.cloud.google.com", "iam.cnrm.cloud.google.com"]
  resources: ["*"]
  verbs: ["get", "list", "watch", "update", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: cnrm-deletiondefender-role-binding
  labels:
    cnrm.cloud.google.com/system: "true"
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cnrm-deletiondefender-role
subjects:
- kind: ServiceAccount
  name: cnrm-deletiondefender
  namespace: cnrm-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: cnrm-webhook-role
  labels:
    cnrm.cloud.google.com/system: "true"
rules:
- apiGroups: ["storage.cnrm.cloud.google.com", "pubsub.cnrm.cloud.google.com", "iam.cnrm.cloud.google.com"]
  resources: ["*"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["admissionregistration.k8s.io"]
  resources: ["validatingwebhookconfigurations", "mutatingwebhookconfigurations"]
  verbs: ["get", "list", "watch", "create", "update", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: cnrm-webhook-role-binding
  labels:
    cnrm.cloud.google.com/system: "true"
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cnrm-webhook-role
subjects:
- kind: ServiceAccount
  name: cnrm-webhook-manager
  namespace: cnrm-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: cnrm-recorder-role
  labels:
    cnrm.cloud.google.com/system: "true"
rules:
- apiGroups: ["storage.cnrm.cloud.google.com", "pubsub.cnrm.cloud.google.com", "iam.cnrm.cloud.google.com"]
  resources: ["*"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: cnrm-recorder-binding
  labels:
    cnrm.cloud.google.com/system: "true"
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cnrm-recorder-role
subjects:
- kind: ServiceAccount
  name: cnrm-resource-stats-recorder
  namespace: cnrm-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: cnrm-admin
  labels:
    cnrm.cloud.google.com/system: "true"
rules:
- apiGroups: ["storage.cnrm.cloud.google.com", "pubsub.cnrm.cloud.google.com", "iam.cnrm.cloud.google.com"]
  resources: ["*"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: cnrm-deletiondefender
  namespace: cnrm-system
  labels:
    cnrm.cloud.google.com/system: "true"
    cnrm.cloud.google.com/component: cnrm-deletiondefender
spec:
  replicas: 1
  serviceName: cnrm-deletiondefender
  selector:
    matchLabels:
      cnrm.cloud.google.com/system: "true"
      cnrm.cloud.google.com/component: cnrm-deletiondefender
  template:
    metadata:
      labels:
        cnrm.cloud.google.com/system: "true"
        cnrm.cloud.google.com/component: cnrm-deletiondefender
    spec:
      serviceAccountName: cnrm-deletiondefender
      containers:
      - name: deletiondefender
        image: gcr.io/gke-release/cnrm/deletiondefender:1.31.1
        command: ["/configconnector/deletiondefender"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: cnrm-webhook-manager
  namespace: cnrm-system
  labels:
    cnrm.cloud.google.com/system: "true"
    cnrm.cloud.google.com/component: cnrm-webhook-manager
spec:
  replicas: 1
  selector:
    matchLabels:
      cnrm.cloud.google.com/system: "true"
      cnrm.cloud.google.com/component: cnrm-webhook-manager
  template:
    metadata:
      labels:
        cnrm.cloud.google.com/system: "true"
        cnrm.cloud.google.com/component: cnrm-webhook-manager
    spec:
      serviceAccountName: cnrm-webhook-manager
      containers:
      - name: webhook
        image: gcr.io/gke-release/cnrm/webhook:1.31.1
        command: ["/configconnector/webhook"]
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: cnrm-resource-stats-recorder
  namespace: cnrm-system
  labels:
    cnrm.cloud.google.com/system: "true"
    cnrm.cloud.google.com/component: cnrm-resource-stats-recorder
spec:
  replicas: 1
  serviceName: cnrm-resource-stats-recorder-service
  selector:
    matchLabels:
      cnrm.cloud.google.com/system: "true"
      cnrm.cloud.google.com/component: cnrm-resource-stats-recorder
  template:
    metadata:
      labels:
        cnrm.cloud.google.com/system: "true"
        cnrm.cloud.google.com/component: cnrm-resource-stats-recorder
    spec:
      serviceAccountName: cnrm-resource-stats-recorder
      containers:
      - name: recorder
        image: gcr.io/gke-release/cnrm/recorder:1.31.1
        command: ["/configconnector/recorder", "--prometheus-scrape-endpoint=:8888"]
---
apiVersion: core.cnrm.cloud.google.com/v1beta1
kind: ConfigConnector
metadata:
  name: configconnector.core.cnrm.cloud.google.com
spec:
  mode: namespaced
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: team-orders
  annotations:
    cnrm.cloud.google.com/project-id: acme-orders-prod
---
apiVersion: storage.cnrm.cloud.google.com/v1beta1
kind: StorageBucket
metadata:
  name: acme-orders-exports
  namespace: team-orders
  annotations:
    cnrm.cloud.google.com/project-id: acme-orders-prod
    cnrm.cloud.google.com/management-conflict-prevention-policy: none
  finalizers:
  - cnrm.cloud.google.com/finalizer
spec:
  location: EU
  storageClass: STANDARD
  uniformBucketLevelAccess: true
status:
  selfLink: https://www.googleapis.com/storage/v1/b/acme-orders-exports
  url: gs://acme-orders-exports
  conditions:
  - type: Ready
    status: "True"
    reason: UpToDate
    message: The resource is up to date
    lastTransitionTime: "2021-01-20T08:14:03Z"
---
apiVersion: pubsub.cnrm.cloud.google.com/v1beta1
kind: PubSubTopic
metadata:
  name: order-events
  namespace: team-orders
  annotations:
    cnrm.cloud.google.com/project-id: acme-orders-prod
  finalizers:
  - cnrm.cloud.google.com/finalizer
spec:
  resourceID: order-events
status:
  conditions:
  - type: Ready
    status: "True"
    reason: UpToDate
    message: The resource is up to date
    lastTransitionTime: "2021-01-20T08:14:05Z"
---
apiVersion: iam.cnrm.cloud.google.com/v1beta1
kind: IAMServiceAccount
metadata:
  name: orders-exporter
  namespace: team-orders
  annotations:
    cnrm.cloud.google.com/project-id: acme-orders-prod
  finalizers:
  - cnrm.cloud.google.com/finalizer
spec:
  displayName: orders exporter
status:
  email: orders-exporter@acme-orders-prod.iam.gserviceaccount.com
  name: projects/acme-orders-prod/serviceAccounts/orders-exporter@acme-orders-prod.iam.gserviceaccount.com
  uniqueId: "104816226435928114731"
  conditions:
  - type: Ready
    status: "True"
    reason: UpToDate
    message: The resource is up to date
    lastTransitionTime: "2021-01-20T08:14:04Z"
`,
		// The namespace's controller manager added the finalizers (with the deletion defender's,
		// which the defender has removed since), writing as its field owner.
		finalizersBy: map[string]string{
			"StorageBucket/team-orders/acme-orders-exports": "cnrm-controller-manager",
			"PubSubTopic/team-orders/order-events":          "cnrm-controller-manager",
			"IAMServiceAccount/team-orders/orders-exporter": "cnrm-controller-manager",
		},
		deletes: []string{"Namespace//team-orders"},
	}.run(t)

	d := diagnoseAfter(t, 3*time.Hour, "namespace", "team-orders")
	d.exit(1, "STUCK")
	for _, ref := range []string{
		"storagebuckets.storage.cnrm.cloud.google.com/acme-orders-exports -n team-orders",
		"pubsubtopics.pubsub.cnrm.cloud.google.com/order-events -n team-orders",
		"iamserviceaccounts.iam.cnrm.cloud.google.com/orders-exporter -n team-orders",
	} {
		f := d.finalizer(ref, "cnrm.cloud.google.com/finalizer")
		// The controller that removes this finalizer, the namespace's own controller manager,
		// is gone with the namespace's ConfigConnectorContext. The deletion defender, which runs
		// and may update these objects, is not it: naming it sends the operator to read logs
		// that say nothing about this finalizer.
		d.noRunningRemover(f)
		d.notRemover(f, "statefulsets.apps/cnrm-deletiondefender -n cnrm-system")
		d.never(f, readLogs)
		// A new ConfigConnectorContext cannot be made in a namespace being deleted: the way out
		// is the strip, whose cost is the Google Cloud resource left in the project.
		d.offers(f, stripFinalizer)
	}
}
