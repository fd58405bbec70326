package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/hashicorp/hcp-terraform-operator/issues/299 ("Module finalizer is
// not removed on destroy run with status 'Planned and finished'"): a Module (operator v2.0.0)
// with destroyOnDeletion: true is deleted (by an Argo CD application's deletion); a destroy run
// had been planned in Terraform Cloud before, so the operator's destroy run finds nothing to
// destroy and ends "planned_and_finished". The operator removes its finalizer only once the
// destroy run's status is "applied", so the Module stays for good, under an operator that runs.
// The maintainer's fix (#301) treats the finished destroy as done; until then the finalizer is
// removed by hand, which loses nothing: the destroy ran, and the workspace is not the Module's
// to delete.
//
// Modelled on the operator's Helm chart terraform-cloud-operator 2.0.0 (release
// terraform-cloud-operator in namespace tfc-operator-system: the Deployment with its manager and
// kube-rbac-proxy containers and labels, its ServiceAccount
// terraform-cloud-operator-controller-manager, the ClusterRole
// terraform-cloud-operator-manager-role with its rules on app.terraform.io and its binding; the
// CRDs come from the chart's crds/ directory, unlabelled) and on the report's Module, with the
// status the operator writes for a destroy run (status.destroyRunID and status.run of that run)
// and the token Secret it names.
func TestCorpusHCPTerraformModuleDestroyRunPlannedAndFinished(t *testing.T) {
	replay{
		crds: []crd{
			{group: "app.terraform.io", kind: "Module", plural: "modules", namespaced: true, versions: []string{"v1alpha2"}},
			{group: "app.terraform.io", kind: "Workspace", plural: "workspaces", namespaced: true, versions: []string{"v1alpha2"}},
			{group: "app.terraform.io", kind: "AgentPool", plural: "agentpools", namespaced: true, versions: []string{"v1alpha2"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: tfc-operator-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: terraform-cloud-operator-controller-manager
  namespace: tfc-operator-system
  labels:
    helm.sh/chart: terraform-cloud-operator-2.0.0
    app.kubernetes.io/name: terraform-cloud-operator
    app.kubernetes.io/instance: terraform-cloud-operator
    app.kubernetes.io/version: "2.0.0"
    app.kubernetes.io/managed-by: Helm
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: terraform-cloud-operator-manager-role
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["create", "list", "update", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["create", "list", "update", "watch"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["app.terraform.io"]
  resources: ["agentpools", "modules", "workspaces"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["app.terraform.io"]
  resources: ["agentpools/finalizers", "modules/finalizers", "workspaces/finalizers"]
  verbs: ["update"]
- apiGroups: ["app.terraform.io"]
  resources: ["agentpools/status", "modules/status", "workspaces/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: terraform-cloud-operator-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: terraform-cloud-operator-manager-role
subjects:
- kind: ServiceAccount
  name: terraform-cloud-operator-controller-manager
  namespace: tfc-operator-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: terraform-cloud-operator
  namespace: tfc-operator-system
  labels:
    helm.sh/chart: terraform-cloud-operator-2.0.0
    app.kubernetes.io/name: terraform-cloud-operator
    app.kubernetes.io/instance: terraform-cloud-operator
    app.kubernetes.io/version: "2.0.0"
    app.kubernetes.io/managed-by: Helm
    control-plane: terraform-cloud-operator-controller-manager
spec:
  replicas: 2
  selector:
    matchLabels:
      app.kubernetes.io/name: terraform-cloud-operator
      app.kubernetes.io/instance: terraform-cloud-operator
      control-plane: terraform-cloud-operator-controller-manager
  template:
    metadata:
      labels:
        app.kubernetes.io/name: terraform-cloud-operator
        app.kubernetes.io/instance: terraform-cloud-operator
        control-plane: terraform-cloud-operator-controller-manager
    spec:
      serviceAccountName: terraform-cloud-operator-controller-manager
      containers:
      - name: manager
        image: hashicorp/terraform-cloud-operator:2.0.0
        command: ["/manager"]
        args: ["--sync-period=5m", "--agent-pool-workers=1", "--module-workers=1", "--workspace-workers=1"]
      - name: kube-rbac-proxy
        image: quay.io/brancz/kube-rbac-proxy:v0.14.4
        args: ["--secure-listen-address=0.0.0.0:8443", "--upstream=http://127.0.0.1:8080/", "--logtostderr=true", "--v=0"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: platform
---
apiVersion: v1
kind: Secret
metadata:
  name: tfc-token
  namespace: platform
type: Opaque
stringData:
  token: replay-placeholder
---
apiVersion: app.terraform.io/v1alpha2
kind: Module
metadata:
  name: module-sample
  namespace: platform
  labels:
    app.kubernetes.io/instance: platform-infra
  finalizers:
  - module.app.terraform.io/finalizer
spec:
  organization: my-org
  name: this
  token:
    secretKeyRef:
      name: tfc-token
      key: token
  destroyOnDeletion: true
  module:
    source: app.terraform.io/my-org/xx/other
    version: 0.1.7
  variables:
  - name: environment
  workspace:
    name: some-workspace
status:
  observedGeneration: 1
  workspaceID: ws-5yqPtzvXrCkLbn8E
  configurationVersion:
    id: cv-tB2hVvxyUYoAkVqo
    status: uploaded
  output:
    runID: run-Xb1vW8nT3pQm6cRd
  destroyRunID: run-9GkQ4hZu2sYp7LwN
  run:
    id: run-9GkQ4hZu2sYp7LwN
    status: planned_and_finished
    configurationVersion: cv-tB2hVvxyUYoAkVqo
    outputRunID: run-Xb1vW8nT3pQm6cRd
`,
		deletes: []string{"Module/platform/module-sample"},
	}.run(t)

	d := diagnoseAfter(t, 2*time.Hour, "modules.app.terraform.io", "module-sample", "-n", "platform")
	d.exit(1, "STUCK")
	f := d.finalizer("modules.app.terraform.io/module-sample -n platform", "module.app.terraform.io/finalizer")
	// The operator runs and may update the Module: it is the remover, and it has not removed the
	// finalizer for two hours after its destroy run ended. The token Secret the Module names
	// exists: no missing object is the cause. The way out is removing the finalizer by hand,
	// never bringing back an operator that runs.
	d.remover(f, "deployments.apps/terraform-cloud-operator -n tfc-operator-system", true)
	d.verdict(f, removerStalled, controllerRunning)
	for _, b := range f.Blockers {
		if b.Object.String() == "secrets/tfc-token -n platform" {
			t.Errorf("finalizer %s: the existing token Secret is named as a blocker (%s)", f.Name, b.Code)
		}
	}
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
