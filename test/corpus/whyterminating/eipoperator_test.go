package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/MaterializeInc/k8s-eip-operator/issues/236 ("Pods that never get an
// IP can never get cleaned up"), fixed by #241 ("Remove finalizer from pods that never had IPs"):
// pods labelled eip.materialize.cloud/manage=true carry the finalizer
// eip.materialize.cloud/cilium-no-masquerade-rule, which the per-node agent
// cilium-eip-no-masquerade-agent (a DaemonSet, running) removes once it has deleted the pod's
// "no masquerade" ip rule on its node. A pod that never got an IP (here environmentd-0, whose
// TLS certificate Secret was never issued, so it stayed ContainerCreating) has no rule, and the
// agent's cleanup fails on it for ever ("error=Pod does not have an IP address"): the pod stays
// Terminating. The maintainers' fix removes the finalizer from pods without an IP; until then,
// removing that one finalizer by hand is the way out, and it leaves nothing behind (no rule was
// ever made). The eip-operator, which may update pods too, handles the Elastic IPs, not this
// finalizer.
//
// Modelled on the operator's own install (its README and tests/integration: the ClusterRole
// eip-operator on pods and pods/status, nodes, CRDs and materialize.cloud eips; the Deployment
// eip-operator with label app: eip-operator) and the agent's DaemonSet with its ClusterRole (pods
// get/list/watch/patch), in namespace eip-operator (the report's installation is Materialize's
// own; the namespace is not given); the CRD eips.materialize.cloud the operator registers. The
// pod as the report shows it: scheduled to the node, Pending, its container waiting
// (ContainerCreating), no pod IP; it is bare here (its StatefulSet would be run by the replay and
// get an IP). The kubelet's FailedMount warnings came before the deletion and are not replayed
// (the replay can only record events as of now, which would read as work after the deletion).
func TestCorpusEIPOperatorPodThatNeverGotAnIP(t *testing.T) {
	replay{
		crds: []crd{
			{group: "materialize.cloud", kind: "Eip", plural: "eips", namespaced: true, versions: []string{"v1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: eip-operator
---
apiVersion: v1
kind: Namespace
metadata:
  name: environment-95434ebd-d8d6-4239-861b-b43b5ed3add2-0
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: eip-operator
  namespace: eip-operator
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: eip-operator
rules:
- apiGroups: [""]
  resources: ["pods", "pods/status"]
  verbs: ["get", "watch", "list", "update", "patch"]
- apiGroups: [""]
  resources: ["nodes", "nodes/status"]
  verbs: ["get"]
- apiGroups: ["apiextensions.k8s.io"]
  resources: ["customresourcedefinitions"]
  verbs: ["create", "update", "patch", "watch", "get", "list"]
- apiGroups: ["materialize.cloud"]
  resources: ["eips", "eips/status"]
  verbs: ["create", "update", "patch", "delete", "get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: eip-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: eip-operator
subjects:
- kind: ServiceAccount
  name: eip-operator
  namespace: eip-operator
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: eip-operator
  namespace: eip-operator
  labels: {app: eip-operator}
spec:
  replicas: 1
  strategy: {type: Recreate}
  selector:
    matchLabels: {app: eip-operator}
  template:
    metadata:
      labels: {app: eip-operator}
    spec:
      serviceAccountName: eip-operator
      containers:
      - name: eip-operator
        image: materialize/k8s-eip-operator:v0.3.3
        env:
        - {name: CLUSTER_NAME, value: mzcloud-production-us-east-1}
        - {name: DEFAULT_TAGS, value: '{"Stack": "mzcloud/production"}'}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: cilium-eip-no-masquerade-agent
  namespace: eip-operator
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: cilium-eip-no-masquerade-agent
rules:
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: cilium-eip-no-masquerade-agent
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cilium-eip-no-masquerade-agent
subjects:
- kind: ServiceAccount
  name: cilium-eip-no-masquerade-agent
  namespace: eip-operator
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: cilium-eip-no-masquerade-agent
  namespace: eip-operator
  labels: {app: cilium-eip-no-masquerade-agent}
spec:
  selector:
    matchLabels: {app: cilium-eip-no-masquerade-agent}
  template:
    metadata:
      labels: {app: cilium-eip-no-masquerade-agent}
    spec:
      serviceAccountName: cilium-eip-no-masquerade-agent
      hostNetwork: true
      containers:
      - name: cilium-eip-no-masquerade-agent
        image: materialize/k8s-eip-operator:v0.3.3
        command: ["/cilium-eip-no-masquerade-agent"]
        env:
        - name: NODE_NAME
          valueFrom: {fieldRef: {fieldPath: spec.nodeName}}
        securityContext: {capabilities: {add: ["NET_ADMIN"]}}
`,
		objects: `
apiVersion: v1
kind: Pod
metadata:
  name: environmentd-0
  namespace: environment-95434ebd-d8d6-4239-861b-b43b5ed3add2-0
  labels: {app: environmentd, eip.materialize.cloud/manage: "true"}
  finalizers: [eip.materialize.cloud/cilium-no-masquerade-rule]
spec:
  nodeName: worker-1
  containers:
  - name: environmentd
    image: materialize/environmentd:v0.26.4
    volumeMounts:
    - {name: certs, mountPath: /etc/materialized/certs, readOnly: true}
  volumes:
  - name: certs
    secret: {secretName: environmentd-tls}
status:
  phase: Pending
  hostIP: 192.168.0.10
  conditions:
  - {type: PodScheduled, status: "True", lastTransitionTime: "2022-07-30T04:41:12Z"}
  - {type: Initialized, status: "True", lastTransitionTime: "2022-07-30T04:41:12Z"}
  - {type: Ready, status: "False", reason: ContainersNotReady, message: "containers with unready status: [environmentd]", lastTransitionTime: "2022-07-30T04:41:12Z"}
  containerStatuses:
  - name: environmentd
    image: materialize/environmentd:v0.26.4
    imageID: ""
    ready: false
    restartCount: 0
    started: false
    state:
      waiting: {reason: ContainerCreating}
`,
		deletes:     []string{"Pod/environment-95434ebd-d8d6-4239-861b-b43b5ed3add2-0/environmentd-0"},
		podsStopped: true,
	}.run(t)

	// Seen "a few times now in our production clusters": long after the deletion.
	d := diagnoseAfter(t, time.Hour, "pods", "environmentd-0", "-n", "environment-95434ebd-d8d6-4239-861b-b43b5ed3add2-0")
	d.exit(1, "STUCK")
	ref := "pods/environmentd-0 -n environment-95434ebd-d8d6-4239-861b-b43b5ed3add2-0"
	f := d.finalizer(ref, "eip.materialize.cloud/cilium-no-masquerade-rule")
	d.remover(f, "daemonsets.apps/cilium-eip-no-masquerade-agent -n eip-operator", true)
	// Its cleanup can never run on a pod that never got an IP: the strip is the way out.
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
