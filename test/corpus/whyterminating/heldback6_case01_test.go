package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/tektoncd/triggers/issues/1243 ("EventListener deletion hang after
// upgrade"): EventListeners created under Triggers 0.16 carry the finalizer
// eventlisteners.triggers.tekton.dev, which that release needed to clean up logging ConfigMaps.
// After the upgrade to the next release (main of October 2021, Pipelines v0.28.1) the controller
// runs, Ready, and may update EventListeners and their finalizers, but no longer handles that
// finalizer: deleting the examples' EventListeners hangs, and "when I do kubectl edit el
// <el-name> and remove finalizer the object gets deleted successfully". The fix
// (tektoncd/triggers#1244) makes the controller drop the old finalizer: it is not needed any
// more, and removing it by hand loses nothing.
//
// Modelled on Triggers' config/ of that release (namespace tekton-pipelines; ServiceAccounts
// tekton-triggers-controller and tekton-triggers-webhook, both bound to the ClusterRole
// tekton-triggers-admin with its rules on triggers.tekton.dev including
// eventlisteners/finalizers; the ClusterRole tekton-triggers-eventlistener-roles the listeners'
// own service accounts are bound to, read-only on triggers.tekton.dev; the controller and webhook
// Deployments with their labels) and on Tekton Pipelines v0.28.1, which runs beside it
// (tekton-pipelines-controller, rules on tekton.dev only). The EventListener of the report's
// github example runs its sink Deployment el-github-listener, owned by it. Webhook
// configurations are left out: the replay's pods answer no requests.
func TestCorpusTektonTriggersEventListenerLegacyFinalizer(t *testing.T) {
	triggers := map[string]string{"app.kubernetes.io/instance": "default", "app.kubernetes.io/part-of": "tekton-triggers", "triggers.tekton.dev/release": "v0.17.0"}
	pipelines := map[string]string{"app.kubernetes.io/instance": "default", "app.kubernetes.io/part-of": "tekton-pipelines", "pipeline.tekton.dev/release": "v0.28.1"}
	replay{
		crds: []crd{
			{group: "triggers.tekton.dev", kind: "EventListener", plural: "eventlisteners", namespaced: true, versions: []string{"v1beta1", "v1alpha1"}, labels: triggers},
			{group: "triggers.tekton.dev", kind: "TriggerBinding", plural: "triggerbindings", namespaced: true, versions: []string{"v1beta1", "v1alpha1"}, labels: triggers},
			{group: "triggers.tekton.dev", kind: "TriggerTemplate", plural: "triggertemplates", namespaced: true, versions: []string{"v1beta1", "v1alpha1"}, labels: triggers},
			{group: "triggers.tekton.dev", kind: "Trigger", plural: "triggers", namespaced: true, versions: []string{"v1beta1", "v1alpha1"}, labels: triggers},
			{group: "triggers.tekton.dev", kind: "ClusterTriggerBinding", plural: "clustertriggerbindings", versions: []string{"v1beta1", "v1alpha1"}, labels: triggers},
			{group: "triggers.tekton.dev", kind: "ClusterInterceptor", plural: "clusterinterceptors", versions: []string{"v1alpha1"}, labels: triggers},
			{group: "tekton.dev", kind: "TaskRun", plural: "taskruns", namespaced: true, versions: []string{"v1beta1"}, labels: pipelines},
			{group: "tekton.dev", kind: "PipelineRun", plural: "pipelineruns", namespaced: true, versions: []string{"v1beta1"}, labels: pipelines},
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
- apiGroups: ["tekton.dev"]
  resources: ["tasks", "clustertasks", "taskruns", "pipelines", "pipelineruns", "pipelineresources", "conditions", "runs"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
- apiGroups: ["tekton.dev"]
  resources: ["taskruns/finalizers", "pipelineruns/finalizers", "runs/finalizers"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
- apiGroups: ["tekton.dev"]
  resources: ["tasks/status", "clustertasks/status", "taskruns/status", "pipelines/status", "pipelineruns/status", "pipelineresources/status", "runs/status"]
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
    app.kubernetes.io/version: v0.28.1
    app.kubernetes.io/part-of: tekton-pipelines
    pipeline.tekton.dev/release: v0.28.1
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
        image: gcr.io/tekton-releases/github.com/tektoncd/pipeline/cmd/controller:v0.28.1
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: tekton-triggers-controller
  namespace: tekton-pipelines
  labels:
    app.kubernetes.io/component: controller
    app.kubernetes.io/instance: default
    app.kubernetes.io/part-of: tekton-triggers
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: tekton-triggers-webhook
  namespace: tekton-pipelines
  labels:
    app.kubernetes.io/component: webhook
    app.kubernetes.io/instance: default
    app.kubernetes.io/part-of: tekton-triggers
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: tekton-triggers-admin
  labels:
    app.kubernetes.io/instance: default
    app.kubernetes.io/part-of: tekton-triggers
rules:
- apiGroups: [""]
  resources: ["configmaps", "services", "events"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
- apiGroups: ["apps"]
  resources: ["deployments", "deployments/finalizers"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
- apiGroups: ["admissionregistration.k8s.io"]
  resources: ["mutatingwebhookconfigurations", "validatingwebhookconfigurations"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
- apiGroups: ["triggers.tekton.dev"]
  resources: ["clustertriggerbindings", "clusterinterceptors", "eventlisteners", "triggerbindings", "triggertemplates", "triggers", "eventlisteners/finalizers"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
- apiGroups: ["triggers.tekton.dev"]
  resources: ["clustertriggerbindings/status", "clusterinterceptors/status", "eventlisteners/status", "triggerbindings/status", "triggertemplates/status", "triggers/status"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "list", "create", "update", "delete", "patch", "watch"]
- apiGroups: [""]
  resources: ["namespaces"]
  verbs: ["get"]
  resourceNames: ["tekton-pipelines"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: tekton-triggers-eventlistener-roles
  labels:
    app.kubernetes.io/instance: default
    app.kubernetes.io/part-of: tekton-triggers
rules:
- apiGroups: ["triggers.tekton.dev"]
  resources: ["eventlisteners", "triggerbindings", "triggertemplates", "triggers"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["tekton.dev"]
  resources: ["pipelineruns", "pipelineresources", "taskruns"]
  verbs: ["create"]
- apiGroups: [""]
  resources: ["serviceaccounts"]
  verbs: ["impersonate"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: tekton-triggers-controller-admin
  labels:
    app.kubernetes.io/instance: default
    app.kubernetes.io/part-of: tekton-triggers
subjects:
- kind: ServiceAccount
  name: tekton-triggers-controller
  namespace: tekton-pipelines
roleRef:
  kind: ClusterRole
  name: tekton-triggers-admin
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: tekton-triggers-webhook-admin
  labels:
    app.kubernetes.io/instance: default
    app.kubernetes.io/part-of: tekton-triggers
subjects:
- kind: ServiceAccount
  name: tekton-triggers-webhook
  namespace: tekton-pipelines
roleRef:
  kind: ClusterRole
  name: tekton-triggers-admin
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: tekton-triggers-controller
  namespace: tekton-pipelines
  labels:
    app.kubernetes.io/name: controller
    app.kubernetes.io/component: controller
    app.kubernetes.io/instance: default
    app.kubernetes.io/version: v0.17.0
    app.kubernetes.io/part-of: tekton-triggers
    triggers.tekton.dev/release: v0.17.0
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: controller
      app.kubernetes.io/component: controller
      app.kubernetes.io/instance: default
      app.kubernetes.io/part-of: tekton-triggers
  template:
    metadata:
      labels:
        app.kubernetes.io/name: controller
        app.kubernetes.io/component: controller
        app.kubernetes.io/instance: default
        app.kubernetes.io/version: v0.17.0
        app.kubernetes.io/part-of: tekton-triggers
        app: tekton-triggers-controller
        triggers.tekton.dev/release: v0.17.0
    spec:
      serviceAccountName: tekton-triggers-controller
      containers:
      - name: tekton-triggers-controller
        image: gcr.io/tekton-releases/github.com/tektoncd/triggers/cmd/controller:v0.17.0
        args: ["-logtostderr", "-stderrthreshold", "INFO", "-el-image", "gcr.io/tekton-releases/github.com/tektoncd/triggers/cmd/eventlistenersink:v0.17.0", "-el-port", "8080"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: tekton-triggers-webhook
  namespace: tekton-pipelines
  labels:
    app.kubernetes.io/name: webhook
    app.kubernetes.io/component: webhook
    app.kubernetes.io/instance: default
    app.kubernetes.io/version: v0.17.0
    app.kubernetes.io/part-of: tekton-triggers
    triggers.tekton.dev/release: v0.17.0
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: webhook
      app.kubernetes.io/component: webhook
      app.kubernetes.io/instance: default
      app.kubernetes.io/part-of: tekton-triggers
  template:
    metadata:
      labels:
        app.kubernetes.io/name: webhook
        app.kubernetes.io/component: webhook
        app.kubernetes.io/instance: default
        app.kubernetes.io/part-of: tekton-triggers
        app: tekton-triggers-webhook
    spec:
      serviceAccountName: tekton-triggers-webhook
      containers:
      - name: webhook
        image: gcr.io/tekton-releases/github.com/tektoncd/triggers/cmd/webhook:v0.17.0
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: getting-started
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: tekton-triggers-example-sa
  namespace: getting-started
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: triggers-example-eventlistener-binding
  namespace: getting-started
subjects:
- kind: ServiceAccount
  name: tekton-triggers-example-sa
  namespace: getting-started
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: tekton-triggers-eventlistener-roles
---
apiVersion: triggers.tekton.dev/v1beta1
kind: TriggerBinding
metadata:
  name: github-pr-binding
  namespace: getting-started
spec:
  params:
  - name: gitrevision
    value: $(body.pull_request.head.sha)
  - name: gitrepositoryurl
    value: $(body.repository.clone_url)
---
apiVersion: triggers.tekton.dev/v1beta1
kind: TriggerTemplate
metadata:
  name: github-template
  namespace: getting-started
spec:
  params:
  - name: gitrevision
  - name: gitrepositoryurl
  resourcetemplates:
  - apiVersion: tekton.dev/v1beta1
    kind: TaskRun
    metadata:
      generateName: github-run-
    spec:
      taskSpec:
        steps:
        - name: echo
          image: ubuntu
          script: echo "$(tt.params.gitrevision)"
---
apiVersion: triggers.tekton.dev/v1beta1
kind: EventListener
metadata:
  name: github-listener
  namespace: getting-started
  finalizers:
  - eventlisteners.triggers.tekton.dev
spec:
  serviceAccountName: tekton-triggers-example-sa
  triggers:
  - name: github-listener
    interceptors:
    - ref:
        name: github
      params:
      - name: eventTypes
        value: ["pull_request"]
    bindings:
    - ref: github-pr-binding
    template:
      ref: github-template
status:
  configuration:
    generatedName: el-github-listener
  address:
    url: http://el-github-listener.getting-started.svc.cluster.local:8080
  conditions:
  - type: Ready
    status: "True"
    lastTransitionTime: "2021-10-18T09:41:12Z"
  - type: Deployment
    status: "True"
    lastTransitionTime: "2021-10-18T09:41:12Z"
  - type: Service
    status: "True"
    lastTransitionTime: "2021-10-18T09:41:02Z"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: el-github-listener
  namespace: getting-started
  labels:
    app.kubernetes.io/managed-by: EventListener
    app.kubernetes.io/part-of: Triggers
    eventlistener: github-listener
  ownerReferences:
  - apiVersion: triggers.tekton.dev/v1beta1
    kind: EventListener
    name: github-listener
    controller: true
    blockOwnerDeletion: true
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/managed-by: EventListener
      app.kubernetes.io/part-of: Triggers
      eventlistener: github-listener
  template:
    metadata:
      labels:
        app.kubernetes.io/managed-by: EventListener
        app.kubernetes.io/part-of: Triggers
        eventlistener: github-listener
    spec:
      serviceAccountName: tekton-triggers-example-sa
      containers:
      - name: event-listener
        image: gcr.io/tekton-releases/github.com/tektoncd/triggers/cmd/eventlistenersink:v0.17.0
        args: ["--el-name=github-listener", "--el-namespace=getting-started", "--port=8080"]
---
apiVersion: v1
kind: Service
metadata:
  name: el-github-listener
  namespace: getting-started
  labels:
    app.kubernetes.io/managed-by: EventListener
    app.kubernetes.io/part-of: Triggers
    eventlistener: github-listener
  ownerReferences:
  - apiVersion: triggers.tekton.dev/v1beta1
    kind: EventListener
    name: github-listener
    controller: true
    blockOwnerDeletion: true
spec:
  selector:
    app.kubernetes.io/managed-by: EventListener
    app.kubernetes.io/part-of: Triggers
    eventlistener: github-listener
  ports:
  - name: http-listener
    port: 8080
    targetPort: 8080
`,
		deletes: []string{"EventListener/getting-started/github-listener"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "eventlisteners.triggers.tekton.dev", "github-listener", "-n", "getting-started")
	d.exit(1, "STUCK")
	f := d.finalizer("eventlisteners.triggers.tekton.dev/github-listener -n getting-started", "eventlisteners.triggers.tekton.dev")
	// The Triggers controller runs and may update the EventListener: it is the remover (its
	// webhook, bound to the same ClusterRole, acts on no finalizer), the listener's own sink is
	// not. It has not removed the finalizer for an hour: the remover stalls on a finalizer it no
	// longer handles, and removing that one finalizer by hand is the way out, never a reinstall.
	if len(f.Controllers) == 0 || !f.Controllers[0].Found || !f.Controllers[0].Healthy ||
		(f.Controllers[0].Object.String() != "deployments.apps/tekton-triggers-controller -n tekton-pipelines" &&
			f.Controllers[0].Object.String() != "deployments.apps/tekton-triggers-webhook -n tekton-pipelines") {
		t.Errorf("finalizer %s: want a running Triggers workload of tekton-pipelines named first as its remover", f.Name)
	}
	d.notRemover(f, "deployments.apps/el-github-listener -n getting-started")
	d.notRemover(f, "deployments.apps/tekton-pipelines-controller -n tekton-pipelines")
	d.verdict(f, removerStalled, finalizerOrphaned)
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
