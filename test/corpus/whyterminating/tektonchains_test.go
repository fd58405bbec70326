package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/tektoncd/chains/issues/1755 ("TaskRuns stuck on deletion after
// Chains update"): TaskRuns started under Chains v0.24.0 carry the finalizer chains.tekton.dev;
// Chains v0.27 manages its finalizers (now chains.tekton.dev/taskrun) with server-side apply and
// never removes the old one, which an earlier version added with a merge patch. After the update
// the newer finalizer is removed on delete and the TaskRun stays with chains.tekton.dev alone,
// under a Chains controller that runs, Ready, and may update it: "old pre-update started
// TaskRuns cannot get deleted without human intervention". The intervention: remove that one
// finalizer by hand (the TaskRun was signed long ago; nothing is lost).
//
// Modelled on Tekton Pipelines' release.yaml (namespace tekton-pipelines, ServiceAccount and
// ClusterRole tekton-pipelines-controller-cluster-access with its rules on tekton.dev,
// abbreviated, the controller Deployment with its labels and image) and Chains' config/
// (100-deployment.yaml, 100-rolebinding.yaml: namespace tekton-chains, ServiceAccount,
// ClusterRole tekton-chains-controller-cluster-access and binding, the Deployment
// tekton-chains-controller). The Pipelines webhooks are left out: the replay's pods answer no
// requests.
func TestCorpusTektonChainsLegacyFinalizer(t *testing.T) {
	tekton := map[string]string{"app.kubernetes.io/instance": "default", "app.kubernetes.io/part-of": "tekton-pipelines", "pipeline.tekton.dev/release": "v1.0.0"}
	replay{
		crds: []crd{
			{group: "tekton.dev", kind: "Task", plural: "tasks", namespaced: true, versions: []string{"v1", "v1beta1"}, labels: tekton},
			{group: "tekton.dev", kind: "TaskRun", plural: "taskruns", namespaced: true, versions: []string{"v1", "v1beta1"}, labels: tekton},
			{group: "tekton.dev", kind: "Pipeline", plural: "pipelines", namespaced: true, versions: []string{"v1", "v1beta1"}, labels: tekton},
			{group: "tekton.dev", kind: "PipelineRun", plural: "pipelineruns", namespaced: true, versions: []string{"v1", "v1beta1"}, labels: tekton},
			{group: "tekton.dev", kind: "CustomRun", plural: "customruns", namespaced: true, versions: []string{"v1beta1"}, labels: tekton},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: tekton-pipelines
  labels:
    app.kubernetes.io/instance: default
    app.kubernetes.io/part-of: tekton-pipelines
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: tekton-pipelines-controller
  namespace: tekton-pipelines
  labels:
    app.kubernetes.io/component: controller
    app.kubernetes.io/instance: default
    app.kubernetes.io/part-of: tekton-pipelines
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: tekton-pipelines-controller-cluster-access
  labels:
    app.kubernetes.io/component: controller
    app.kubernetes.io/instance: default
    app.kubernetes.io/part-of: tekton-pipelines
rules:
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["list", "watch"]
- apiGroups: ["tekton.dev"]
  resources: ["tasks", "taskruns", "pipelines", "pipelineruns", "customruns"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
- apiGroups: ["tekton.dev"]
  resources: ["taskruns/finalizers", "pipelineruns/finalizers", "customruns/finalizers"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
- apiGroups: ["tekton.dev"]
  resources: ["tasks/status", "taskruns/status", "pipelines/status", "pipelineruns/status", "customruns/status"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: tekton-pipelines-controller-cluster-access
  labels:
    app.kubernetes.io/component: controller
    app.kubernetes.io/instance: default
    app.kubernetes.io/part-of: tekton-pipelines
subjects:
- kind: ServiceAccount
  name: tekton-pipelines-controller
  namespace: tekton-pipelines
roleRef:
  kind: ClusterRole
  name: tekton-pipelines-controller-cluster-access
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: tekton-pipelines-controller
  namespace: tekton-pipelines
  labels:
    app.kubernetes.io/name: controller
    app.kubernetes.io/component: controller
    app.kubernetes.io/instance: default
    app.kubernetes.io/version: v1.0.0
    app.kubernetes.io/part-of: tekton-pipelines
    pipeline.tekton.dev/release: v1.0.0
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: controller
      app.kubernetes.io/component: controller
      app.kubernetes.io/instance: default
      app.kubernetes.io/part-of: tekton-pipelines
  template:
    metadata:
      labels:
        app.kubernetes.io/name: controller
        app.kubernetes.io/component: controller
        app.kubernetes.io/instance: default
        app.kubernetes.io/part-of: tekton-pipelines
        app: tekton-pipelines-controller
    spec:
      serviceAccountName: tekton-pipelines-controller
      containers:
      - name: tekton-pipelines-controller
        image: gcr.io/tekton-releases/github.com/tektoncd/pipeline/cmd/controller:v1.0.0
---
apiVersion: v1
kind: Namespace
metadata:
  name: tekton-chains
  labels:
    app.kubernetes.io/component: chains
    app.kubernetes.io/part-of: tekton-pipelines
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: tekton-chains-controller
  namespace: tekton-chains
  labels:
    app.kubernetes.io/component: controller
    app.kubernetes.io/instance: default
    app.kubernetes.io/part-of: tekton-chains
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: tekton-chains-controller-cluster-access
  labels:
    app.kubernetes.io/component: controller
    app.kubernetes.io/instance: default
    app.kubernetes.io/part-of: tekton-chains
rules:
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["list", "watch"]
- apiGroups: ["tekton.dev"]
  resources: ["tasks", "taskruns", "pipelines", "pipelineruns", "customruns"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
- apiGroups: ["tekton.dev"]
  resources: ["taskruns/finalizers", "pipelineruns/finalizers", "customruns/finalizers"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
- apiGroups: ["tekton.dev"]
  resources: ["tasks/status", "taskruns/status", "pipelines/status", "pipelineruns/status", "customruns/status"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: tekton-chains-controller-cluster-access
  labels:
    app.kubernetes.io/component: controller
    app.kubernetes.io/instance: default
    app.kubernetes.io/part-of: tekton-chains
subjects:
- kind: ServiceAccount
  name: tekton-chains-controller
  namespace: tekton-chains
roleRef:
  kind: ClusterRole
  name: tekton-chains-controller-cluster-access
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: tekton-chains-controller
  namespace: tekton-chains
  labels:
    app.kubernetes.io/name: tekton-pipelines
    app.kubernetes.io/component: chains
    pipeline.tekton.dev/release: v0.27.0
    version: v0.27.0
spec:
  replicas: 1
  selector:
    matchLabels:
      app: tekton-chains-controller
  template:
    metadata:
      labels:
        app: tekton-chains-controller
        app.kubernetes.io/name: tekton-pipelines
        app.kubernetes.io/component: controller
        version: v0.27.0
    spec:
      serviceAccountName: tekton-chains-controller
      containers:
      - name: tekton-chains-controller
        image: gcr.io/tekton-releases/github.com/tektoncd/chains/cmd/controller:v0.27.0
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: ci
---
apiVersion: tekton.dev/v1
kind: TaskRun
metadata:
  name: build-image-run-x7k2p
  namespace: ci
  labels:
    app.kubernetes.io/managed-by: tekton-pipelines
    tekton.dev/task: build-image
    tekton.dev/taskRun: build-image-run-x7k2p
  annotations:
    chains.tekton.dev/signed: "true"
    pipeline.tekton.dev/release: v0.68.0
  finalizers:
  - chains.tekton.dev
spec:
  serviceAccountName: default
  taskRef:
    kind: Task
    name: build-image
status:
  podName: build-image-run-x7k2p-pod
  startTime: "2026-06-20T08:12:03Z"
  completionTime: "2026-06-20T08:14:41Z"
  conditions:
  - type: Succeeded
    status: "True"
    reason: Succeeded
    message: All Steps have completed executing
    lastTransitionTime: "2026-06-20T08:14:41Z"
`,
		deletes: []string{"TaskRun/ci/build-image-run-x7k2p"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "taskruns.tekton.dev", "build-image-run-x7k2p", "-n", "ci")
	d.exit(1, "STUCK")
	f := d.finalizer("taskruns.tekton.dev/build-image-run-x7k2p -n ci", "chains.tekton.dev")
	d.remover(f, "deployments.apps/tekton-chains-controller -n tekton-chains", true)
	d.verdict(f, removerStalled, finalizerOrphaned)
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
