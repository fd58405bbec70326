//go:build corpusopen

package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/spinframework/spin-operator/issues/480 ("SpinAppExecutor finalizer
// checks for dependent SpinApps across all namespaces instead of its own"): namespace smoke-test
// stayed Terminating for three days. Its SpinAppExecutor containerd-shim-spin kept the finalizer
// core.spinkube.dev/finalizer, which the operator (running) removes only once no SpinApp names
// the executor in spec.executor; no SpinApp was left in smoke-test, but a SpinApp in namespace
// weekly-full-20260304 names an executor of the same name (its own namespace's), and the
// operator counted it. Deleting that SpinApp released the executor at once and the namespace
// terminated; the fix scoped the check to the executor's namespace. What holds the executor is
// that SpinApp, in another namespace: it is to be named (the operator waits for it), and since it
// uses its own namespace's executor, removing the finalizer by hand leaves nothing behind.
//
// Modelled on the Helm chart spin-operator v0.6.1 (the release of the report): in namespace
// spin-operator the ServiceAccount, the ClusterRole spin-operator-manager-role (deployments,
// services, events; SpinApps and SpinAppExecutors with their finalizers and status) and its
// binding, the Deployment spin-operator-controller-manager with the chart's labels; the CRDs of
// core.spinkube.dev, unlabelled. The admission webhooks (cert-manager issued) are left out: the
// replay's pods answer no requests, and the report is not about them. The executor is deployed
// into each namespace, as the reporter's platform does; the SpinApp's Deployment is left out (its
// runtime class has no node here).
//
// Still open (tag corpusopen, BATCH10-SPLIT.txt 07): the SpinApp in another namespace refers by
// name only to an executor of this name, which a reference without a namespace points to in its
// own namespace; the tool (rightly, by the reference's meaning) does not count it, and the
// operator's name-only match that holds the finalizer is not inferred.
func TestCorpusSpinAppExecutorHeldByAnAppInAnotherNamespace(t *testing.T) {
	sk := func(kind, plural string) crd {
		return crd{group: "core.spinkube.dev", kind: kind, plural: plural, namespaced: true, versions: []string{"v1alpha1"}}
	}
	replay{
		crds: []crd{sk("SpinApp", "spinapps"), sk("SpinAppExecutor", "spinappexecutors")},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: spin-operator
---
apiVersion: v1
kind: Namespace
metadata:
  name: smoke-test
---
apiVersion: v1
kind: Namespace
metadata:
  name: weekly-full-20260304
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: spin-operator-controller-manager
  namespace: spin-operator
  labels: {app.kubernetes.io/name: spin-operator, app.kubernetes.io/instance: spin-operator, app.kubernetes.io/managed-by: Helm, app.kubernetes.io/version: v0.6.1, helm.sh/chart: spin-operator-0.6.1}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: spin-operator-manager-role
  labels: {app.kubernetes.io/name: spin-operator, app.kubernetes.io/instance: spin-operator, helm.sh/chart: spin-operator-0.6.1}
rules:
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: [""]
  resources: ["services"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["core.spinkube.dev"]
  resources: ["spinappexecutors", "spinapps"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["core.spinkube.dev"]
  resources: ["spinappexecutors/finalizers", "spinapps/finalizers"]
  verbs: ["update"]
- apiGroups: ["core.spinkube.dev"]
  resources: ["spinappexecutors/status", "spinapps/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: spin-operator-manager-rolebinding
  labels: {app.kubernetes.io/name: spin-operator, app.kubernetes.io/instance: spin-operator, helm.sh/chart: spin-operator-0.6.1}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: spin-operator-manager-role
subjects:
- kind: ServiceAccount
  name: spin-operator-controller-manager
  namespace: spin-operator
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: spin-operator-controller-manager
  namespace: spin-operator
  labels: {app.kubernetes.io/name: spin-operator, app.kubernetes.io/instance: spin-operator, app.kubernetes.io/managed-by: Helm, app.kubernetes.io/version: v0.6.1, helm.sh/chart: spin-operator-0.6.1, control-plane: controller-manager}
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: spin-operator, app.kubernetes.io/instance: spin-operator, control-plane: controller-manager}
  template:
    metadata:
      labels: {app.kubernetes.io/name: spin-operator, app.kubernetes.io/instance: spin-operator, control-plane: controller-manager}
    spec:
      serviceAccountName: spin-operator-controller-manager
      containers:
      - name: manager
        image: ghcr.io/spinframework/spin-operator:v0.6.1
        command: ["/manager"]
        args: ["--health-probe-bind-address=:8082", "--metrics-bind-address=127.0.0.1:8080", "--leader-elect", "--enable-webhooks"]
`,
		objects: `
apiVersion: core.spinkube.dev/v1alpha1
kind: SpinAppExecutor
metadata:
  name: containerd-shim-spin
  namespace: smoke-test
  finalizers: [core.spinkube.dev/finalizer]
spec:
  createDeployment: true
  deploymentConfig:
    runtimeClassName: wasmtime-spin-v2
    installDefaultCACerts: true
---
apiVersion: core.spinkube.dev/v1alpha1
kind: SpinAppExecutor
metadata:
  name: containerd-shim-spin
  namespace: weekly-full-20260304
  finalizers: [core.spinkube.dev/finalizer]
spec:
  createDeployment: true
  deploymentConfig:
    runtimeClassName: wasmtime-spin-v2
    installDefaultCACerts: true
---
apiVersion: core.spinkube.dev/v1alpha1
kind: SpinApp
metadata:
  name: hello-spin
  namespace: weekly-full-20260304
spec:
  image: ghcr.io/spinkube/containerd-shim-spin/examples/spin-rust-hello:v0.13.0
  executor: containerd-shim-spin
  replicas: 1
status:
  readyReplicas: 1
  activeScheduler: containerd-shim-spin
`,
		deletes: []string{"Namespace//smoke-test"},
	}.run(t)

	// Three days Terminating, as reported.
	d := diagnoseAfter(t, 72*time.Hour, "spinappexecutors.core.spinkube.dev", "containerd-shim-spin", "-n", "smoke-test")
	d.exit(1, "STUCK")
	ref := "spinappexecutors.core.spinkube.dev/containerd-shim-spin -n smoke-test"
	f := d.finalizer(ref, "core.spinkube.dev/finalizer")
	d.remover(f, "deployments.apps/spin-operator-controller-manager -n spin-operator", true)
	// What the operator waits for: the SpinApp, in another namespace, that names an executor of
	// this name.
	d.blocker(f, "spinapps.core.spinkube.dev/hello-spin -n weekly-full-20260304")
	d.notDeleting(ref, "an executor unfinalized for three days")
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
	d.notFirstFix(f, readLogs)
}
