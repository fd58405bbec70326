package whyterminating_test

import "testing"

// Report: https://github.com/restatedev/restate-operator/issues/172 ("RestateDeployment
// finalizer stuck in CleanupFailed(DeploymentInUse) loop when no invocations ran"): in an
// ephemeral preview environment, deleting a RestateDeployment that never ran an invocation
// "gets permanently stuck": the operator runs, retries every 30 seconds and reports
// FailedReconcile "CleanupFailed(DeploymentInUse)" each time, "but never makes progress"
// (fixed by #173; until then, removing the finalizer by hand). Repeated failures are not a
// deletion on course: the object is stuck.
//
// Modelled on the restate-operator Helm chart (oci://ghcr.io/restatedev/restate-operator-helm,
// charts/restate-operator): namespace restate-operator, its ServiceAccount, ClusterRole with the
// rules on restate.dev and the workloads it manages (abbreviated to the groups that bear on the
// case), binding and Deployment; the finalizer
// deployments.restate.dev and the FailedReconcile events are the operator's own
// (src/resources/restatedeployments.rs, src/controllers/restatedeployment/controller.rs).
func TestCorpusRestateDeploymentCleanupLoop(t *testing.T) {
	replay{
		crds: []crd{
			{group: "restate.dev", kind: "RestateCluster", plural: "restateclusters", versions: []string{"v1"}},
			{group: "restate.dev", kind: "RestateDeployment", plural: "restatedeployments", namespaced: true, versions: []string{"v1beta1"}},
			{group: "restate.dev", kind: "RestateCloudEnvironment", plural: "restatecloudenvironments", versions: []string{"v1beta1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: restate-operator
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: restate-operator
  namespace: restate-operator
  labels:
    app.kubernetes.io/name: restate-operator
    app.kubernetes.io/instance: restate-operator
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: restate-operator
  labels:
    app.kubernetes.io/name: restate-operator
rules:
- apiGroups: ["restate.dev"]
  resources: ["restateclusters", "restateclusters/status", "restatedeployments", "restatedeployments/status", "restatedeployments/finalizers", "restatecloudenvironments", "restatecloudenvironments/status"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["apps"]
  resources: ["replicasets", "statefulsets", "replicasets/scale"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["namespaces", "services", "configmaps", "serviceaccounts", "secrets", "persistentvolumeclaims"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "delete"]
- apiGroups: ["events.k8s.io"]
  resources: ["events"]
  verbs: ["create"]
- apiGroups: ["networking.k8s.io"]
  resources: ["networkpolicies"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: restate-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: restate-operator
subjects:
- kind: ServiceAccount
  name: restate-operator
  namespace: restate-operator
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: restate-operator
  namespace: restate-operator
  labels:
    app.kubernetes.io/name: restate-operator
    app.kubernetes.io/instance: restate-operator
    helm.sh/chart: restate-operator-helm-2.3.0
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: restate-operator
      app.kubernetes.io/instance: restate-operator
  template:
    metadata:
      labels:
        app.kubernetes.io/name: restate-operator
        app.kubernetes.io/instance: restate-operator
    spec:
      serviceAccountName: restate-operator
      containers:
      - name: restate-operator
        image: ghcr.io/restatedev/restate-operator:2.3.0
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: pr-1432
---
apiVersion: restate.dev/v1beta1
kind: RestateDeployment
metadata:
  name: greeter
  namespace: pr-1432
  finalizers:
  - deployments.restate.dev
spec:
  replicas: 1
  restate:
    register:
      cluster: restate
  selector:
    matchLabels:
      app: greeter
  template:
    metadata:
      labels:
        app: greeter
    spec:
      containers:
      - name: greeter
        image: registry.example/greeter:pr-1432
status:
  replicas: 1
  readyReplicas: 1
`,
		deletes: []string{"RestateDeployment/pr-1432/greeter"},
		events: []event{{about: "RestateDeployment/pr-1432/greeter", typ: "Warning", reason: "FailedReconcile", component: "restate-operator", count: 57,
			message: "failed to delete resource: CleanupFailed(DeploymentInUse)"}},
	}.run(t)

	d := diagnose(t, "restatedeployments.restate.dev", "greeter", "-n", "pr-1432")
	d.exit(1, "STUCK")
	f := d.finalizer("restatedeployments.restate.dev/greeter -n pr-1432", "deployments.restate.dev")
	d.remover(f, "deployments.apps/restate-operator -n restate-operator", true)
	if d.object("restatedeployments.restate.dev/greeter -n pr-1432").Deleting {
		t.Errorf("repeated FailedReconcile events reported as a deletion on course")
	}
}
