// Held back in batch 16 and wrong at first sight (2026-12-03, main 2ba25a6): the scheduler's
// FailedScheduling event on the pod was read as the remover's own failure ("fix that cause
// first"), a confident wrong step: a pod being deleted is not scheduled, and the node-local
// clean-up the remover waits for never happens on a pod that never had a node; the strip, which
// loses nothing here, was not first. Failure classes: an event from another component taken as
// the remover's failure; a pod that never had a node has nothing node-local to clean up. Passes
// since (branch ranking) by the rules "an event's author before its meaning" (eventauthor.go) and
// "a pod that never had a node" (podneverscheduled.go).

package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/gitpod-io/gitpod/issues/7836 ("Workspace pods stuck in Terminating
// when they could not get scheduled"): a workspace pod that never got scheduled was deleted when
// its start timed out, and stayed Terminating for over an hour. ws-manager removes
// gitpod.io/finalizer from a workspace pod once its content is disposed of (backed up), and
// "only the ws-daemon running in the same node as the workspace can do the backup": a pod that
// never got a node has no ws-daemon that feels responsible, so the finalizer stays. The
// maintainers: "for pods that never reached running we should shortcut the finalizer" — there is
// no content to back up, so removing the finalizer by hand loses nothing.
//
// Modelled on Gitpod's self-hosted installation of that time (installer, components ws-manager
// and ws-daemon, namespace default): the ws-manager Deployment with its ServiceAccount and Role
// (pods and their status, events), the ws-daemon DaemonSet (on every workspace node) with its
// ServiceAccount. The workspace pod as ws-manager creates it (labels component=workspace,
// workspaceID, gpwsman; the finalizer), Pending because no node has the memory it requests,
// deleted by ws-manager when the start timed out.
func TestCorpusGitpodWorkspacePodNeverScheduled(t *testing.T) {
	replay{
		install: `
apiVersion: v1
kind: ServiceAccount
metadata:
  name: ws-manager
  namespace: default
  labels: {app: gitpod, component: ws-manager}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: ws-manager
  namespace: default
  labels: {app: gitpod, component: ws-manager}
rules:
- apiGroups: [""]
  resources: ["pods", "pods/log", "services", "configmaps", "events"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"]
- apiGroups: [""]
  resources: ["pods/status"]
  verbs: ["get", "update", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: ws-manager
  namespace: default
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: ws-manager}
subjects:
- {kind: ServiceAccount, name: ws-manager, namespace: default}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ws-manager
  namespace: default
  labels: {app: gitpod, component: ws-manager}
spec:
  replicas: 1
  selector:
    matchLabels: {app: gitpod, component: ws-manager}
  template:
    metadata:
      labels: {app: gitpod, component: ws-manager}
    spec:
      serviceAccountName: ws-manager
      containers:
      - name: ws-manager
        image: eu.gcr.io/gitpod-core-dev/build/ws-manager:commit-6f5c7e1f
        args: ["run", "--config", "/config/config.json"]
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: ws-daemon
  namespace: default
  labels: {app: gitpod, component: ws-daemon}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: default-ns-ws-daemon
  labels: {app: gitpod, component: ws-daemon}
rules:
- apiGroups: [""]
  resources: ["pods", "nodes"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: default-ns-ws-daemon
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: default-ns-ws-daemon}
subjects:
- {kind: ServiceAccount, name: ws-daemon, namespace: default}
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: ws-daemon
  namespace: default
  labels: {app: gitpod, component: ws-daemon}
spec:
  selector:
    matchLabels: {app: gitpod, component: ws-daemon}
  template:
    metadata:
      labels: {app: gitpod, component: ws-daemon}
    spec:
      serviceAccountName: ws-daemon
      containers:
      - name: ws-daemon
        image: eu.gcr.io/gitpod-core-dev/build/ws-daemon:commit-6f5c7e1f
        args: ["run", "--config", "/config/config.json"]
`,
		objects: `
apiVersion: v1
kind: Pod
metadata:
  name: ws-0d7a3a52-1c0e-4f83-9f3e-8a5bb8e2c9d4
  namespace: default
  labels:
    app: gitpod
    component: workspace
    gpwsman: "true"
    headless: "false"
    workspaceID: 0d7a3a52-1c0e-4f83-9f3e-8a5bb8e2c9d4
    workspaceType: regular
    owner: 7b1e4c1e-5a0f-4d6b-9c48-2b1f0e9d7a11
    metaID: gitpodio-gitpod-k9x2b1q4
  annotations:
    gitpod/id: 0d7a3a52-1c0e-4f83-9f3e-8a5bb8e2c9d4
    gitpod/servicePrefix: 0d7a3a52-1c0e-4f83-9f3e-8a5bb8e2c9d4
    gitpod/url: https://gitpodio-gitpod-k9x2b1q4.ws-eu.staging.gitpod-dev.com
    gitpod/timedout: workspace timed out after starting (1h00m) took longer than 1h00m
  finalizers: [gitpod.io/finalizer]
spec:
  serviceAccountName: default
  automountServiceAccountToken: false
  containers:
  - name: workspace
    image: reg.ws-eu.staging.gitpod-dev.com:20000/remote/0d7a3a52-1c0e-4f83-9f3e-8a5bb8e2c9d4
    resources:
      requests: {cpu: "1", memory: 64Gi}
status:
  phase: Pending
  conditions:
  - type: PodScheduled
    status: "False"
    reason: Unschedulable
    message: "0/1 nodes are available: 1 Insufficient memory."
    lastTransitionTime: "2022-01-26T09:12:40Z"
`,
		deletes: []string{"Pod/default/ws-0d7a3a52-1c0e-4f83-9f3e-8a5bb8e2c9d4"},
		events: []event{{about: "Pod/default/ws-0d7a3a52-1c0e-4f83-9f3e-8a5bb8e2c9d4", typ: "Warning", reason: "FailedScheduling", component: "default-scheduler", count: 61,
			message: "0/1 nodes are available: 1 Insufficient memory."}},
	}.run(t)

	// Over an hour after the deletion, as the report tells it.
	d := diagnoseAfter(t, 70*time.Minute, "pods", "ws-0d7a3a52-1c0e-4f83-9f3e-8a5bb8e2c9d4", "-n", "default")
	d.exit(1, "STUCK")
	f := d.finalizer("pods/ws-0d7a3a52-1c0e-4f83-9f3e-8a5bb8e2c9d4 -n default", "gitpod.io/finalizer")
	// ws-manager runs and would remove it once the content is disposed of, which only a node's
	// ws-daemon does; the pod never had a node, so nothing will: the strip, first, loses nothing.
	d.remover(f, "deployments.apps/ws-manager -n default", true)
	d.firstFix(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
