package whyterminating_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kubeforensics/suite/internal/finalizers"
)

// Report: https://github.com/provectus/kafka-ui/issues/1528 ("Implement Node Termination Handler in
// internal environment"): kafka-ui's own environment runs on EC2 spot instances; "When a SPOT node
// gets taken away pods get stuck in terminating state and the only solution is to manually
// force-delete terminating pods". The instance is gone, its kubelet with it: the Node object stays
// (Ready Unknown, "Kubelet stopped posting node status", the unreachable taints), the node
// lifecycle controller evicts the pods, and nothing ever confirms that their containers stopped.
// The fix was to install the AWS Node Termination Handler, which drains a node on the spot
// interruption notice, before the instance goes; for pods already stuck, the way out the thread
// gives is the forced delete. No finalizer is involved.
//
// Modelled on kafka-ui's Helm chart (charts/kafka-ui, 0.3.x; release kafka-ui in namespace
// kafka-ui): its ServiceAccount, Deployment and Service; the replacement pod runs on worker-1. The
// spot node ip-10-12-131-24.eu-central-1.compute.internal (self-managed node group, spot lifecycle
// label, providerID), reclaimed, and the old kafka-ui pod bound to it, evicted by the taint
// manager (its ReplicaSet owner left out: the control plane's own Deployment controller makes the
// live one).
func TestCorpusPodsOnAReclaimedSpotNodeWithoutATerminationHandler(t *testing.T) {
	replay{
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: kafka-ui
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kafka-ui
  namespace: kafka-ui
  labels: {app.kubernetes.io/name: kafka-ui, app.kubernetes.io/instance: kafka-ui, helm.sh/chart: kafka-ui-0.3.3}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kafka-ui
  namespace: kafka-ui
  labels: {app.kubernetes.io/name: kafka-ui, app.kubernetes.io/instance: kafka-ui, app.kubernetes.io/managed-by: Helm, helm.sh/chart: kafka-ui-0.3.3}
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: kafka-ui, app.kubernetes.io/instance: kafka-ui}
  template:
    metadata:
      labels: {app.kubernetes.io/name: kafka-ui, app.kubernetes.io/instance: kafka-ui}
    spec:
      serviceAccountName: kafka-ui
      containers:
      - name: kafka-ui
        image: provectuslabs/kafka-ui:v0.3.3
        ports:
        - {name: http, containerPort: 8080}
---
apiVersion: v1
kind: Service
metadata:
  name: kafka-ui
  namespace: kafka-ui
spec:
  selector: {app.kubernetes.io/name: kafka-ui, app.kubernetes.io/instance: kafka-ui}
  ports:
  - {name: http, port: 80, targetPort: http}
`,
		objects: `
apiVersion: v1
kind: Node
metadata:
  name: ip-10-12-131-24.eu-central-1.compute.internal
  labels:
    kubernetes.io/hostname: ip-10-12-131-24.eu-central-1.compute.internal
    node.kubernetes.io/instance-type: m5.xlarge
    node.kubernetes.io/lifecycle: spot
    topology.kubernetes.io/zone: eu-central-1b
spec:
  providerID: aws:///eu-central-1b/i-0c5e8e1f4b2a9d713
  taints:
  - {key: node.kubernetes.io/unreachable, effect: NoSchedule, timeAdded: "2022-01-31T09:14:22Z"}
  - {key: node.kubernetes.io/unreachable, effect: NoExecute, timeAdded: "2022-01-31T09:14:27Z"}
status:
  conditions:
  - type: Ready
    status: Unknown
    reason: NodeStatusUnknown
    message: Kubelet stopped posting node status.
    lastHeartbeatTime: "2022-01-31T09:13:41Z"
    lastTransitionTime: "2022-01-31T09:14:22Z"
---
apiVersion: v1
kind: Pod
metadata:
  name: kafka-ui-6c7f9d8b5d-xq2lp
  namespace: kafka-ui
  labels: {app.kubernetes.io/name: kafka-ui, app.kubernetes.io/instance: kafka-ui, pod-template-hash: 6c7f9d8b5d}
spec:
  serviceAccountName: kafka-ui
  nodeName: ip-10-12-131-24.eu-central-1.compute.internal
  tolerations:
  - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
  - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
  containers:
  - name: kafka-ui
    image: provectuslabs/kafka-ui:v0.3.3
    ports:
    - {name: http, containerPort: 8080}
status:
  phase: Running
  conditions:
  - {type: Ready, status: "False", reason: NodeNotReady, lastTransitionTime: "2022-01-31T09:14:22Z"}
  containerStatuses:
  - name: kafka-ui
    image: provectuslabs/kafka-ui:v0.3.3
    imageID: ""
    ready: false
    restartCount: 0
    started: true
    state:
      running: {startedAt: "2022-01-30T17:02:11Z"}
`,
		deletes: []string{"Pod/kafka-ui/kafka-ui-6c7f9d8b5d-xq2lp"},
	}.run(t)

	d := diagnoseAfter(t, 5*time.Hour, "pods", "kafka-ui-6c7f9d8b5d-xq2lp", "-n", "kafka-ui")
	d.exit(1, "STUCK")
	e := d.object("pods/kafka-ui-6c7f9d8b5d-xq2lp -n kafka-ui")
	if len(e.Finalizers) != 0 {
		t.Errorf("the pod has no finalizer, the report explains %d", len(e.Finalizers))
	}
	// It waits for a kubelet that is gone with its instance: the node that stopped reporting is
	// the cause, named; the forced delete, the thread's way out, is offered.
	if e.PendingCode != finalizers.ReasonPodAwaitsKubelet && e.PendingCode != finalizers.ReasonNodeNotReporting {
		t.Errorf("pending code %q, want the pod waiting for the kubelet of a node that stopped reporting", e.PendingCode)
	}
	node := "nodes/ip-10-12-131-24.eu-central-1.compute.internal"
	named, forced := strings.Contains(e.Pending, node), false
	for _, r := range e.Remedies {
		if r.Code == finalizers.ReasonForceDeletePod {
			forced = true
		}
		if strings.Contains(r.Summary, node) || strings.Contains(r.Command, node) {
			named = true
		}
	}
	if !forced {
		t.Errorf("the forced delete, the thread's way out, is not offered: %q", remedySummaryList(e.Remedies))
	}
	if !named {
		t.Errorf("the node that stopped reporting, %s, is named neither in what the pod waits for nor in a step", node)
	}
}
