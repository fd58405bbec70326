package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/eclipse-che/che/issues/17146 ("[devworkspace] Foreground deletion
// of devworkspace has strange results"): a DevWorkspace deleted with foreground propagation left
// its objects behind with deletionTimestamp and foregroundDeletion — the WorkspaceRouting, the
// Deployment, the DevWorkspace itself — although everything they owned was gone. The cause, found
// by the maintainer (openshift/console#5687): "the workspace controller webhooks were blocking the
// removal of the foregroundDeletion finalizer": the controller's mutating webhook refuses any
// update of an object a workspace owns by anyone but the controller ("object is owned by workspace
// and cannot be updated"), the garbage collector's update that drops foregroundDeletion among
// them. Fixed in the webhook (devfile/devworkspace-operator#107, which lets a change of only the
// finalizers through). A strip by hand is an update the same webhook refuses.
//
// Modelled on the DevWorkspace controller's deployment of that time (devworkspace-operator v0.1,
// deploy/): namespace devworkspace-controller, the Deployment devworkspace-controller (which also
// serves the webhooks) with its ServiceAccount, ClusterRole (abbreviated) and binding, the Service
// devworkspace-controller, the MutatingWebhookConfiguration controller.devfile.io it registers
// (workspace objects, selected by the workspace id label, failurePolicy Fail); the CRDs
// devworkspaces.workspace.devfile.io, components and workspaceroutings of controller.devfile.io.
// The report's DevWorkspace cloud-shell and its WorkspaceRouting, both deleted in the foreground,
// their other dependents gone.
func TestCorpusDevWorkspaceForegroundDeletionRefusedByItsWebhook(t *testing.T) {
	replay{
		crds: []crd{
			{group: "workspace.devfile.io", kind: "DevWorkspace", plural: "devworkspaces", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "controller.devfile.io", kind: "Component", plural: "components", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "controller.devfile.io", kind: "WorkspaceRouting", plural: "workspaceroutings", namespaced: true, versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: devworkspace-controller
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: devworkspace-controller
  namespace: devworkspace-controller
  labels: {app.kubernetes.io/name: devworkspace-controller, app.kubernetes.io/part-of: devworkspace-operator}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: devworkspace-controller
  labels: {app.kubernetes.io/name: devworkspace-controller, app.kubernetes.io/part-of: devworkspace-operator}
rules:
- apiGroups: [""]
  resources: ["pods", "services", "configmaps", "secrets", "serviceaccounts", "persistentvolumeclaims", "events"]
  verbs: ["*"]
- apiGroups: ["apps"]
  resources: ["deployments", "replicasets"]
  verbs: ["*"]
- apiGroups: ["workspace.devfile.io", "controller.devfile.io"]
  resources: ["*"]
  verbs: ["*"]
- apiGroups: ["admissionregistration.k8s.io"]
  resources: ["mutatingwebhookconfigurations", "validatingwebhookconfigurations"]
  verbs: ["create", "get", "update", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: devworkspace-controller
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: devworkspace-controller}
subjects:
- {kind: ServiceAccount, name: devworkspace-controller, namespace: devworkspace-controller}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: devworkspace-controller
  namespace: devworkspace-controller
  labels: {app.kubernetes.io/name: devworkspace-controller, app.kubernetes.io/part-of: devworkspace-operator}
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: devworkspace-controller, app.kubernetes.io/part-of: devworkspace-operator}
  template:
    metadata:
      labels: {app.kubernetes.io/name: devworkspace-controller, app.kubernetes.io/part-of: devworkspace-operator}
    spec:
      serviceAccountName: devworkspace-controller
      containers:
      - name: devworkspace-controller
        image: quay.io/devfile/devworkspace-controller:next
        args: ["/usr/local/bin/devworkspace-controller"]
        env:
        - {name: WEBHOOKS_ENABLED, value: "true"}
        ports:
        - {name: webhook-server, containerPort: 8443}
---
apiVersion: v1
kind: Service
metadata:
  name: devworkspace-controller
  namespace: devworkspace-controller
  labels: {app.kubernetes.io/name: devworkspace-controller, app.kubernetes.io/part-of: devworkspace-operator}
spec:
  selector: {app.kubernetes.io/name: devworkspace-controller, app.kubernetes.io/part-of: devworkspace-operator}
  ports:
  - {name: webhook-server, port: 443, targetPort: 8443}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: controller.devfile.io
  labels: {app.kubernetes.io/name: devworkspace-controller, app.kubernetes.io/part-of: devworkspace-operator}
webhooks:
- name: mutate-ws-resources.devfile.io
  admissionReviewVersions: ["v1beta1"]
  sideEffects: None
  failurePolicy: Fail
  timeoutSeconds: 5
  clientConfig:
    service: {namespace: devworkspace-controller, name: devworkspace-controller, path: /mutate-workspaces}
  objectSelector:
    matchExpressions:
    - {key: controller.devfile.io/workspace_id, operator: Exists}
  rules:
  - apiGroups: [""]
    apiVersions: ["v1"]
    operations: ["CREATE", "UPDATE"]
    resources: ["pods", "services"]
  - apiGroups: ["apps"]
    apiVersions: ["v1"]
    operations: ["CREATE", "UPDATE"]
    resources: ["deployments"]
  - apiGroups: ["controller.devfile.io"]
    apiVersions: ["v1alpha1"]
    operations: ["CREATE", "UPDATE"]
    resources: ["components", "workspaceroutings"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: wksp-test
---
apiVersion: workspace.devfile.io/v1alpha1
kind: DevWorkspace
metadata:
  name: cloud-shell
  namespace: wksp-test
  finalizers: [foregroundDeletion]
spec:
  started: true
  routingClass: basic
  template:
    components:
    - plugin: {id: eclipse/cloud-shell/nightly}
    - dockerimage:
        alias: dev
        image: quay.io/eclipse/che-sidecar-openshift-connector:0.1.2-2601509
        memoryLimit: 256M
        args: ["tail", "-f", "/dev/null"]
status:
  workspaceId: workspacee8ffa65b76d74d69
  phase: Starting
---
apiVersion: controller.devfile.io/v1alpha1
kind: WorkspaceRouting
metadata:
  name: routing-workspacee8ffa65b76d74d69
  namespace: wksp-test
  labels: {controller.devfile.io/workspace_id: workspacee8ffa65b76d74d69}
  finalizers: [foregroundDeletion]
  ownerReferences:
  - {apiVersion: workspace.devfile.io/v1alpha1, kind: DevWorkspace, name: cloud-shell, controller: true, blockOwnerDeletion: true}
spec:
  workspaceId: workspacee8ffa65b76d74d69
  routingClass: basic
  routingSuffix: apps-crc.testing
  endpoints: {}
status:
  phase: Ready
`,
		deletes: []string{"DevWorkspace/wksp-test/cloud-shell", "WorkspaceRouting/wksp-test/routing-workspacee8ffa65b76d74d69"},
	}.run(t)

	d := diagnoseAfter(t, 30*time.Minute, "devworkspaces.workspace.devfile.io", "cloud-shell", "-n", "wksp-test")
	d.exit(1, "STUCK")
	// The DevWorkspace waits for its WorkspaceRouting, which the garbage collector cannot finish:
	// the webhook refuses the update that drops its foregroundDeletion.
	f := d.finalizer("workspaceroutings.controller.devfile.io/routing-workspacee8ffa65b76d74d69 -n wksp-test", "foregroundDeletion")
	d.blocker(f, "mutatingwebhookconfigurations.admissionregistration.k8s.io/controller.devfile.io")
	// A strip is an update the same webhook refuses: never the first step.
	d.notFirstFix(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
	w := d.finalizer("devworkspaces.workspace.devfile.io/cloud-shell -n wksp-test", "foregroundDeletion")
	d.names(w, "workspaceroutings.controller.devfile.io/routing-workspacee8ffa65b76d74d69 -n wksp-test")
	d.notFirstFix(w, stripFinalizer)
}
