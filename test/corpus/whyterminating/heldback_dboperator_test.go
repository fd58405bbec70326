package whyterminating_test

import (
	"testing"

	"github.com/kubeforensics/suite/internal/finalizers"
)

// Report: https://github.com/db-operator/db-operator/issues/68 ("Deleting Namespace gets stuck
// in terminated"): the Databases in the deleted namespace stay Terminating; db-operator runs,
// but every attempt to update them fails: "failed calling webhook \"mdatabase.kb.io\" ... no
// endpoints available for service \"db-operator-webhook\"". The operator's own fail-closed
// mutating webhook has no ready backend, so the update that would remove the finalizer is
// rejected. The fix is to bring the webhook's pods back (or, if the webhook is gone for good,
// remove its configuration), not to strip the finalizer behind the running operator.
//
// Modelled on the db-operator Helm chart (charts/db-operator, kci.rocks/v1beta1 as the
// report's webhook path names it): namespace db-operator-system, ServiceAccount, ClusterRole
// db-operator with its rules on kci.rocks, binding, the controller Deployment db-operator, the
// webhook Deployment and Service db-operator-webhook, and the MutatingWebhookConfiguration with
// mdatabase.kb.io (failurePolicy Fail). The webhook's pods run but are not ready.
func TestCorpusDBOperatorOwnWebhookDown(t *testing.T) {
	replay{
		crds: []crd{
			{group: "kci.rocks", kind: "Database", plural: "databases", namespaced: true, versions: []string{"v1beta1"}},
			{group: "kci.rocks", kind: "DbInstance", plural: "dbinstances", versions: []string{"v1beta1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: db-operator-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: db-operator
  namespace: db-operator-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: db-operator
rules:
- apiGroups: ["kci.rocks"]
  resources: ["databases", "databases/status", "databases/finalizers", "dbinstances", "dbinstances/status", "dbinstances/finalizers"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["secrets", "configmaps", "services", "endpoints", "events"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["batch"]
  resources: ["cronjobs"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: db-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: db-operator
subjects:
- kind: ServiceAccount
  name: db-operator
  namespace: db-operator-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: db-operator
  namespace: db-operator-system
  labels:
    app: db-operator
spec:
  replicas: 1
  selector:
    matchLabels:
      app: db-operator
  template:
    metadata:
      labels:
        app: db-operator
    spec:
      serviceAccountName: db-operator
      containers:
      - name: operator
        image: ghcr.io/db-operator/db-operator:1.10.0
        args: ["--metrics-addr=:8080"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: db-operator-webhook
  namespace: db-operator-system
  labels:
    app: db-operator-webhook
spec:
  replicas: 1
  selector:
    matchLabels:
      app: db-operator-webhook
  template:
    metadata:
      labels:
        app: db-operator-webhook
    spec:
      serviceAccountName: db-operator
      containers:
      - name: webhook
        image: ghcr.io/db-operator/db-operator:1.10.0
        args: ["--webhook"]
---
apiVersion: v1
kind: Service
metadata:
  name: db-operator-webhook
  namespace: db-operator-system
spec:
  selector:
    app: db-operator-webhook
  ports:
  - port: 443
    targetPort: 9443
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: db-operator-mutating-webhook-configuration
webhooks:
- name: mdatabase.kb.io
  admissionReviewVersions: ["v1"]
  sideEffects: None
  failurePolicy: Fail
  timeoutSeconds: 10
  clientConfig:
    service:
      name: db-operator-webhook
      namespace: db-operator-system
      path: /mutate-kci-rocks-v1beta1-database
  rules:
  - apiGroups: ["kci.rocks"]
    apiVersions: ["v1beta1"]
    operations: ["CREATE", "UPDATE"]
    resources: ["databases"]
`,
		unready: []string{"db-operator-system/db-operator-webhook"},
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: blab-ticketing-prod
---
apiVersion: kci.rocks/v1beta1
kind: DbInstance
metadata:
  name: ticketing-postgresql
spec:
  engine: postgres
  generic:
    host: ticketing-postgresql.blab-ticketing-prod.svc.cluster.local
    port: 5432
  adminSecretRef:
    Namespace: blab-ticketing-prod
    Name: ticketing-postgresql-admin
---
apiVersion: kci.rocks/v1beta1
kind: Database
metadata:
  name: blab-ticketing
  namespace: blab-ticketing-prod
  finalizers:
  - db.blab-ticketing
spec:
  secretName: blab-ticketing-credentials
  instance: ticketing-postgresql
  deletionProtected: true
  backup:
    enable: false
status:
  phase: Ready
  status: true
`,
		deletes: []string{"Namespace//blab-ticketing-prod"},
	}.run(t)

	d := diagnose(t, "namespace", "blab-ticketing-prod")
	d.exit(1, "STUCK")
	f := d.finalizer("databases.kci.rocks/blab-ticketing -n blab-ticketing-prod", "db.blab-ticketing")
	d.blocker(f, "mutatingwebhookconfigurations.admissionregistration.k8s.io/db-operator-mutating-webhook-configuration", "webhook-rejects-update")
	d.firstFix(f, restoreController, finalizers.ReasonScaleUpController)
	d.never(f, stripFinalizer)
}
