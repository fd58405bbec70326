package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/rgeraskin/remove-empty-ns-operator/issues/5 ("Namespaces kept on
// "Terminating" for ever"): remove-empty-ns-operator, an operator built on the Kopf framework,
// marks empty namespaces (annotation remove-empty-ns-operator.kopf.dev/will-remove=True) and
// deletes them on its next pass; its timer on namespaces makes Kopf put its finalizer
// kopf.zalando.org/KopfFinalizerMarker on every namespace it watches, and Kopf removes it once
// the timer for a deleted namespace has stopped. The namespaces it deleted stayed Terminating,
// empty, with that finalizer alone, while the operator ran and logged "namespace release-testing
// has deletion mark, deleting". Deleting the operator's pod (a restart) let every namespace go;
// the maintainer's answer is that the finalizer is the framework's and only a running operator
// removes it. The operator runs and may patch namespaces: it is the remover, stalled; nothing
// to reinstall; removing the finalizer by hand leaves nothing behind (what it guards is the
// operator's own timer for that namespace).
//
// Modelled on the project's manifests/ (namespace.yaml, rbac.yaml, deployment.yaml) at release
// 1.1: namespace remove-empty-ns-operator, the ServiceAccount, the ClusterRole (list and watch
// CRDs; list, watch, patch and delete namespaces; patch their status; create events; list every
// resource, to see whether a namespace is empty) and its binding, the settings ConfigMap and the
// Deployment, with the project's labels.
func TestCorpusKopfNamespaceFinalizerOperatorStalled(t *testing.T) {
	replay{
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: remove-empty-ns-operator
  labels: {application: remove-empty-ns-operator}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: remove-empty-ns-operator
  namespace: remove-empty-ns-operator
  labels: {application: remove-empty-ns-operator}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: remove-empty-ns-operator
  labels: {application: remove-empty-ns-operator}
rules:
- apiGroups: [apiextensions.k8s.io]
  resources: [customresourcedefinitions]
  verbs: [list, watch]
- apiGroups: [""]
  resources: [namespaces]
  verbs: [list, watch, patch]
- apiGroups: [""]
  resources: [namespaces/status]
  verbs: [patch]
- apiGroups: [""]
  resources: [events]
  verbs: [create]
- apiGroups: ["*"]
  resources: ["*"]
  verbs: [list]
- apiGroups: [""]
  resources: [namespaces]
  verbs: [delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: remove-empty-ns-operator
  labels: {application: remove-empty-ns-operator}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: remove-empty-ns-operator
subjects:
- kind: ServiceAccount
  name: remove-empty-ns-operator
  namespace: remove-empty-ns-operator
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: remove-empty-ns-operator
  namespace: remove-empty-ns-operator
  labels: {application: remove-empty-ns-operator}
data:
  settings.yaml: |
    interval: 3600
    initialDelay: 600
    protectedNamespaces: [default, kube-system, kube-public, kube-node-lease]
    ignoredResouces:
    - {apiGroup: "", kind: ConfigMap, nameRegExp: kube-root-ca.crt}
    - {apiGroup: "", kind: ServiceAccount, nameRegExp: default}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: remove-empty-ns-operator
  namespace: remove-empty-ns-operator
  labels: {application: remove-empty-ns-operator}
spec:
  replicas: 1
  strategy:
    type: Recreate
  selector:
    matchLabels: {application: remove-empty-ns-operator}
  template:
    metadata:
      labels: {application: remove-empty-ns-operator}
    spec:
      serviceAccountName: remove-empty-ns-operator
      containers:
      - name: remove-empty-ns-operator
        image: rgeraskin/remove-empty-ns-operator:1.1
        volumeMounts:
        - {name: config, mountPath: /config}
      volumes:
      - name: config
        configMap:
          name: remove-empty-ns-operator
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: release-testing
  annotations:
    remove-empty-ns-operator.kopf.dev/will-remove: "True"
  finalizers: [kopf.zalando.org/KopfFinalizerMarker]
`,
		deletes: []string{"Namespace//release-testing"},
	}.run(t)

	// "Almost never" deleted: long after the operator's pass deleted it.
	d := diagnoseAfter(t, 2*time.Hour, "namespace", "release-testing")
	d.exit(1, "STUCK")
	ref := "namespaces/release-testing"
	f := d.finalizer(ref, "kopf.zalando.org/KopfFinalizerMarker")
	d.remover(f, "deployments.apps/remove-empty-ns-operator -n remove-empty-ns-operator", true)
	d.verdict(f, removerStalled)
	d.notDeleting(ref, "an empty namespace unfinalized for two hours")
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
