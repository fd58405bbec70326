package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/devfile/devworkspace-operator/issues/877 ("Handling of cleanup job
// errors should be improved"): when a DevWorkspace is deleted, the DevWorkspace Operator runs a
// Job (cleanup-<workspace id>) that removes the workspace's files from the common PVC, and removes
// storage.controller.devfile.io once the Job succeeded. A Job that hit a transient error
// (CreateContainerError) set the workspace to Errored; the Job then ran again and completed, but
// the controller no longer finalizes errored workspaces, so the finalizer stays: "users must check
// the cleanup jobs status, notice that it completed successfully, and then remove the finalizer
// from the DevWorkspace manually." The fix (#879) keeps finalizing errored workspaces.
//
// Modelled on the DevWorkspace Operator's Kubernetes install (deploy/deployment/kubernetes,
// v0.15): namespace devworkspace-controller, the Deployments devworkspace-controller-manager and
// devworkspace-webhook-server with their ServiceAccounts and ClusterRoles, the Service
// devworkspace-webhookserver; the CRDs devworkspaces and devworkspacetemplates of
// workspace.devfile.io, devworkspaceroutings and devworkspaceoperatorconfigs of
// controller.devfile.io. The webhook configurations the webhook server registers are left out
// (the replay's pods answer no requests, and they play no part in the report). The user's
// namespace with the common PVC claim-devworkspace, the DevWorkspace theia-next as the report
// leaves it (Errored, the finalizer), and its cleanup Job, owned by it, completed.
func TestCorpusDevWorkspaceErroredAfterItsCleanupJobRecovered(t *testing.T) {
	replay{
		crds: []crd{
			{group: "workspace.devfile.io", kind: "DevWorkspace", plural: "devworkspaces", namespaced: true, versions: []string{"v1alpha2", "v1alpha1"}},
			{group: "workspace.devfile.io", kind: "DevWorkspaceTemplate", plural: "devworkspacetemplates", namespaced: true, versions: []string{"v1alpha2", "v1alpha1"}},
			{group: "controller.devfile.io", kind: "DevWorkspaceRouting", plural: "devworkspaceroutings", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "controller.devfile.io", kind: "DevWorkspaceOperatorConfig", plural: "devworkspaceoperatorconfigs", namespaced: true, versions: []string{"v1alpha1"}},
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
  name: devworkspace-controller-serviceaccount
  namespace: devworkspace-controller
  labels: {app.kubernetes.io/name: devworkspace-controller, app.kubernetes.io/part-of: devworkspace-operator}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: devworkspace-controller-role
  labels: {app.kubernetes.io/name: devworkspace-controller, app.kubernetes.io/part-of: devworkspace-operator}
rules:
- apiGroups: [""]
  resources: ["configmaps", "persistentvolumeclaims", "pods", "secrets", "serviceaccounts", "services"]
  verbs: ["*"]
- apiGroups: [""]
  resources: ["events", "namespaces"]
  verbs: ["get", "list", "watch", "create", "patch"]
- apiGroups: ["apps"]
  resources: ["deployments", "replicasets"]
  verbs: ["*"]
- apiGroups: ["batch"]
  resources: ["jobs"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["workspace.devfile.io"]
  resources: ["*"]
  verbs: ["*"]
- apiGroups: ["controller.devfile.io"]
  resources: ["*"]
  verbs: ["*"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["roles", "rolebindings"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: devworkspace-controller-rolebinding
  labels: {app.kubernetes.io/name: devworkspace-controller, app.kubernetes.io/part-of: devworkspace-operator}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: devworkspace-controller-role}
subjects:
- {kind: ServiceAccount, name: devworkspace-controller-serviceaccount, namespace: devworkspace-controller}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: devworkspace-controller-manager
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
      serviceAccountName: devworkspace-controller-serviceaccount
      containers:
      - name: devworkspace-controller
        image: quay.io/devfile/devworkspace-controller:v0.15.0
        args: ["/usr/local/bin/devworkspace-controller", "--enable-leader-election"]
        env:
        - {name: RELATED_IMAGE_pvc_cleanup_job, value: "registry.access.redhat.com/ubi8-micro:8.5-836"}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: devworkspace-webhook-server
  namespace: devworkspace-controller
  labels: {app.kubernetes.io/name: devworkspace-webhook-server, app.kubernetes.io/part-of: devworkspace-operator}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: devworkspace-webhook-server
  labels: {app.kubernetes.io/name: devworkspace-webhook-server, app.kubernetes.io/part-of: devworkspace-operator}
rules:
- apiGroups: ["admissionregistration.k8s.io"]
  resources: ["mutatingwebhookconfigurations", "validatingwebhookconfigurations"]
  verbs: ["create", "get", "patch", "update", "delete"]
- apiGroups: [""]
  resources: ["pods", "pods/exec"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["workspace.devfile.io"]
  resources: ["devworkspaces", "devworkspacetemplates"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["controller.devfile.io"]
  resources: ["devworkspaceroutings", "devworkspaceoperatorconfigs"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: devworkspace-webhook-server
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: devworkspace-webhook-server}
subjects:
- {kind: ServiceAccount, name: devworkspace-webhook-server, namespace: devworkspace-controller}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: devworkspace-webhook-server
  namespace: devworkspace-controller
  labels: {app.kubernetes.io/name: devworkspace-webhook-server, app.kubernetes.io/part-of: devworkspace-operator}
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: devworkspace-webhook-server, app.kubernetes.io/part-of: devworkspace-operator}
  template:
    metadata:
      labels: {app.kubernetes.io/name: devworkspace-webhook-server, app.kubernetes.io/part-of: devworkspace-operator}
    spec:
      serviceAccountName: devworkspace-webhook-server
      containers:
      - name: webhook-server
        image: quay.io/devfile/devworkspace-controller:v0.15.0
        args: ["/usr/local/bin/webhook-server"]
---
apiVersion: v1
kind: Service
metadata:
  name: devworkspace-webhookserver
  namespace: devworkspace-controller
  labels: {app.kubernetes.io/name: devworkspace-webhook-server, app.kubernetes.io/part-of: devworkspace-operator}
spec:
  selector: {app.kubernetes.io/name: devworkspace-webhook-server, app.kubernetes.io/part-of: devworkspace-operator}
  ports:
  - {name: webhook, port: 443, targetPort: 8443}
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: amisevsk-dev
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: claim-devworkspace
  namespace: amisevsk-dev
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests: {storage: 10Gi}
---
apiVersion: workspace.devfile.io/v1alpha2
kind: DevWorkspace
metadata:
  name: theia-next
  namespace: amisevsk-dev
  finalizers: [storage.controller.devfile.io]
spec:
  started: false
  template:
    projects:
    - name: web-nodejs-sample
      git:
        remotes: {origin: "https://github.com/che-samples/web-nodejs-sample.git"}
    components:
    - name: theia
      plugin:
        uri: https://che-plugin-registry-main.surge.sh/v3/plugins/eclipse/che-theia/next/devfile.yaml
status:
  devworkspaceId: workspace6f1c2e3a9b8d4c57
  phase: Errored
  message: 'Failed to clean up DevWorkspace storage: PVC cleanup job failed: see logs for job "cleanup-workspace6f1c2e3a9b8d4c57" for details'
  conditions:
  - type: Error
    status: "True"
    message: 'PVC cleanup job failed: CreateContainerError'
    lastTransitionTime: "2022-06-24T14:02:11Z"
---
apiVersion: batch/v1
kind: Job
metadata:
  name: cleanup-workspace6f1c2e3a9b8d4c57
  namespace: amisevsk-dev
  labels: {controller.devfile.io/devworkspace_id: workspace6f1c2e3a9b8d4c57}
  ownerReferences:
  - {apiVersion: workspace.devfile.io/v1alpha2, kind: DevWorkspace, name: theia-next, controller: true, blockOwnerDeletion: true}
spec:
  backoffLimit: 3
  completions: 1
  template:
    metadata:
      labels: {controller.devfile.io/devworkspace_id: workspace6f1c2e3a9b8d4c57}
    spec:
      restartPolicy: Never
      nodeName: worker-1
      containers:
      - name: cleanup-workspace6f1c2e3a9b8d4c57
        image: registry.access.redhat.com/ubi8-micro:8.5-836
        command: ["/bin/sh", "-c", "rm -rf /tmp/devworkspaces/workspace6f1c2e3a9b8d4c57"]
        volumeMounts:
        - {name: claim-devworkspace, mountPath: /tmp/devworkspaces}
      volumes:
      - name: claim-devworkspace
        persistentVolumeClaim: {claimName: claim-devworkspace}
status:
  startTime: "2022-06-24T14:01:02Z"
  completionTime: "2022-06-24T14:09:47Z"
  succeeded: 1
  conditions:
  - {type: SuccessCriteriaMet, status: "True", lastProbeTime: "2022-06-24T14:09:47Z", lastTransitionTime: "2022-06-24T14:09:47Z"}
  - {type: Complete, status: "True", lastProbeTime: "2022-06-24T14:09:47Z", lastTransitionTime: "2022-06-24T14:09:47Z"}
`,
		deletes: []string{"DevWorkspace/amisevsk-dev/theia-next"},
	}.run(t)

	// Noticed days later, as the report tells it: the events were gone by then.
	d := diagnoseAfter(t, 72*time.Hour, "devworkspaces.workspace.devfile.io", "theia-next", "-n", "amisevsk-dev")
	d.exit(1, "STUCK")
	f := d.finalizer("devworkspaces.workspace.devfile.io/theia-next -n amisevsk-dev", "storage.controller.devfile.io")
	// The operator runs and is the remover; it gave up on the errored workspace.
	d.remover(f, "deployments.apps/devworkspace-controller-manager -n devworkspace-controller", true)
	// Its cleanup Job completed: the evidence the strip is safe, named.
	d.names(f, "jobs.batch/cleanup-workspace6f1c2e3a9b8d4c57 -n amisevsk-dev")
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
