package whyterminating_test

import (
	"strings"
	"testing"
	"time"
)

// Report: https://github.com/pulumi/pulumi-kubernetes-operator/pull/1251 ("Surface a Stalled
// condition when a Stack can't be destroyed in a terminating namespace", addressing issue
// #1181): a Stack with destroyOnFinalize: true keeps finalizer.stack.pulumi.com until a
// `pulumi destroy` has run, and every Pulumi operation runs in a Workspace pod the operator
// creates anew in the Stack's namespace. When the Stack is deleted together with its namespace,
// "no new object creations are possible" there: the operator (running) can never create the
// Workspace, and the Stack hangs. The pull request only makes the operator say so; the way out
// for a Stack already stuck is to remove its finalizer by hand, which leaves the stack's cloud
// resources as they are (run `pulumi destroy` for that stack from elsewhere), and next time to
// delete the Stack before its namespace.
//
// Modelled on the operator's Helm chart (deploy/helm/pulumi-operator, v2.0): namespace
// pulumi-kubernetes-operator, the ServiceAccount, ClusterRole (rules abbreviated to the groups
// that bear on the case) and binding, the Deployment with the chart's labels and image, and the
// Service its program file server advertises itself by (added after the first run: the first
// replay left it out); the CRDs
// of pulumi.com and auto.pulumi.com. The Stack's Workspace and its pods went with the
// namespace's content (not replayed: without a kubelet they would wait for one).
func TestCorpusPulumiStackDestroyInTerminatingNamespace(t *testing.T) {
	chart := map[string]string{"app.kubernetes.io/name": "pulumi-kubernetes-operator", "app.kubernetes.io/instance": "pulumi-kubernetes-operator", "app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "pulumi-kubernetes-operator-2.0.0"}
	replay{
		crds: []crd{
			{group: "pulumi.com", kind: "Stack", plural: "stacks", namespaced: true, versions: []string{"v1"}, labels: chart},
			{group: "pulumi.com", kind: "Program", plural: "programs", namespaced: true, versions: []string{"v1"}, labels: chart},
			{group: "auto.pulumi.com", kind: "Workspace", plural: "workspaces", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
			{group: "auto.pulumi.com", kind: "Update", plural: "updates", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: pulumi-kubernetes-operator
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: pulumi-kubernetes-operator
  namespace: pulumi-kubernetes-operator
  labels:
    app.kubernetes.io/name: pulumi-kubernetes-operator
    app.kubernetes.io/instance: pulumi-kubernetes-operator
    helm.sh/chart: pulumi-kubernetes-operator-2.0.0
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: pulumi-kubernetes-operator
  labels:
    app.kubernetes.io/name: pulumi-kubernetes-operator
    app.kubernetes.io/instance: pulumi-kubernetes-operator
    helm.sh/chart: pulumi-kubernetes-operator-2.0.0
rules:
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: [""]
  resources: ["pods", "services", "secrets", "configmaps", "serviceaccounts"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["apps"]
  resources: ["statefulsets"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["auto.pulumi.com"]
  resources: ["workspaces", "workspaces/status", "updates", "updates/status"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["pulumi.com"]
  resources: ["stacks", "stacks/status", "stacks/finalizers", "programs", "programs/status", "programs/finalizers"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["source.toolkit.fluxcd.io"]
  resources: ["gitrepositories", "ocirepositories", "buckets"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: pulumi-kubernetes-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: pulumi-kubernetes-operator
subjects:
- kind: ServiceAccount
  name: pulumi-kubernetes-operator
  namespace: pulumi-kubernetes-operator
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: pulumi-kubernetes-operator
  namespace: pulumi-kubernetes-operator
  labels:
    app.kubernetes.io/name: pulumi-kubernetes-operator
    app.kubernetes.io/instance: pulumi-kubernetes-operator
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: pulumi-kubernetes-operator-2.0.0
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: pulumi-kubernetes-operator
      app.kubernetes.io/instance: pulumi-kubernetes-operator
  template:
    metadata:
      labels:
        app.kubernetes.io/name: pulumi-kubernetes-operator
        app.kubernetes.io/instance: pulumi-kubernetes-operator
    spec:
      serviceAccountName: pulumi-kubernetes-operator
      containers:
      - name: manager
        image: pulumi/pulumi-kubernetes-operator:v2.0.0
        command: ["/manager"]
        args: ["--leader-elect", "--health-probe-bind-address=:8081", "--metrics-bind-address=:8383", "--program-fs-adv-addr=pulumi-kubernetes-operator.pulumi-kubernetes-operator.svc.cluster.local:80"]
---
apiVersion: v1
kind: Service
metadata:
  name: pulumi-kubernetes-operator
  namespace: pulumi-kubernetes-operator
  labels:
    app.kubernetes.io/name: pulumi-kubernetes-operator
    app.kubernetes.io/instance: pulumi-kubernetes-operator
spec:
  selector:
    app.kubernetes.io/name: pulumi-kubernetes-operator
    app.kubernetes.io/instance: pulumi-kubernetes-operator
  ports:
  - name: http-fileserver
    port: 80
    targetPort: 9090
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: preview-pr-482
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: pulumi
  namespace: preview-pr-482
---
apiVersion: pulumi.com/v1
kind: Stack
metadata:
  name: preview-env
  namespace: preview-pr-482
  finalizers:
  - finalizer.stack.pulumi.com
spec:
  stack: acme/preview-env/pr-482
  projectRepo: https://github.com/acme/preview-env
  branch: refs/heads/main
  destroyOnFinalize: true
  serviceAccountName: pulumi
  envRefs:
    PULUMI_ACCESS_TOKEN:
      type: Secret
      secret:
        name: pulumi-api-secret
        key: accessToken
status:
  lastUpdate:
    generation: 1
    name: preview-env-8d2c1f0a
    type: up
    state: succeeded
    message: Stack update succeeded
    lastSuccessfulCommit: 9b1f4e2c7a
  outputs:
    url: https://pr-482.preview.acme.dev
  conditions:
  - type: Ready
    status: "True"
    reason: ProcessingCompleted
    message: the stack has been processed and is up to date
    lastTransitionTime: "2026-06-20T10:02:11Z"
`,
		deletes: []string{"Namespace//preview-pr-482"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "namespace", "preview-pr-482")
	d.exit(1, "STUCK")
	f := d.finalizer("stacks.pulumi.com/preview-env -n preview-pr-482", "finalizer.stack.pulumi.com")
	d.remover(f, "deployments.apps/pulumi-kubernetes-operator -n pulumi-kubernetes-operator", true)
	d.verdict(f, removerStalled)
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
	// The reason this running remover cannot finish is the namespace itself: it refuses the
	// Workspace the destroy runs in.
	if f.Stalled == nil || !strings.Contains(strings.Join(append(append([]string{}, f.Stalled.Evidence...), f.Stalled.LikelyReasons...), "\n"), "namespaces/preview-pr-482") {
		t.Errorf("the stalled verdict does not name the Terminating namespace namespaces/preview-pr-482, which refuses the Workspace the destroy needs")
	}
}
