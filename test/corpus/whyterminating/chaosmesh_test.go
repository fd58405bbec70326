package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/chaos-mesh/chaos-mesh/issues/2521 ("Can not delete IOChaos with bad
// volumePath"): an IOChaos whose spec.volumePath (/var/run) is no volume of the selected Pod
// cannot be deleted: `kubectl delete` hangs on the finalizer chaos-mesh/records, which the
// controller manager (running) removes only once every record of the experiment is recovered,
// and recovering a fault that never took on a bad volume path keeps failing. The way out the
// thread gives (a second reporter, for IOChaos and NetworkChaos alike) is to edit the object and
// remove its finalizers by hand. Chaos Mesh's own controller manager is the remover, not its
// dashboard (which may update every chaos-mesh.org object, to pause or archive experiments) and
// not the per-node daemon; it runs, so nothing is to be reinstalled.
//
// Modelled on the Helm chart helm/chaos-mesh v2.0.3 (the release of the report): in namespace
// chaos-testing the controller manager's ServiceAccount, its two ClusterRoles (the target
// namespace's objects and every chaos-mesh.org resource; the cluster-level reads) and bindings,
// and Deployment; the dashboard's ServiceAccount, ClusterRole and Deployment; the daemon's
// ServiceAccount and DaemonSet, with the chart's labels. The CRDs of chaos-mesh.org, unlabelled,
// trimmed to the experiment kinds and the per-pod ones. The admission webhooks are left out: the
// replay's pods answer no requests, and the report is not about them. The Deployment nginx-3 of
// the report runs in namespace default; the IOChaos records one injected container of it.
func TestCorpusChaosMeshIOChaosWithABadVolumePath(t *testing.T) {
	cm := func(kind, plural string) crd {
		return crd{group: "chaos-mesh.org", kind: kind, plural: plural, namespaced: true, versions: []string{"v1alpha1"}}
	}
	labels := func(component string) string {
		return `{app.kubernetes.io/name: chaos-mesh, app.kubernetes.io/instance: chaos-mesh, app.kubernetes.io/part-of: chaos-mesh, app.kubernetes.io/version: v2.0.3, helm.sh/chart: chaos-mesh-v2.0.3, app.kubernetes.io/component: ` + component + `}`
	}
	replay{
		crds: []crd{
			cm("IOChaos", "iochaos"),
			cm("NetworkChaos", "networkchaos"),
			cm("PodChaos", "podchaos"),
			cm("StressChaos", "stresschaos"),
			cm("HTTPChaos", "httpchaos"),
			cm("Schedule", "schedules"),
			cm("Workflow", "workflows"),
			cm("PodIOChaos", "podiochaos"),
			cm("PodNetworkChaos", "podnetworkchaos"),
			cm("PodHttpChaos", "podhttpchaos"),
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: chaos-testing
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: chaos-controller-manager
  namespace: chaos-testing
  labels: ` + labels("controller-manager") + `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: chaos-mesh-chaos-controller-manager-target-namespace
  labels: ` + labels("controller-manager") + `
rules:
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "delete", "update", "patch"]
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["*"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["patch", "create", "watch", "list", "get"]
- apiGroups: ["chaos-mesh.org"]
  resources: ["*"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: chaos-mesh-chaos-controller-manager-cluster-level
  labels: ` + labels("controller-manager") + `
rules:
- apiGroups: [""]
  resources: ["nodes", "persistentvolumes", "persistentvolumeclaims", "namespaces", "services"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["authorization.k8s.io"]
  resources: ["subjectaccessreviews"]
  verbs: ["create"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: chaos-mesh-chaos-controller-manager-target-namespace
  labels: ` + labels("controller-manager") + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: chaos-mesh-chaos-controller-manager-target-namespace
subjects:
- kind: ServiceAccount
  name: chaos-controller-manager
  namespace: chaos-testing
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: chaos-mesh-chaos-controller-manager-cluster-level
  labels: ` + labels("controller-manager") + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: chaos-mesh-chaos-controller-manager-cluster-level
subjects:
- kind: ServiceAccount
  name: chaos-controller-manager
  namespace: chaos-testing
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: chaos-dashboard
  namespace: chaos-testing
  labels: ` + labels("chaos-dashboard") + `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: chaos-mesh-chaos-dashboard-cluster-level
  labels: ` + labels("chaos-dashboard") + `
rules:
- apiGroups: [""]
  resources: ["pods", "namespaces", "events", "nodes"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["chaos-mesh.org"]
  resources: ["*"]
  verbs: ["get", "list", "watch", "create", "delete", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: chaos-mesh-chaos-dashboard-cluster-level
  labels: ` + labels("chaos-dashboard") + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: chaos-mesh-chaos-dashboard-cluster-level
subjects:
- kind: ServiceAccount
  name: chaos-dashboard
  namespace: chaos-testing
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: chaos-daemon
  namespace: chaos-testing
  labels: ` + labels("chaos-daemon") + `
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: chaos-controller-manager
  namespace: chaos-testing
  labels: ` + labels("controller-manager") + `
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: chaos-mesh, app.kubernetes.io/instance: chaos-mesh, app.kubernetes.io/component: controller-manager}
  template:
    metadata:
      labels: ` + labels("controller-manager") + `
    spec:
      serviceAccountName: chaos-controller-manager
      containers:
      - name: chaos-mesh
        image: ghcr.io/chaos-mesh/chaos-mesh:v2.0.3
        command: ["/usr/local/bin/chaos-controller-manager"]
        env:
        - {name: TARGET_NAMESPACE, value: chaos-testing}
        - {name: CLUSTER_SCOPED, value: "true"}
        - {name: ENABLE_LEADER_ELECTION, value: "true"}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: chaos-dashboard
  namespace: chaos-testing
  labels: ` + labels("chaos-dashboard") + `
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: chaos-mesh, app.kubernetes.io/instance: chaos-mesh, app.kubernetes.io/component: chaos-dashboard}
  template:
    metadata:
      labels: ` + labels("chaos-dashboard") + `
    spec:
      serviceAccountName: chaos-dashboard
      containers:
      - name: chaos-dashboard
        image: ghcr.io/chaos-mesh/chaos-dashboard:v2.0.3
        command: ["/usr/local/bin/chaos-dashboard"]
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: chaos-daemon
  namespace: chaos-testing
  labels: ` + labels("chaos-daemon") + `
spec:
  selector:
    matchLabels: {app.kubernetes.io/name: chaos-mesh, app.kubernetes.io/instance: chaos-mesh, app.kubernetes.io/component: chaos-daemon}
  template:
    metadata:
      labels: ` + labels("chaos-daemon") + `
    spec:
      serviceAccountName: chaos-daemon
      hostPID: true
      containers:
      - name: chaos-daemon
        image: ghcr.io/chaos-mesh/chaos-daemon:v2.0.3
        command: ["/usr/local/bin/chaos-daemon", "--runtime", "docker", "--http-port", "31766", "--grpc-port", "31767"]
        securityContext:
          privileged: true
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-3
  namespace: default
  labels: {app: nginx-3}
spec:
  replicas: 3
  selector:
    matchLabels: {app: nginx-3}
  template:
    metadata:
      labels: {app: nginx-3}
    spec:
      containers:
      - name: nginx-unprivileged
        image: nginxinc/nginx-unprivileged
`,
		objects: `
apiVersion: chaos-mesh.org/v1alpha1
kind: IOChaos
metadata:
  name: test-io-late1
  namespace: default
  finalizers: [chaos-mesh/records]
spec:
  selector:
    namespaces: [default]
  mode: one
  action: latency
  delay: 1s
  percent: 100
  volumePath: /var/run
  duration: 20s
status:
  conditions:
  - {type: Selected, status: "True"}
  - {type: AllInjected, status: "True"}
  - {type: AllRecovered, status: "False"}
  - {type: Paused, status: "False"}
  experiment:
    desiredPhase: Stop
    containerRecords:
    - {id: default/nginx-3-7d9b8d6f5c-2xkqp/nginx-unprivileged, phase: Injected, selectorKey: .}
`,
		deletes: []string{"IOChaos/default/test-io-late1"},
	}.run(t)

	// The reporter gave up on `kubectl delete` and came back to it: long after.
	d := diagnoseAfter(t, time.Hour, "iochaos.chaos-mesh.org", "test-io-late1", "-n", "default")
	d.exit(1, "STUCK")
	ref := "iochaos.chaos-mesh.org/test-io-late1 -n default"
	f := d.finalizer(ref, "chaos-mesh/records")
	d.remover(f, "deployments.apps/chaos-controller-manager -n chaos-testing", true)
	d.notRemover(f, "deployments.apps/chaos-dashboard -n chaos-testing")
	d.notRemover(f, "daemonsets.apps/chaos-daemon -n chaos-testing")
	d.verdict(f, removerStalled)
	d.notDeleting(ref, "an experiment unfinalized for an hour")
	// The way out the thread gives: remove the finalizer by hand; the controller runs.
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
