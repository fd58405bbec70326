package whyterminating_test

import (
	"testing"
	"time"

	"github.com/kubeforensics/suite/internal/finalizers"
)

// Report: https://github.com/medik8s/fence-agents-remediation/pull/205 ("fix: remove finalizer
// when node is deleted and remediation is timed out by NHC", RHWA-697): in an escalating
// remediation (FAR, then Machine Deletion Remediation), FAR failed to fence the node in time,
// Node Health Check timed it out (annotation remediation.medik8s.io/nhc-timed-out) and escalated
// to MDR, which deleted the machine and with it the Node. NHC then deleted the
// FenceAgentsRemediation, and its finalizer fence-agents-remediation.medik8s.io/far-finalizer
// blocks the deletion for ever: the FAR controller returns early when the node it remediates is
// not found, before it reaches its timed-out-and-deleting branch. The fix removes the finalizer
// when the node is gone and NHC timed the remediation out; until then, removing that finalizer
// by hand is the way out (there is no node left to untaint).
//
// Modelled on the operators' OLM bundles (medik8s fence-agents-remediation and
// node-healthcheck-operator, bundle/manifests): namespace openshift-workload-availability; the
// FAR controller manager (Deployment fence-agents-remediation-controller-manager, its
// ServiceAccount and ClusterRole on remediation.medik8s.io fenceagentsremediations and their
// finalizers, nodes, pods); the NHC controller manager, which creates and deletes the remediation
// CRs; the CRDs fenceagentsremediations, fenceagentsremediationtemplates and nodehealthchecks of
// remediation.medik8s.io. The FAR as NHC made it: named after the node, owned by the
// NodeHealthCheck, with NHC's timed-out annotation and FAR's conditions as the thread describes.
// The node worker-2 is gone (the replay's node is worker-1).
func TestCorpusFenceAgentsRemediationOfADeletedNode(t *testing.T) {
	replay{
		crds: []crd{
			{group: "remediation.medik8s.io", kind: "FenceAgentsRemediation", plural: "fenceagentsremediations", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "remediation.medik8s.io", kind: "FenceAgentsRemediationTemplate", plural: "fenceagentsremediationtemplates", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "remediation.medik8s.io", kind: "NodeHealthCheck", plural: "nodehealthchecks", versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: openshift-workload-availability
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: fence-agents-remediation-controller-manager
  namespace: openshift-workload-availability
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: fence-agents-remediation-manager-role
rules:
- apiGroups: ["remediation.medik8s.io"]
  resources: ["fenceagentsremediations", "fenceagentsremediationtemplates"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["remediation.medik8s.io"]
  resources: ["fenceagentsremediations/finalizers"]
  verbs: ["update"]
- apiGroups: ["remediation.medik8s.io"]
  resources: ["fenceagentsremediations/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["delete", "get", "list", "update", "watch"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["delete", "deletecollection", "get", "list", "watch"]
- apiGroups: [""]
  resources: ["pods/exec"]
  verbs: ["create"]
- apiGroups: ["storage.k8s.io"]
  resources: ["volumeattachments"]
  verbs: ["delete", "get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: fence-agents-remediation-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: fence-agents-remediation-manager-role
subjects:
- kind: ServiceAccount
  name: fence-agents-remediation-controller-manager
  namespace: openshift-workload-availability
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: fence-agents-remediation-controller-manager
  namespace: openshift-workload-availability
  labels: {app.kubernetes.io/name: fence-agents-remediation-operator, control-plane: controller-manager}
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: fence-agents-remediation-operator, control-plane: controller-manager}
  template:
    metadata:
      labels: {app.kubernetes.io/name: fence-agents-remediation-operator, control-plane: controller-manager}
    spec:
      serviceAccountName: fence-agents-remediation-controller-manager
      containers:
      - name: manager
        image: quay.io/medik8s/fence-agents-remediation-operator:v0.6.0
        command: ["/manager"]
        args: ["--leader-elect"]
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: node-healthcheck-controller-manager
  namespace: openshift-workload-availability
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: node-healthcheck-operator-manager-role
rules:
- apiGroups: ["remediation.medik8s.io"]
  resources: ["nodehealthchecks", "nodehealthchecks/status"]
  verbs: ["get", "list", "patch", "update", "watch"]
- apiGroups: ["remediation.medik8s.io"]
  resources: ["nodehealthchecks/finalizers"]
  verbs: ["update"]
- apiGroups: ["remediation.medik8s.io"]
  resources: ["fenceagentsremediations", "fenceagentsremediationtemplates"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: node-healthcheck-operator-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: node-healthcheck-operator-manager-role
subjects:
- kind: ServiceAccount
  name: node-healthcheck-controller-manager
  namespace: openshift-workload-availability
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: node-healthcheck-controller-manager
  namespace: openshift-workload-availability
  labels: {app.kubernetes.io/name: node-healthcheck-operator, control-plane: controller-manager}
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: node-healthcheck-operator, control-plane: controller-manager}
  template:
    metadata:
      labels: {app.kubernetes.io/name: node-healthcheck-operator, control-plane: controller-manager}
    spec:
      serviceAccountName: node-healthcheck-controller-manager
      containers:
      - name: manager
        image: quay.io/medik8s/node-healthcheck-operator:v0.9.0
        command: ["/manager"]
`,
		objects: `
apiVersion: remediation.medik8s.io/v1alpha1
kind: NodeHealthCheck
metadata:
  name: nhc-worker-default
spec:
  minHealthy: 51%
  selector:
    matchExpressions:
    - {key: node-role.kubernetes.io/worker, operator: Exists}
  escalatingRemediations:
  - order: 1
    timeout: 300s
    remediationTemplate:
      apiVersion: remediation.medik8s.io/v1alpha1
      kind: FenceAgentsRemediationTemplate
      name: fence-agents-remediation-template-ipmi
      namespace: openshift-workload-availability
  - order: 2
    timeout: 30m
    remediationTemplate:
      apiVersion: machine-deletion-remediation.medik8s.io/v1alpha1
      kind: MachineDeletionRemediationTemplate
      name: machine-deletion-remediation-template
      namespace: openshift-machine-api
  unhealthyConditions:
  - {type: Ready, status: "False", duration: 300s}
  - {type: Ready, status: Unknown, duration: 300s}
status:
  phase: Enabled
  observedNodes: 3
  healthyNodes: 3
---
apiVersion: remediation.medik8s.io/v1alpha1
kind: FenceAgentsRemediationTemplate
metadata:
  name: fence-agents-remediation-template-ipmi
  namespace: openshift-workload-availability
spec:
  template:
    spec:
      agent: fence_ipmilan
      remediationStrategy: ResourceDeletion
      retrycount: 5
      retryinterval: 5s
      timeout: 60s
      sharedparameters:
        --lanplus: ""
        --action: reboot
---
apiVersion: remediation.medik8s.io/v1alpha1
kind: FenceAgentsRemediation
metadata:
  name: worker-2
  namespace: openshift-workload-availability
  annotations:
    remediation.medik8s.io/node-name: worker-2
    remediation.medik8s.io/nhc-timed-out: "2026-05-28T09:41:07Z"
  finalizers: [fence-agents-remediation.medik8s.io/far-finalizer]
  ownerReferences:
  - apiVersion: remediation.medik8s.io/v1alpha1
    kind: NodeHealthCheck
    name: nhc-worker-default
    controller: false
spec:
  agent: fence_ipmilan
  remediationStrategy: ResourceDeletion
  retrycount: 5
  retryinterval: 5s
  timeout: 60s
  sharedparameters:
    --lanplus: ""
    --action: reboot
status:
  conditions:
  - type: Processing
    status: "False"
    reason: RemediationInterruptedByNHC
    message: Node Healthcheck timeout annotation has been set. FAR CR should be deleted
    lastTransitionTime: "2026-05-28T09:41:08Z"
  - type: FenceAgentActionSucceeded
    status: "False"
    reason: RemediationInterruptedByNHC
    message: Node Healthcheck timeout annotation has been set. FAR CR should be deleted
    lastTransitionTime: "2026-05-28T09:41:08Z"
  - type: Succeeded
    status: "False"
    reason: RemediationInterruptedByNHC
    message: Node Healthcheck timeout annotation has been set. FAR CR should be deleted
    lastTransitionTime: "2026-05-28T09:41:08Z"
`,
		deletes: []string{"FenceAgentsRemediation/openshift-workload-availability/worker-2"},
	}.run(t)

	// NHC deleted it once MDR had replaced the machine; found stuck later.
	d := diagnoseAfter(t, 3*time.Hour, "fenceagentsremediations.remediation.medik8s.io", "worker-2", "-n", "openshift-workload-availability")
	d.exit(1, "STUCK")
	f := d.finalizer("fenceagentsremediations.remediation.medik8s.io/worker-2 -n openshift-workload-availability", "fence-agents-remediation.medik8s.io/far-finalizer")
	// FAR's own controller is the remover and runs; NHC, which may update FARs but not their
	// finalizers subresource, is not it.
	d.remover(f, "deployments.apps/fence-agents-remediation-controller-manager -n openshift-workload-availability", true)
	// The node it would untaint is gone: removing the finalizer by hand is the way out. The
	// annotation names the node (the object's own name only corroborates it), and a remover
	// acting on a node that is gone never finishes: the strip first, the logs after.
	d.blocker(f, "nodes/worker-2", finalizers.ReasonMissingObject)
	d.firstFix(f, stripFinalizer)
	d.stripCosts(f, "gone node")
	d.never(f, reinstall, restoreController)
}
