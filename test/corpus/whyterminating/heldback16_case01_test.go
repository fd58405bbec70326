// Held back in batch 16 and wrong at first sight (2026-12-03, main 2ba25a6): the product's API
// server, which may update stages, was named the running remover and its logs offered, where no
// controller of the product runs at all (only the webhook that added the finalizer and the API
// server do). Failure class: a workload of the same product with update rights ranked as the
// remover though nothing shows it removes finalizers. Passes since (branch ranking) by the rule
// "who can remove vs who merely may write" (requestservers.go): a server of requests that nothing
// ties to reconciling the type is set apart, and with only such servers no controller of the
// domain runs.

package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/akuity/kargo/pull/1647 ("refactor: add finalizer to stages in
// controller instead of webhook", after the Stage finalizer of #1406): Kargo's mutating webhook
// put kargo.akuity.io/finalizer on every Stage when it was created, and only the Kargo controller
// removes it, after reconciling the Stage's deletion. A Stage no controller ever reconciled keeps
// it for good. The maintainers moved adding the finalizer into the controller, "so the finalizer
// only ever gets added to Stages if the controller is actually running ... This makes it easier
// to delete Stages that have never been reconciled": such a Stage has nothing to clean up, so
// removing the finalizer by hand is the way out.
//
// Modelled on Kargo's Helm chart (charts/kargo, v0.4/v0.5) installed as a management cluster
// whose controller runs elsewhere (controller.enabled=false; Kargo's distributed set-up runs a
// controller per shard in the application clusters): namespace kargo, the Deployments kargo-api
// and kargo-webhooks-server with their ServiceAccounts and ClusterRoles, the
// MutatingWebhookConfiguration kargo and the ValidatingWebhookConfiguration kargo; the CRDs
// projects, stages, warehouses, freights and promotions of kargo.akuity.io. The Stage uat of
// project kargo-demo, for the shard eu-west whose controller was never deployed: created, given
// the finalizer by the webhook, never reconciled (no status), deleted since.
func TestCorpusKargoStageFinalizedByTheWebhookNeverReconciled(t *testing.T) {
	replay{
		crds: []crd{
			{group: "kargo.akuity.io", kind: "Project", plural: "projects", versions: []string{"v1alpha1"}},
			{group: "kargo.akuity.io", kind: "Stage", plural: "stages", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "kargo.akuity.io", kind: "Warehouse", plural: "warehouses", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "kargo.akuity.io", kind: "Freight", plural: "freights", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "kargo.akuity.io", kind: "Promotion", plural: "promotions", namespaced: true, versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: kargo
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kargo-api
  namespace: kargo
  labels: {app.kubernetes.io/name: kargo, app.kubernetes.io/instance: kargo, app.kubernetes.io/component: api}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kargo-api
  labels: {app.kubernetes.io/name: kargo, app.kubernetes.io/instance: kargo, app.kubernetes.io/component: api}
rules:
- apiGroups: [""]
  resources: ["namespaces", "secrets", "serviceaccounts", "events"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["kargo.akuity.io"]
  resources: ["projects", "stages", "warehouses", "freights", "promotions"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["kargo.akuity.io"]
  resources: ["stages", "freights"]
  verbs: ["promote"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kargo-api
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kargo-api}
subjects:
- {kind: ServiceAccount, name: kargo-api, namespace: kargo}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kargo-api
  namespace: kargo
  labels: {app.kubernetes.io/name: kargo, app.kubernetes.io/instance: kargo, app.kubernetes.io/component: api, helm.sh/chart: kargo-0.5.0}
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: kargo, app.kubernetes.io/instance: kargo, app.kubernetes.io/component: api}
  template:
    metadata:
      labels: {app.kubernetes.io/name: kargo, app.kubernetes.io/instance: kargo, app.kubernetes.io/component: api}
    spec:
      serviceAccountName: kargo-api
      containers:
      - name: api
        image: ghcr.io/akuity/kargo:v0.5.0
        command: ["/usr/local/bin/kargo", "api"]
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kargo-webhooks-server
  namespace: kargo
  labels: {app.kubernetes.io/name: kargo, app.kubernetes.io/instance: kargo, app.kubernetes.io/component: webhooks-server}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kargo-webhooks-server
  labels: {app.kubernetes.io/name: kargo, app.kubernetes.io/instance: kargo, app.kubernetes.io/component: webhooks-server}
rules:
- apiGroups: ["authorization.k8s.io"]
  resources: ["subjectaccessreviews"]
  verbs: ["create"]
- apiGroups: ["kargo.akuity.io"]
  resources: ["projects", "stages", "warehouses", "freights", "promotions"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kargo-webhooks-server
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kargo-webhooks-server}
subjects:
- {kind: ServiceAccount, name: kargo-webhooks-server, namespace: kargo}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kargo-webhooks-server
  namespace: kargo
  labels: {app.kubernetes.io/name: kargo, app.kubernetes.io/instance: kargo, app.kubernetes.io/component: webhooks-server, helm.sh/chart: kargo-0.5.0}
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: kargo, app.kubernetes.io/instance: kargo, app.kubernetes.io/component: webhooks-server}
  template:
    metadata:
      labels: {app.kubernetes.io/name: kargo, app.kubernetes.io/instance: kargo, app.kubernetes.io/component: webhooks-server}
    spec:
      serviceAccountName: kargo-webhooks-server
      containers:
      - name: webhooks-server
        image: ghcr.io/akuity/kargo:v0.5.0
        command: ["/usr/local/bin/kargo", "webhooks-server"]
---
apiVersion: v1
kind: Service
metadata:
  name: kargo-webhooks-server
  namespace: kargo
spec:
  selector: {app.kubernetes.io/name: kargo, app.kubernetes.io/instance: kargo, app.kubernetes.io/component: webhooks-server}
  ports:
  - {port: 443, targetPort: 9443}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: kargo
  labels: {app.kubernetes.io/name: kargo, app.kubernetes.io/instance: kargo}
  annotations: {cert-manager.io/inject-ca-from: kargo/kargo-webhooks-server}
webhooks:
- name: stage.kargo.akuity.io
  admissionReviewVersions: ["v1"]
  sideEffects: None
  failurePolicy: Fail
  clientConfig:
    service: {namespace: kargo, name: kargo-webhooks-server, path: /mutate-kargo-akuity-io-v1alpha1-stage}
  rules:
  - apiGroups: ["kargo.akuity.io"]
    apiVersions: ["v1alpha1"]
    operations: ["CREATE", "UPDATE"]
    resources: ["stages"]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: kargo
  labels: {app.kubernetes.io/name: kargo, app.kubernetes.io/instance: kargo}
  annotations: {cert-manager.io/inject-ca-from: kargo/kargo-webhooks-server}
webhooks:
- name: stage.kargo.akuity.io
  admissionReviewVersions: ["v1"]
  sideEffects: None
  failurePolicy: Fail
  clientConfig:
    service: {namespace: kargo, name: kargo-webhooks-server, path: /validate-kargo-akuity-io-v1alpha1-stage}
  rules:
  - apiGroups: ["kargo.akuity.io"]
    apiVersions: ["v1alpha1"]
    operations: ["CREATE", "UPDATE"]
    resources: ["stages"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: kargo-demo
  labels: {kargo.akuity.io/project: "true"}
---
apiVersion: kargo.akuity.io/v1alpha1
kind: Project
metadata:
  name: kargo-demo
---
apiVersion: kargo.akuity.io/v1alpha1
kind: Warehouse
metadata:
  name: kargo-demo
  namespace: kargo-demo
  labels: {kargo.akuity.io/shard: eu-west}
spec:
  subscriptions:
  - image: {repoURL: public.ecr.aws/nginx/nginx, semverConstraint: ^1.25.0}
---
apiVersion: kargo.akuity.io/v1alpha1
kind: Stage
metadata:
  name: uat
  namespace: kargo-demo
  labels: {kargo.akuity.io/shard: eu-west}
  finalizers: [kargo.akuity.io/finalizer]
spec:
  subscriptions:
    warehouse: kargo-demo
  promotionMechanisms:
    gitRepoUpdates:
    - repoURL: https://github.com/example/kargo-demo.git
      writeBranch: stage/uat
      kustomize:
        images:
        - {image: public.ecr.aws/nginx/nginx, path: stages/uat}
`,
		deletes: []string{"Stage/kargo-demo/uat"},
	}.run(t)

	d := diagnoseAfter(t, 3*time.Hour, "stages.kargo.akuity.io", "uat", "-n", "kargo-demo")
	d.exit(1, "STUCK")
	f := d.finalizer("stages.kargo.akuity.io/uat -n kargo-demo", "kargo.akuity.io/finalizer")
	// Only the Kargo controller removes it, and none runs here: neither the webhook server that
	// added it nor the API server is its remover.
	d.noRunningRemover(f)
	d.notRemover(f, "deployments.apps/kargo-webhooks-server -n kargo")
	d.notRemover(f, "deployments.apps/kargo-api -n kargo")
	// Never reconciled: nothing to clean up, the strip is the way out; no running controller's
	// logs to read.
	d.offers(f, stripFinalizer)
	d.never(f, readLogs)
}
