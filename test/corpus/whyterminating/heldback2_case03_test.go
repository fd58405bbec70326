package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/kubevela/kubevela/issues/5191: an Application delivered to several
// clusters (a topology policy) stays in phase deleting after `kubectl delete`; its events say
// "Warning FailedGC ... Application failed to sweep resourcetrackers to be deleted: failed to
// get resource ....: dial tcp ...: connect: connection timed out". The maintainer: "If one of the
// cluster (where the application has resources in) lost connection, it will block the deletion
// of this application." vela-core runs and keeps trying; what holds the finalizer
// app.oam.dev/resource-tracker-finalizer is the managed cluster it cannot reach. The fix is to
// restore the connection to that cluster (or detach the cluster); removing the finalizer by hand
// leaves the Application's resources running in that cluster.
//
// Modelled on the vela-core Helm chart (v1.6): namespace vela-system, ServiceAccount
// kubevela-vela-core, its ClusterRoleBinding to cluster-admin (the chart's default), the
// Deployment kubevela-vela-core with the chart's labels and image, and the CRDs of core.oam.dev.
// The cluster gateway's APIService and the webhooks are left out: the replay's pods answer no
// requests. The event is the one the report quotes, recorded by vela-core after the deletion.
func TestCorpusKubeVelaApplicationGCClusterUnreachable(t *testing.T) {
	chart := map[string]string{"app.kubernetes.io/managed-by": "Helm"}
	replay{
		crds: []crd{
			{group: "core.oam.dev", kind: "Application", plural: "applications", namespaced: true, versions: []string{"v1beta1"}, labels: chart},
			{group: "core.oam.dev", kind: "ApplicationRevision", plural: "applicationrevisions", namespaced: true, versions: []string{"v1beta1"}, labels: chart},
			{group: "core.oam.dev", kind: "ResourceTracker", plural: "resourcetrackers", versions: []string{"v1beta1"}, labels: chart},
			{group: "core.oam.dev", kind: "Policy", plural: "policies", namespaced: true, versions: []string{"v1alpha1"}, labels: chart},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: vela-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kubevela-vela-core
  namespace: vela-system
  labels:
    app.kubernetes.io/name: vela-core
    app.kubernetes.io/instance: kubevela
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: vela-core-1.6.2
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kubevela-vela-core:manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-admin
subjects:
- kind: ServiceAccount
  name: kubevela-vela-core
  namespace: vela-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kubevela-vela-core
  namespace: vela-system
  labels:
    app.kubernetes.io/name: vela-core
    app.kubernetes.io/instance: kubevela
    app.kubernetes.io/version: 1.6.2
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: vela-core-1.6.2
    controller.oam.dev/name: vela-core
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: vela-core
      app.kubernetes.io/instance: kubevela
  template:
    metadata:
      labels:
        app.kubernetes.io/name: vela-core
        app.kubernetes.io/instance: kubevela
    spec:
      serviceAccountName: kubevela-vela-core
      containers:
      - name: kubevela
        image: oamdev/vela-core:v1.6.2
        args: ["--metrics-addr=:8080", "--enable-leader-election", "--use-webhook=true", "--enable-cluster-gateway"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: control-system
---
apiVersion: core.oam.dev/v1beta1
kind: Application
metadata:
  name: multi-cluster-addon-fluxcd
  namespace: control-system
  finalizers:
  - app.oam.dev/resource-tracker-finalizer
spec:
  components:
  - name: flux-system-namespace
    type: raw
    properties:
      apiVersion: v1
      kind: Namespace
      metadata:
        name: flux-system
  policies:
  - name: topology-vela-clusters
    type: topology
    properties:
      clusterLabelSelector:
        region: edge
status:
  status: deleting
  latestRevision:
    name: multi-cluster-addon-fluxcd-v1
    revision: 1
  services:
  - name: flux-system-namespace
    cluster: edge-cluster-3
    healthy: true
`,
		deletes: []string{"Application/control-system/multi-cluster-addon-fluxcd"},
		events: []event{{about: "Application/control-system/multi-cluster-addon-fluxcd", typ: "Warning", reason: "FailedGC", component: "Application", count: 37,
			message: "failed to sweep resourcetrackers to be deleted: failed to get resource flux-system: Get \"https://10.40.3.17:6443/api/v1/namespaces/flux-system\": dial tcp 10.40.3.17:6443: connect: connection timed out"}},
	}.run(t)

	d := diagnoseAfter(t, 3*time.Hour, "applications.core.oam.dev", "multi-cluster-addon-fluxcd", "-n", "control-system")
	d.exit(1, "STUCK")
	f := d.finalizer("applications.core.oam.dev/multi-cluster-addon-fluxcd -n control-system", "app.oam.dev/resource-tracker-finalizer")
	d.remover(f, "deployments.apps/kubevela-vela-core -n vela-system", true)
	d.verdict(f, controllerRunning, removerStalled)
	// The controller runs and says what fails; the first step is not to strip behind it, nor to
	// reinstall what runs.
	d.notFirstFix(f, stripFinalizer)
	d.never(f, reinstall)
	e := d.object("applications.core.oam.dev/multi-cluster-addon-fluxcd -n control-system")
	shown := false
	for _, ev := range e.Events {
		if ev.Reason == "FailedGC" {
			shown = true
		}
	}
	if !shown {
		t.Errorf("the FailedGC event naming the unreachable cluster is not shown")
	}
}
