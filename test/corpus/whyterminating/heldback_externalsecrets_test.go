package whyterminating_test

import "testing"

// Report: https://github.com/external-secrets/external-secrets/issues/6677
// ("ClusterExternalSecret orphans its namespace finalizer when a namespace is relabeled out of
// namespaceSelectors, leaving the namespace stuck Terminating"): the CES controller put
// externalsecrets.external-secrets.io/ces-repro on the namespace while it matched; after the
// relabel it cleaned up the ExternalSecret but "never removes its namespace finalizer", and
// once the namespace is deleted "nothing ever removes the finalizer" although External Secrets
// runs. The way out: remove that one finalizer by hand.
//
// Modelled on the external-secrets Helm chart 2.7.0 (deploy/charts/external-secrets): namespace
// external-secrets, ServiceAccount, ClusterRole external-secrets-controller with its rules on
// external-secrets.io and on namespaces (the CES controller writes namespace finalizers),
// binding, and the Deployment external-secrets with the chart's labels and image. The webhook
// and cert-controller Deployments and the webhook configurations are left out: the replay's
// pods answer no requests.
func TestCorpusExternalSecretsOrphanedNamespaceFinalizer(t *testing.T) {
	replay{
		crds: []crd{
			{group: "external-secrets.io", kind: "ClusterExternalSecret", plural: "clusterexternalsecrets", versions: []string{"v1"}},
			{group: "external-secrets.io", kind: "ExternalSecret", plural: "externalsecrets", namespaced: true, versions: []string{"v1"}},
			{group: "external-secrets.io", kind: "ClusterSecretStore", plural: "clustersecretstores", versions: []string{"v1"}},
			{group: "external-secrets.io", kind: "SecretStore", plural: "secretstores", namespaced: true, versions: []string{"v1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: external-secrets
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: external-secrets
  namespace: external-secrets
  labels:
    app.kubernetes.io/name: external-secrets
    app.kubernetes.io/instance: external-secrets
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: external-secrets-controller
  labels:
    app.kubernetes.io/name: external-secrets
    app.kubernetes.io/instance: external-secrets
rules:
- apiGroups: ["external-secrets.io"]
  resources: ["secretstores", "clustersecretstores", "externalsecrets", "clusterexternalsecrets", "pushsecrets", "clusterpushsecrets"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["external-secrets.io"]
  resources: ["externalsecrets", "externalsecrets/status", "externalsecrets/finalizers", "secretstores", "secretstores/status", "secretstores/finalizers", "clustersecretstores", "clustersecretstores/status", "clustersecretstores/finalizers", "clusterexternalsecrets", "clusterexternalsecrets/status", "clusterexternalsecrets/finalizers", "pushsecrets", "pushsecrets/status", "pushsecrets/finalizers"]
  verbs: ["get", "update", "patch"]
- apiGroups: ["external-secrets.io"]
  resources: ["externalsecrets"]
  verbs: ["create", "update", "delete"]
- apiGroups: [""]
  resources: ["serviceaccounts", "configmaps"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["namespaces"]
  verbs: ["get", "list", "watch", "update", "patch"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "list", "watch", "create", "update", "delete", "patch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: external-secrets-controller
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: external-secrets-controller
subjects:
- kind: ServiceAccount
  name: external-secrets
  namespace: external-secrets
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: external-secrets
  namespace: external-secrets
  labels:
    app.kubernetes.io/name: external-secrets
    app.kubernetes.io/instance: external-secrets
    app.kubernetes.io/version: v2.7.0
    helm.sh/chart: external-secrets-2.7.0
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: external-secrets
      app.kubernetes.io/instance: external-secrets
  template:
    metadata:
      labels:
        app.kubernetes.io/name: external-secrets
        app.kubernetes.io/instance: external-secrets
    spec:
      serviceAccountName: external-secrets
      containers:
      - name: external-secrets
        image: oci.external-secrets.io/external-secrets/external-secrets:v2.7.0
        args: ["--concurrent=1", "--metrics-addr=:8080"]
`,
		objects: `
apiVersion: external-secrets.io/v1
kind: ClusterExternalSecret
metadata:
  name: repro
spec:
  namespaceSelectors:
  - matchLabels:
      repro: "yes"
  refreshTime: 1m
  externalSecretName: repro
  externalSecretSpec:
    secretStoreRef:
      kind: ClusterSecretStore
      name: aws
    target:
      name: repro
    data:
    - secretKey: value
      remoteRef:
        key: repro
---
apiVersion: v1
kind: Namespace
metadata:
  name: ces-repro
  labels:
    repro: "no"
  finalizers:
  - externalsecrets.external-secrets.io/ces-repro
`,
		deletes: []string{"Namespace//ces-repro"},
	}.run(t)

	d := diagnose(t, "namespace", "ces-repro")
	d.exit(1, "STUCK")
	f := d.finalizer("namespaces/ces-repro", "externalsecrets.external-secrets.io/ces-repro")
	d.offers(f, stripFinalizer)
	d.never(f, reinstall)
}
