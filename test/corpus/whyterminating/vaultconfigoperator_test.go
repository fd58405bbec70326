package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/redhat-cop/vault-config-operator/issues/23 ("Custom resource cannot
// be deleted if it fails to be created"): an AuthEngineMount whose path the operator's Vault role
// may not write was never created in Vault (403); deleted, it stays in Deleting for good. Its
// finalizer controller-authenginemount is removed by the operator only after it deleted the
// mount in Vault, and that deletion fails with the same 403. A commenter: "another workaround is
// to delete the finalizers on the CR ... This works only if resource creation on Vault was
// unsuccessful (like permissions problems etc) so it does not leave any resources in Vault." The
// maintainer then made the operator skip the Vault call when the resource never reconciled
// successfully. What the cluster shows: the operator runs; the object's conditions and events
// carry the 403 since before its deletion, and it never had ReconcileSuccess. Granting the
// operator's Vault role the path, or removing that one finalizer (nothing was created in Vault),
// are the ways out; reinstalling what runs is not.
//
// Modelled on the Helm chart vault-config-operator (v0.4, 2022): namespace vault-config-operator,
// its ServiceAccount controller-manager, the ClusterRole vault-config-operator-manager-role (rules
// abbreviated to the groups that bear on the case) and binding, the Deployment
// vault-config-operator-controller-manager (manager and kube-rbac-proxy); the CRDs of
// redhatcop.redhat.io. The events are those the operator records on each failed reconcile.
func TestCorpusVaultConfigOperatorMountNeverCreatedIn403(t *testing.T) {
	chart := map[string]string{"app.kubernetes.io/name": "vault-config-operator", "app.kubernetes.io/instance": "vault-config-operator", "app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "vault-config-operator-v0.4.0"}
	replay{
		crds: []crd{
			{group: "redhatcop.redhat.io", kind: "AuthEngineMount", plural: "authenginemounts", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
			{group: "redhatcop.redhat.io", kind: "SecretEngineMount", plural: "secretenginemounts", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
			{group: "redhatcop.redhat.io", kind: "Policy", plural: "policies", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
			{group: "redhatcop.redhat.io", kind: "KubernetesAuthEngineRole", plural: "kubernetesauthengineroles", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
			{group: "redhatcop.redhat.io", kind: "RandomSecret", plural: "randomsecrets", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: vault-config-operator
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: controller-manager
  namespace: vault-config-operator
  labels:
    app.kubernetes.io/name: vault-config-operator
    app.kubernetes.io/instance: vault-config-operator
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: vault-config-operator-v0.4.0
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: vault-config-operator-manager-role
  labels:
    app.kubernetes.io/name: vault-config-operator
    app.kubernetes.io/instance: vault-config-operator
    helm.sh/chart: vault-config-operator-v0.4.0
rules:
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["serviceaccounts/token"]
  verbs: ["create"]
- apiGroups: ["redhatcop.redhat.io"]
  resources: ["authenginemounts", "secretenginemounts", "policies", "kubernetesauthengineroles", "randomsecrets"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["redhatcop.redhat.io"]
  resources: ["authenginemounts/finalizers", "secretenginemounts/finalizers", "policies/finalizers", "kubernetesauthengineroles/finalizers", "randomsecrets/finalizers"]
  verbs: ["update"]
- apiGroups: ["redhatcop.redhat.io"]
  resources: ["authenginemounts/status", "secretenginemounts/status", "policies/status", "kubernetesauthengineroles/status", "randomsecrets/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: vault-config-operator-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: vault-config-operator-manager-role
subjects:
- kind: ServiceAccount
  name: controller-manager
  namespace: vault-config-operator
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vault-config-operator-controller-manager
  namespace: vault-config-operator
  labels:
    control-plane: vault-config-operator
    app.kubernetes.io/name: vault-config-operator
    app.kubernetes.io/instance: vault-config-operator
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: vault-config-operator-v0.4.0
spec:
  replicas: 1
  selector:
    matchLabels:
      control-plane: vault-config-operator
  template:
    metadata:
      labels:
        control-plane: vault-config-operator
    spec:
      serviceAccountName: controller-manager
      containers:
      - name: kube-rbac-proxy
        image: quay.io/redhat-cop/kube-rbac-proxy:v0.11.0
        args: ["--secure-listen-address=0.0.0.0:8443", "--upstream=http://127.0.0.1:8080/"]
      - name: manager
        image: quay.io/redhat-cop/vault-config-operator:v0.4.0
        command: ["/manager"]
        args: ["--leader-elect"]
        env:
        - name: VAULT_ADDR
          value: https://vault.vault.svc:8200
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: vault-admin
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: default-vault-config
  namespace: vault-admin
---
apiVersion: redhatcop.redhat.io/v1alpha1
kind: AuthEngineMount
metadata:
  name: kubernetes-cluster2
  namespace: vault-admin
  finalizers:
  - controller-authenginemount
spec:
  authentication:
    path: kubernetes
    role: policy-admin
    serviceAccount:
      name: default-vault-config
  type: kubernetes
  path: cluster2
status:
  conditions:
  - type: ReconcileError
    status: "True"
    reason: LastReconcileCycleFailed
    message: |-
      Error making API request.

      URL: POST https://vault.vault.svc:8200/v1/sys/auth/cluster2/kubernetes
      Code: 403. Errors:

      * 1 error occurred:
      	* permission denied
    lastTransitionTime: "2022-02-04T09:12:40Z"
`,
		deletes: []string{"AuthEngineMount/vault-admin/kubernetes-cluster2"},
		events: []event{{about: "AuthEngineMount/vault-admin/kubernetes-cluster2", typ: "Warning", reason: "ProcessingError", component: "AuthEngineMount_controller", count: 41,
			message: "Error making API request.\n\nURL: DELETE https://vault.vault.svc:8200/v1/sys/auth/cluster2/kubernetes\nCode: 403. Errors:\n\n* 1 error occurred:\n\t* permission denied"}},
	}.run(t)

	d := diagnoseAfter(t, 30*time.Minute, "authenginemounts.redhatcop.redhat.io", "kubernetes-cluster2", "-n", "vault-admin")
	d.exit(1, "STUCK")
	f := d.finalizer("authenginemounts.redhatcop.redhat.io/kubernetes-cluster2 -n vault-admin", "controller-authenginemount")
	// The operator runs and fails on this object with a 403 from Vault, as it did before the
	// deletion; it is the remover, the failure it reports is the reason, and the strip of this
	// finalizer is a way out (the object was never created in Vault).
	d.remover(f, "deployments.apps/vault-config-operator-controller-manager -n vault-config-operator", true)
	d.verdict(f, controllerRunning, removerStalled)
	d.never(f, reinstall, restoreController)
	d.offers(f, stripFinalizer)
	e := d.object("authenginemounts.redhatcop.redhat.io/kubernetes-cluster2 -n vault-admin")
	shown := false
	for _, ev := range e.Events {
		if ev.Reason == "ProcessingError" {
			shown = true
		}
	}
	if !shown {
		t.Errorf("the ProcessingError event with Vault's 403 is not shown")
	}
}
