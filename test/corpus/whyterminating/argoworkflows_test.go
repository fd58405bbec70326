package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/argoproj/argo-workflows/issues/13499 ("Cannot delete failed
// Workflow due to ArtifactGC finalizer"): the example artifact-gc-workflow failed at once (an
// image of the wrong architecture), and deleting the Workflow hangs on its finalizer
// workflows.argoproj.io/artifact-gc. The workflow controller runs; the artifact GC pod it started
// completed, but carries the label workflows.argoproj.io/completed=true, which the controller's
// pod informer filters out, so it never sees the GC succeed. The maintainers: this is what
// spec.artifactGC.forceFinalizerRemoval is for (the finalizer is removed even when GC fails),
// and a fix (#13500) followed; for the Workflow already stuck, the finalizer is removed by hand
// (argo delete --force does the same, #9315). The Workflow failed before it wrote an artifact.
//
// Modelled on Argo Workflows' install.yaml of v3.5.10 (namespace argo: the Deployments
// workflow-controller and argo-server with their ServiceAccounts argo and argo-server, the
// ClusterRoles argo-cluster-role, with its rules on workflows and workflows/finalizers, and
// argo-server-cluster-role, which may update Workflows too, and their bindings; the
// workflow-controller-configmap with an S3 artifact repository) and on the report's Workflow, its
// WorkflowArtifactGCTask and the completed GC pod, both owned by it.
func TestCorpusArgoWorkflowsArtifactGCOfAFailedWorkflow(t *testing.T) {
	replay{
		crds: []crd{
			{group: "argoproj.io", kind: "Workflow", plural: "workflows", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "argoproj.io", kind: "WorkflowTemplate", plural: "workflowtemplates", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "argoproj.io", kind: "WorkflowArtifactGCTask", plural: "workflowartifactgctasks", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "argoproj.io", kind: "WorkflowTaskResult", plural: "workflowtaskresults", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "argoproj.io", kind: "CronWorkflow", plural: "cronworkflows", namespaced: true, versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: argo
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: argo
  namespace: argo
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: argo-server
  namespace: argo
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: argo-cluster-role
rules:
- apiGroups: [""]
  resources: ["pods", "pods/exec"]
  verbs: ["create", "get", "list", "watch", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "watch", "list"]
- apiGroups: [""]
  resources: ["persistentvolumeclaims", "persistentvolumeclaims/finalizers"]
  verbs: ["create", "update", "delete", "get"]
- apiGroups: ["argoproj.io"]
  resources: ["workflows", "workflows/finalizers", "workflowtasksets", "workflowtasksets/finalizers", "workflowartifactgctasks"]
  verbs: ["get", "list", "watch", "update", "patch", "delete", "create"]
- apiGroups: ["argoproj.io"]
  resources: ["workflowtemplates", "workflowtemplates/finalizers", "clusterworkflowtemplates", "clusterworkflowtemplates/finalizers"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["argoproj.io"]
  resources: ["workflowtaskresults"]
  verbs: ["list", "watch", "deletecollection"]
- apiGroups: [""]
  resources: ["serviceaccounts"]
  verbs: ["get", "list"]
- apiGroups: ["argoproj.io"]
  resources: ["cronworkflows", "cronworkflows/finalizers"]
  verbs: ["get", "list", "watch", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: ["policy"]
  resources: ["poddisruptionbudgets"]
  verbs: ["create", "get", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: argo-server-cluster-role
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "watch", "list"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "create"]
- apiGroups: [""]
  resources: ["pods", "pods/exec", "pods/log"]
  verbs: ["get", "list", "watch", "delete"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["watch", "create", "patch"]
- apiGroups: [""]
  resources: ["serviceaccounts"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["argoproj.io"]
  resources: ["eventsources", "sensors", "workflows", "workfloweventbindings", "workflowtemplates", "cronworkflows", "clusterworkflowtemplates"]
  verbs: ["create", "get", "list", "watch", "update", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: argo-binding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: argo-cluster-role
subjects:
- kind: ServiceAccount
  name: argo
  namespace: argo
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: argo-server-binding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: argo-server-cluster-role
subjects:
- kind: ServiceAccount
  name: argo-server
  namespace: argo
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: workflow-controller-configmap
  namespace: argo
data:
  artifactRepository: |
    s3:
      bucket: my-bucket
      endpoint: minio:9000
      insecure: true
      accessKeySecret:
        name: my-minio-cred
        key: accesskey
      secretKeySecret:
        name: my-minio-cred
        key: secretkey
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: argo-server
  namespace: argo
spec:
  selector:
    matchLabels:
      app: argo-server
  template:
    metadata:
      labels:
        app: argo-server
    spec:
      serviceAccountName: argo-server
      containers:
      - name: argo-server
        image: quay.io/argoproj/argocli:v3.5.10
        args: ["server"]
        ports:
        - name: web
          containerPort: 2746
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: workflow-controller
  namespace: argo
spec:
  selector:
    matchLabels:
      app: workflow-controller
  template:
    metadata:
      labels:
        app: workflow-controller
    spec:
      serviceAccountName: argo
      containers:
      - name: workflow-controller
        image: quay.io/argoproj/workflow-controller:v3.5.10
        command: ["workflow-controller"]
        args: []
        env:
        - name: LEADER_ELECTION_IDENTITY
          valueFrom:
            fieldRef:
              apiVersion: v1
              fieldPath: metadata.name
`,
		objects: `
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  name: artifact-gc-qzcrv
  namespace: default
  generateName: artifact-gc-
  annotations:
    workflows.argoproj.io/pod-name-format: v2
  labels:
    workflows.argoproj.io/completed: "true"
    workflows.argoproj.io/phase: Failed
  finalizers:
  - workflows.argoproj.io/artifact-gc
spec:
  entrypoint: main
  artifactGC:
    strategy: OnWorkflowDeletion
  templates:
  - name: main
    container:
      image: argoproj/argosay:v2
      command: [sh, -c]
      args: ["echo 'hello world' > /tmp/on-completion.txt; echo 'hello world' > /tmp/on-deletion.txt"]
    outputs:
      artifacts:
      - name: on-completion
        path: /tmp/on-completion.txt
        s3:
          key: on-completion.txt
        artifactGC:
          strategy: OnWorkflowCompletion
      - name: on-deletion
        path: /tmp/on-deletion.txt
        s3:
          key: on-deletion.txt
status:
  phase: Failed
  startedAt: "2024-08-24T10:08:29Z"
  finishedAt: "2024-08-24T10:08:39Z"
  progress: 0/1
  message: "Error (exit code 64): failed to start command: fork/exec /bin/sh: exec format error"
  artifactRepositoryRef:
    default: true
    artifactRepository:
      s3:
        bucket: my-bucket
        endpoint: minio:9000
        insecure: true
  artifactGCStatus:
    strategiesProcessed:
      OnWorkflowCompletion: true
      OnWorkflowDeletion: true
    podsRecouped:
      artifact-gc-qzcrv-artgc-wfdel-2166136261: true
    notSpecified: false
  nodes:
    artifact-gc-qzcrv:
      id: artifact-gc-qzcrv
      name: artifact-gc-qzcrv
      displayName: artifact-gc-qzcrv
      type: Pod
      templateName: main
      phase: Failed
      message: "Error (exit code 64): failed to start command: fork/exec /bin/sh: exec format error"
      startedAt: "2024-08-24T10:08:29Z"
      finishedAt: "2024-08-24T10:08:39Z"
  conditions:
  - type: PodRunning
    status: "False"
  - type: Completed
    status: "True"
---
apiVersion: argoproj.io/v1alpha1
kind: WorkflowArtifactGCTask
metadata:
  name: artifact-gc-qzcrv-artgc-wfdel-2166136261-0
  namespace: default
  labels:
    workflows.argoproj.io/artifact-gc-pod: "2166136261"
  ownerReferences:
  - apiVersion: argoproj.io/v1alpha1
    kind: Workflow
    name: artifact-gc-qzcrv
    controller: true
spec:
  artifactsByNode:
    artifact-gc-qzcrv:
      archiveLocation:
        archiveLogs: false
      artifacts: {}
status:
  artifactResultsByNode:
    artifact-gc-qzcrv:
      artifactResults: {}
---
apiVersion: v1
kind: Pod
metadata:
  name: artifact-gc-qzcrv-artgc-wfdel-2166136261
  namespace: default
  labels:
    workflows.argoproj.io/completed: "true"
    workflows.argoproj.io/workflow: artifact-gc-qzcrv
    workflows.argoproj.io/component: artifact-gc
    workflows.argoproj.io/artifact-gc-pod: "2166136261"
  annotations:
    workflows.argoproj.io/artifact-gc-pod: wfdel
  ownerReferences:
  - apiVersion: argoproj.io/v1alpha1
    kind: Workflow
    name: artifact-gc-qzcrv
    controller: true
spec:
  nodeName: worker-1
  restartPolicy: Never
  serviceAccountName: default
  containers:
  - name: main
    image: quay.io/argoproj/argoexec:v3.5.10
    args: ["artifact", "delete", "--loglevel", "info"]
status:
  phase: Succeeded
  startTime: "2024-08-24T10:13:22Z"
  containerStatuses:
  - name: main
    image: quay.io/argoproj/argoexec:v3.5.10
    imageID: ""
    ready: false
    restartCount: 0
    state:
      terminated:
        exitCode: 0
        reason: Completed
        startedAt: "2024-08-24T10:13:24Z"
        finishedAt: "2024-08-24T10:13:27Z"
`,
		deletes: []string{"Workflow/default/artifact-gc-qzcrv"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "workflows.argoproj.io", "artifact-gc-qzcrv", "-n", "default")
	d.exit(1, "STUCK")
	f := d.finalizer("workflows.argoproj.io/artifact-gc-qzcrv -n default", "workflows.argoproj.io/artifact-gc")
	// The workflow controller runs and is the remover, named first; the UI server, which may
	// update Workflows too but removes no finalizer, may follow it as a lesser candidate (the
	// ranking shows its evidence). Its GC pod succeeded an hour ago and nothing moved since: the
	// remover stalls, and removing the finalizer by hand is the way out, never a reinstall.
	d.remover(f, "deployments.apps/workflow-controller -n argo", true)
	d.verdict(f, removerStalled, controllerRunning)
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
