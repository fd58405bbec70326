package whyterminating_test

import "testing"

// Report: https://github.com/hashicorp/vault-secrets-operator/issues/100 ("K8s namespace
// deletion hangs with VaultAuth and VaultConnection resources"): the operator is installed with
// Helm into namespace sample, and the VaultAuth and VaultConnection it manages live there too.
// `kubectl delete namespace sample` hangs: the namespace controller deletes the operator with
// everything else, and "the last two resources in the namespace are of type VaultAuth and
// VaultConnection", each holding the finalizer only the operator removes. The maintainers added
// a Helm pre-delete hook that removes those finalizers on uninstall
// (https://github.com/hashicorp/vault-secrets-operator/pull/90); for a namespace already stuck,
// the operator cannot come back in a namespace that refuses new content, so the way out is to
// remove the finalizers by hand (they guard only the operator's own client cache: nothing is
// left in Vault).
//
// Modelled on the Helm chart vault-secrets-operator 0.1.0-beta: the ClusterRole
// vault-secrets-operator-manager-role (rules abbreviated to the groups that bear on the case)
// and its ClusterRoleBinding to the service account vault-secrets-operator-controller-manager
// in namespace sample, which stay after the namespace's own content (the ServiceAccount, the
// Deployment vault-secrets-operator-controller-manager) is gone, as the report shows it; the
// CRDs of secrets.hashicorp.com.
func TestCorpusVaultSecretsOperatorDeletedWithItsNamespace(t *testing.T) {
	chart := map[string]string{"app.kubernetes.io/name": "vault-secrets-operator", "app.kubernetes.io/instance": "vault-secrets-operator", "app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "vault-secrets-operator-0.1.0-beta"}
	replay{
		crds: []crd{
			{group: "secrets.hashicorp.com", kind: "VaultAuth", plural: "vaultauths", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
			{group: "secrets.hashicorp.com", kind: "VaultConnection", plural: "vaultconnections", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
			{group: "secrets.hashicorp.com", kind: "VaultStaticSecret", plural: "vaultstaticsecrets", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
			{group: "secrets.hashicorp.com", kind: "VaultDynamicSecret", plural: "vaultdynamicsecrets", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
			{group: "secrets.hashicorp.com", kind: "VaultPKISecret", plural: "vaultpkisecrets", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
		},
		install: `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: vault-secrets-operator-manager-role
  labels:
    app.kubernetes.io/name: vault-secrets-operator
    app.kubernetes.io/instance: vault-secrets-operator
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: vault-secrets-operator-0.1.0-beta
  annotations:
    meta.helm.sh/release-name: vault-secrets-operator
    meta.helm.sh/release-namespace: sample
rules:
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["serviceaccounts", "serviceaccounts/token"]
  verbs: ["create", "get", "list", "watch"]
- apiGroups: ["apps"]
  resources: ["deployments", "statefulsets", "daemonsets"]
  verbs: ["get", "list", "patch", "watch"]
- apiGroups: ["secrets.hashicorp.com"]
  resources: ["vaultauths", "vaultconnections", "vaultstaticsecrets", "vaultdynamicsecrets", "vaultpkisecrets"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["secrets.hashicorp.com"]
  resources: ["vaultauths/finalizers", "vaultconnections/finalizers", "vaultstaticsecrets/finalizers", "vaultdynamicsecrets/finalizers", "vaultpkisecrets/finalizers"]
  verbs: ["update"]
- apiGroups: ["secrets.hashicorp.com"]
  resources: ["vaultauths/status", "vaultconnections/status", "vaultstaticsecrets/status", "vaultdynamicsecrets/status", "vaultpkisecrets/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: vault-secrets-operator-manager-rolebinding
  labels:
    app.kubernetes.io/name: vault-secrets-operator
    app.kubernetes.io/instance: vault-secrets-operator
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: vault-secrets-operator-0.1.0-beta
  annotations:
    meta.helm.sh/release-name: vault-secrets-operator
    meta.helm.sh/release-namespace: sample
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: vault-secrets-operator-manager-role
subjects:
- kind: ServiceAccount
  name: vault-secrets-operator-controller-manager
  namespace: sample
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: sample
---
apiVersion: secrets.hashicorp.com/v1alpha1
kind: VaultConnection
metadata:
  name: vault-connection-sample
  namespace: sample
  finalizers:
  - vaultconnection.secrets.hashicorp.com/finalizer
spec:
  address: http://vault.vault.svc.cluster.local:8200
  skipTLSVerify: false
status:
  valid: true
---
apiVersion: secrets.hashicorp.com/v1alpha1
kind: VaultAuth
metadata:
  name: vault-auth-sample
  namespace: sample
  finalizers:
  - vaultauth.secrets.hashicorp.com/finalizer
spec:
  vaultConnectionRef: vault-connection-sample
  method: kubernetes
  mount: kubernetes
  kubernetes:
    role: sample
    serviceAccount: sample
status:
  valid: true
`,
		deletes: []string{"Namespace//sample"},
	}.run(t)

	d := diagnose(t, "namespace", "sample")
	d.exit(1, "STUCK")
	for _, c := range []struct{ ref, finalizer string }{
		{"vaultauths.secrets.hashicorp.com/vault-auth-sample -n sample", "vaultauth.secrets.hashicorp.com/finalizer"},
		{"vaultconnections.secrets.hashicorp.com/vault-connection-sample -n sample", "vaultconnection.secrets.hashicorp.com/finalizer"},
	} {
		f := d.finalizer(c.ref, c.finalizer)
		d.verdict(f, controllerAbsent)
		d.noRunningRemover(f)
		// The operator ran in the namespace being deleted and cannot be reinstalled there; the
		// strip is the way out.
		d.never(f, readLogs, reinstall)
		d.offers(f, stripFinalizer)
		d.mentions(f, "namespaces/sample")
	}
}
