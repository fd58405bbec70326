package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/flux-framework/flux-coral2/issues/165 ("coral2-dws: workflow
// resource can become stranded with a finalizer when job is canceled"), fixed by #168 ("dws:
// enforce k8s finalizer removal"). Flux, the HPC system's scheduler, drives the Data Workflow
// Services Workflow of each rabbit job from its coral2_dws service, which runs on the system's
// management nodes (a systemd unit, not a pod) and talks to the API server as the user flux.
// Since #141 it puts its own finalizer flux-framework.readthedocs.io/workflow on every Workflow
// so that nobody deletes one under it. On a job canceled before it ran, coral2_dws moved the
// Workflow to Teardown and deleted it without first removing that finalizer: the Workflow stays
// Terminating for ever, after DWS's and the NNF software's own finalizers are gone (their
// teardown is done). No workload in the cluster removes Flux's finalizer; the fix makes
// coral2_dws remove it; a stranded Workflow is cleaned up by removing that finalizer by hand
// (nothing is left behind: the Workflow completed Teardown).
//
// Modelled on the installs the thread runs with: DWS (DataWorkflowServices/dws, config/: namespace
// dws-system, the Deployment dws-controller-manager with its ServiceAccount and ClusterRole on
// dataworkflowservices.github.io workflows and their finalizers), the NNF software (nnf-sos:
// nnf-controller-manager in nnf-system, which also updates Workflows), and flux-coral2's RBAC for
// the user flux (k8s/rbac.yaml: workflows and the objects coral2_dws reads and patches). The
// Workflow as coral2_dws creates it (name fluxjob-<jobid>, namespace default, wlmID flux), in
// state Teardown, ready, after the job's cancellation.
func TestCorpusDWSWorkflowStrandedWithFluxsFinalizer(t *testing.T) {
	replay{
		crds: []crd{
			{group: "dataworkflowservices.github.io", kind: "Workflow", plural: "workflows", namespaced: true, versions: []string{"v1alpha2"}},
			{group: "dataworkflowservices.github.io", kind: "Computes", plural: "computes", namespaced: true, versions: []string{"v1alpha2"}},
			{group: "dataworkflowservices.github.io", kind: "DirectiveBreakdown", plural: "directivebreakdowns", namespaced: true, versions: []string{"v1alpha2"}},
			{group: "dataworkflowservices.github.io", kind: "Servers", plural: "servers", namespaced: true, versions: []string{"v1alpha2"}},
			{group: "dataworkflowservices.github.io", kind: "Storage", plural: "storages", namespaced: true, versions: []string{"v1alpha2"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: dws-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: dws-controller-manager
  namespace: dws-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: dws-manager-role
rules:
- apiGroups: ["dataworkflowservices.github.io"]
  resources: ["workflows", "computes", "directivebreakdowns", "servers", "storages", "clientmounts", "persistentstorageinstances", "systemconfigurations"]
  verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
- apiGroups: ["dataworkflowservices.github.io"]
  resources: ["workflows/finalizers", "directivebreakdowns/finalizers", "computes/finalizers", "servers/finalizers"]
  verbs: ["update"]
- apiGroups: ["dataworkflowservices.github.io"]
  resources: ["workflows/status", "directivebreakdowns/status", "servers/status", "storages/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: dws-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: dws-manager-role
subjects:
- kind: ServiceAccount
  name: dws-controller-manager
  namespace: dws-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: dws-controller-manager
  namespace: dws-system
  labels: {app.kubernetes.io/name: dws, control-plane: controller-manager}
spec:
  replicas: 1
  selector:
    matchLabels: {control-plane: controller-manager}
  template:
    metadata:
      labels: {app.kubernetes.io/name: dws, control-plane: controller-manager}
    spec:
      serviceAccountName: dws-controller-manager
      containers:
      - name: manager
        image: ghcr.io/dataworkflowservices/dws:0.0.19
        command: ["/manager"]
        args: ["--leader-elect", "--mode=controller"]
---
apiVersion: v1
kind: Namespace
metadata:
  name: nnf-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: nnf-controller-manager
  namespace: nnf-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: nnf-manager-role
rules:
- apiGroups: ["dataworkflowservices.github.io"]
  resources: ["workflows", "computes", "directivebreakdowns", "servers", "storages", "clientmounts"]
  verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
- apiGroups: ["dataworkflowservices.github.io"]
  resources: ["workflows/finalizers", "directivebreakdowns/finalizers", "servers/finalizers"]
  verbs: ["update"]
- apiGroups: ["nnf.cray.hpe.com"]
  resources: ["*"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: nnf-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: nnf-manager-role
subjects:
- kind: ServiceAccount
  name: nnf-controller-manager
  namespace: nnf-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nnf-controller-manager
  namespace: nnf-system
  labels: {app.kubernetes.io/name: nnf-sos, control-plane: controller-manager}
spec:
  replicas: 1
  selector:
    matchLabels: {control-plane: controller-manager}
  template:
    metadata:
      labels: {app.kubernetes.io/name: nnf-sos, control-plane: controller-manager}
    spec:
      serviceAccountName: nnf-controller-manager
      containers:
      - name: manager
        image: ghcr.io/nearnodeflash/nnf-sos:0.1.3
        command: ["/manager"]
        args: ["--leader-elect", "--controller=manager"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: flux
rules:
- apiGroups: ["dataworkflowservices.github.io"]
  resources: ["workflows"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["dataworkflowservices.github.io"]
  resources: ["computes", "servers", "directivebreakdowns"]
  verbs: ["get", "list", "patch", "watch"]
- apiGroups: ["dataworkflowservices.github.io"]
  resources: ["storages"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: flux
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: flux
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: User
  name: flux
`,
		objects: `
apiVersion: dataworkflowservices.github.io/v1alpha2
kind: Workflow
metadata:
  name: fluxjob-501360523054545920
  namespace: default
  finalizers: [flux-framework.readthedocs.io/workflow]
spec:
  desiredState: Teardown
  dwDirectives: ["#DW jobdw type=xfs capacity=1TiB name=project1"]
  jobID: f2AVx5nQsoRy
  userID: 35619
  groupID: 35619
  wlmID: flux
status:
  state: Teardown
  ready: true
  status: Completed
  message: ""
  elapsedTimeLastState: 1.2s
  desiredStateChange: "2024-05-30T17:22:41Z"
  readyChange: "2024-05-30T17:22:43Z"
`,
		deletes: []string{"Workflow/default/fluxjob-501360523054545920"},
	}.run(t)

	// Found by the admins days later, among the Workflows that never went.
	d := diagnoseAfter(t, 48*time.Hour, "workflows.dataworkflowservices.github.io", "fluxjob-501360523054545920", "-n", "default")
	d.exit(1, "STUCK")
	f := d.finalizer("workflows.dataworkflowservices.github.io/fluxjob-501360523054545920 -n default", "flux-framework.readthedocs.io/workflow")
	// DWS's and NNF's controllers may update Workflows, but the finalizer is Flux's: neither
	// removes it, and no workload in the cluster does.
	d.notRemover(f, "deployments.apps/dws-controller-manager -n dws-system")
	d.notRemover(f, "deployments.apps/nnf-controller-manager -n nnf-system")
	d.noRunningRemover(f)
	// The Workflow finished its teardown: removing Flux's finalizer by hand is the way out.
	d.offers(f, stripFinalizer)
	d.notFirstFix(f, readLogs)
}
