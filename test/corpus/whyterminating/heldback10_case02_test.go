package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/fission/fission/issues/3660 ("Function finalizer never clears when
// FissionTenant is deleted before its Functions finish tearing down"): deleting a tenant's
// namespace together with its FissionTenant leaves the namespace Terminating for good. Its
// Functions keep the finalizer fission.io/function-cleanup, which the executor (running) removes
// after tearing a function's workloads down; but the executor's watch admits a Function only
// while its namespace belongs to a live FissionTenant, and the tenant is gone, so the delete is
// never seen and the finalizer never removed. The issue is open; what frees the namespace is
// removing the finalizer by hand (the function's workloads in the namespace go with it). The
// executor runs and is the remover; nothing is to be reinstalled; the router and the builder
// manager, which read Functions, are not removers.
//
// Modelled on the Helm chart charts/fission-all of the release of the report (multi-tenancy,
// finalizerEnabled true, the default): in namespace fission the executor's, router's and
// builder manager's ServiceAccounts, ClusterRoles (the executor may update Functions and their
// finalizers; the others read them) and bindings, and Deployments with the chart's labels; the
// CRDs of fission.io, unlabelled (FissionTenant cluster-scoped, naming its namespace, as the
// report describes it). Admission webhooks are left out: the replay's pods answer no requests,
// and the report is not about them. Tenant team-a's namespace held the Environment nodejs and
// the Function hello; its FissionTenant is already gone.
func TestCorpusFissionFunctionOfADeletedTenant(t *testing.T) {
	fi := func(kind, plural string, namespaced bool) crd {
		return crd{group: "fission.io", kind: kind, plural: plural, namespaced: namespaced, versions: []string{"v1"}}
	}
	chart := `{chart: fission-all-v1.23.0, release: fission, heritage: Helm}`
	replay{
		crds: []crd{
			fi("Function", "functions", true),
			fi("Environment", "environments", true),
			fi("Package", "packages", true),
			fi("HTTPTrigger", "httptriggers", true),
			fi("TimeTrigger", "timetriggers", true),
			fi("MessageQueueTrigger", "messagequeuetriggers", true),
			fi("KubernetesWatchTrigger", "kuberneteswatchtriggers", true),
			fi("CanaryConfig", "canaryconfigs", true),
			fi("FissionTenant", "fissiontenants", false),
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: fission
---
apiVersion: v1
kind: Namespace
metadata:
  name: team-a
  labels: {fission.io/tenant: team-a}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: fission-executor
  namespace: fission
  labels: ` + chart + `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: fission-executor
  labels: ` + chart + `
rules:
- apiGroups: [""]
  resources: ["pods", "services", "configmaps", "secrets", "serviceaccounts"]
  verbs: ["create", "delete", "get", "list", "watch", "patch", "update"]
- apiGroups: ["apps"]
  resources: ["deployments", "replicasets"]
  verbs: ["create", "delete", "get", "list", "watch", "patch", "update"]
- apiGroups: ["autoscaling"]
  resources: ["horizontalpodautoscalers"]
  verbs: ["create", "delete", "get", "list", "watch", "patch", "update"]
- apiGroups: ["fission.io"]
  resources: ["functions", "environments", "packages", "fissiontenants"]
  verbs: ["get", "list", "watch", "patch", "update"]
- apiGroups: ["fission.io"]
  resources: ["functions/finalizers"]
  verbs: ["update"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["create", "get", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: fission-executor
  labels: ` + chart + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: fission-executor
subjects:
- kind: ServiceAccount
  name: fission-executor
  namespace: fission
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: fission-router
  namespace: fission
  labels: ` + chart + `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: fission-router
  labels: ` + chart + `
rules:
- apiGroups: ["fission.io"]
  resources: ["functions", "httptriggers", "canaryconfigs", "environments", "fissiontenants"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["services", "endpoints"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: fission-router
  labels: ` + chart + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: fission-router
subjects:
- kind: ServiceAccount
  name: fission-router
  namespace: fission
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: fission-buildermgr
  namespace: fission
  labels: ` + chart + `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: fission-buildermgr
  labels: ` + chart + `
rules:
- apiGroups: ["fission.io"]
  resources: ["packages", "environments"]
  verbs: ["get", "list", "watch", "patch", "update"]
- apiGroups: ["fission.io"]
  resources: ["functions", "fissiontenants"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["create", "delete", "get", "list", "watch", "patch", "update"]
- apiGroups: [""]
  resources: ["services", "pods", "configmaps", "secrets"]
  verbs: ["create", "delete", "get", "list", "watch", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: fission-buildermgr
  labels: ` + chart + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: fission-buildermgr
subjects:
- kind: ServiceAccount
  name: fission-buildermgr
  namespace: fission
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: executor
  namespace: fission
  labels: {svc: executor, chart: fission-all-v1.23.0, release: fission, heritage: Helm}
spec:
  replicas: 1
  selector:
    matchLabels: {svc: executor}
  template:
    metadata:
      labels: {svc: executor, application: fission-executor}
    spec:
      serviceAccountName: fission-executor
      containers:
      - name: executor
        image: ghcr.io/fission/fission-bundle:v1.23.0
        args: ["--executorPort", "8888"]
        env:
        - {name: FINALIZER_ENABLED, value: "true"}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: router
  namespace: fission
  labels: {svc: router, chart: fission-all-v1.23.0, release: fission, heritage: Helm}
spec:
  replicas: 1
  selector:
    matchLabels: {svc: router}
  template:
    metadata:
      labels: {svc: router, application: fission-router}
    spec:
      serviceAccountName: fission-router
      containers:
      - name: router
        image: ghcr.io/fission/fission-bundle:v1.23.0
        args: ["--routerPort", "8888"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: buildermgr
  namespace: fission
  labels: {svc: buildermgr, chart: fission-all-v1.23.0, release: fission, heritage: Helm}
spec:
  replicas: 1
  selector:
    matchLabels: {svc: buildermgr}
  template:
    metadata:
      labels: {svc: buildermgr, application: fission-builder-manager}
    spec:
      serviceAccountName: fission-buildermgr
      containers:
      - name: buildermgr
        image: ghcr.io/fission/fission-bundle:v1.23.0
        args: ["--builderMgr"]
`,
		objects: `
apiVersion: fission.io/v1
kind: Environment
metadata:
  name: nodejs
  namespace: team-a
spec:
  version: 3
  runtime:
    image: ghcr.io/fission/node-env
  poolsize: 3
---
apiVersion: fission.io/v1
kind: Function
metadata:
  name: hello
  namespace: team-a
  finalizers: [fission.io/function-cleanup]
spec:
  environment:
    name: nodejs
    namespace: team-a
  package:
    packageref:
      name: hello-pkg
      namespace: team-a
    functionName: hello
  InvokeStrategy:
    StrategyType: execution
    ExecutionStrategy:
      ExecutorType: newdeploy
      MinScale: 1
      MaxScale: 3
      TargetCPUPercent: 80
  concurrency: 500
  requestsPerPod: 1
`,
		deletes: []string{"Namespace//team-a"},
	}.run(t)

	// "Permanently wedge": long after the tenant's deletion.
	d := diagnoseAfter(t, 2*time.Hour, "functions.fission.io", "hello", "-n", "team-a")
	d.exit(1, "STUCK")
	ref := "functions.fission.io/hello -n team-a"
	f := d.finalizer(ref, "fission.io/function-cleanup")
	d.remover(f, "deployments.apps/executor -n fission", true)
	d.notRemover(f, "deployments.apps/router -n fission")
	d.notRemover(f, "deployments.apps/buildermgr -n fission")
	d.notDeleting(ref, "a function unfinalized for two hours")
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
