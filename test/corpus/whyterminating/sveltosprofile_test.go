//go:build corpusopen

// Open (corpusopen): the profile → summary chain is right, but the summary's blocker is its owner
// the ClusterProfile, "being deleted" (a cycle: the profile waits on the summary, whose deletion
// its controller made), with the strip first; the Cluster the summary names by
// spec.clusterNamespace/clusterName (a kind of another API group, Cluster API's), which stays in
// Deleting and is the cause the maintainer names, is not read. Failure classes: a name/namespace
// field pair naming a kind outside the object's own group is not a reference; an owner torn down
// by the same controller is taken for a referent that holds the object.

package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/projectsveltos/addon-controller/issues/732 ("Sveltos objects not
// cleaned up after target cluster no longer exists"): a ClusterProfile and the only Cluster API
// cluster it matched were deleted; the profile and its ClusterSummary stay. The maintainer: "If
// CAPI cluster stays in deleted state, this is expected behaviour. Sveltos will still try to remove
// resources and being the cluster not reachable fail" — and the reporter finds the Cluster
// hmc-system/wali-aws-dev still in phase Deleting. Sveltos's addon-controller runs and keeps
// clustersummaryfinalizer.projectsveltos.io until it has withdrawn the summary's add-ons from the
// cluster, which it cannot reach; the ClusterProfile keeps its own finalizer until its summaries
// are gone. The way out is the Cluster's deletion (as soon as the Cluster is gone the profile
// goes); the fix (#734) stops trying to reach a cluster that is being deleted.
//
// Modelled on Sveltos's manifest (projectsveltos/sveltos manifest/manifest.yaml, v0.39): namespace
// projectsveltos, the ServiceAccount addon-controller, its ClusterRole (config.projectsveltos.io
// and lib.projectsveltos.io everything; cluster.x-k8s.io clusters read; secrets and configmaps
// read; events) and binding, the Deployment addon-controller; the CRDs clusterprofiles,
// clustersummaries and clusterconfigurations of config.projectsveltos.io and sveltosclusters of
// lib.projectsveltos.io. Cluster API as k0rdent (hmc) installs it: the capi-controller-manager in
// capi-system and the CRD clusters.cluster.x-k8s.io. The Cluster wali-aws-dev in hmc-system
// (Deleting, its kubeconfig Secret still there), the ClusterProfile deploy-kyverno and its
// ClusterSummary for that cluster, whose Helm feature fails to reach the cluster; all three
// deleted.
func TestCorpusSveltosProfileWaitingOnADeletingCluster(t *testing.T) {
	replay{
		crds: []crd{
			{group: "config.projectsveltos.io", kind: "ClusterProfile", plural: "clusterprofiles", versions: []string{"v1beta1", "v1alpha1"}},
			{group: "config.projectsveltos.io", kind: "ClusterSummary", plural: "clustersummaries", namespaced: true, versions: []string{"v1beta1", "v1alpha1"}},
			{group: "config.projectsveltos.io", kind: "ClusterConfiguration", plural: "clusterconfigurations", namespaced: true, versions: []string{"v1beta1", "v1alpha1"}},
			{group: "lib.projectsveltos.io", kind: "SveltosCluster", plural: "sveltosclusters", namespaced: true, versions: []string{"v1beta1", "v1alpha1"}},
			{group: "cluster.x-k8s.io", kind: "Cluster", plural: "clusters", namespaced: true, versions: []string{"v1beta1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: projectsveltos
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: addon-controller
  namespace: projectsveltos
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: addon-controller-role-extra
rules:
- apiGroups: ["config.projectsveltos.io", "lib.projectsveltos.io"]
  resources: ["*"]
  verbs: ["*"]
- apiGroups: ["cluster.x-k8s.io"]
  resources: ["clusters", "clusters/status", "machines", "machines/status"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["secrets", "configmaps", "namespaces"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: addon-controller-rolebinding-extra
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: addon-controller-role-extra
subjects:
- kind: ServiceAccount
  name: addon-controller
  namespace: projectsveltos
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: addon-controller
  namespace: projectsveltos
  labels: {control-plane: addon-controller}
spec:
  replicas: 1
  selector:
    matchLabels: {control-plane: addon-controller}
  template:
    metadata:
      labels: {control-plane: addon-controller}
    spec:
      serviceAccountName: addon-controller
      containers:
      - name: controller
        image: docker.io/projectsveltos/addon-controller:v0.39.0
        command: ["/manager"]
        args: ["--diagnostics-address=:8443", "--report-mode=0", "--agent-in-mgmt-cluster=false", "--v=5", "--version=v0.39.0"]
---
apiVersion: v1
kind: Namespace
metadata:
  name: capi-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: capi-manager
  namespace: capi-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: capi-manager-role
rules:
- apiGroups: ["cluster.x-k8s.io", "addons.cluster.x-k8s.io", "ipam.cluster.x-k8s.io", "runtime.cluster.x-k8s.io"]
  resources: ["*"]
  verbs: ["*"]
- apiGroups: [""]
  resources: ["secrets", "configmaps", "events", "nodes", "namespaces"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: capi-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: capi-manager-role
subjects:
- kind: ServiceAccount
  name: capi-manager
  namespace: capi-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: capi-controller-manager
  namespace: capi-system
  labels: {cluster.x-k8s.io/provider: cluster-api, control-plane: controller-manager}
spec:
  replicas: 1
  selector:
    matchLabels: {cluster.x-k8s.io/provider: cluster-api, control-plane: controller-manager}
  template:
    metadata:
      labels: {cluster.x-k8s.io/provider: cluster-api, control-plane: controller-manager}
    spec:
      serviceAccountName: capi-manager
      containers:
      - name: manager
        image: registry.k8s.io/cluster-api/cluster-api-controller:v1.8.4
        command: ["/manager"]
        args: ["--leader-elect", "--diagnostics-address=:8443"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: hmc-system
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata:
  name: wali-aws-dev
  namespace: hmc-system
  labels: {env: dev, core-addons: enabled}
  finalizers: [cluster.cluster.x-k8s.io]
spec:
  clusterNetwork:
    pods:
      cidrBlocks: [10.244.0.0/16]
  controlPlaneEndpoint:
    host: wali-aws-dev-apiserver-1864207719.us-west-2.elb.amazonaws.com
    port: 6443
status:
  phase: Deleting
  infrastructureReady: true
  controlPlaneReady: false
  conditions:
  - type: Ready
    status: "False"
    severity: Info
    reason: Deleting
    lastTransitionTime: "2024-10-16T18:20:41Z"
---
apiVersion: v1
kind: Secret
metadata:
  name: wali-aws-dev-kubeconfig
  namespace: hmc-system
  labels: {cluster.x-k8s.io/cluster-name: wali-aws-dev}
  ownerReferences:
  - apiVersion: cluster.x-k8s.io/v1beta1
    kind: Cluster
    name: wali-aws-dev
    controller: true
    blockOwnerDeletion: true
type: cluster.x-k8s.io/secret
stringData:
  value: |
    apiVersion: v1
    kind: Config
    clusters:
    - name: wali-aws-dev
      cluster: {server: "https://wali-aws-dev-apiserver-1864207719.us-west-2.elb.amazonaws.com:6443"}
---
apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterProfile
metadata:
  name: deploy-kyverno
  finalizers: [clusterprofilefinalizer.projectsveltos.io]
spec:
  clusterSelector:
    matchLabels: {env: dev}
  syncMode: Continuous
  helmCharts:
  - repositoryURL: https://kyverno.github.io/kyverno/
    repositoryName: kyverno
    chartName: kyverno/kyverno
    chartVersion: v3.2.6
    releaseName: kyverno-latest
    releaseNamespace: kyverno
    helmChartAction: Install
status:
  matchingClusters:
  - apiVersion: cluster.x-k8s.io/v1beta1
    kind: Cluster
    namespace: hmc-system
    name: wali-aws-dev
---
apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterSummary
metadata:
  name: deploy-kyverno-capi-wali-aws-dev
  namespace: hmc-system
  labels:
    projectsveltos.io/cluster-name: wali-aws-dev
    projectsveltos.io/cluster-profile-name: deploy-kyverno
    projectsveltos.io/cluster-type: Capi
  ownerReferences:
  - apiVersion: config.projectsveltos.io/v1beta1
    kind: ClusterProfile
    name: deploy-kyverno
    controller: true
  finalizers: [clustersummaryfinalizer.projectsveltos.io]
spec:
  clusterNamespace: hmc-system
  clusterName: wali-aws-dev
  clusterType: Capi
  clusterProfileSpec:
    clusterSelector:
      matchLabels: {env: dev}
    syncMode: Continuous
    helmCharts:
    - repositoryURL: https://kyverno.github.io/kyverno/
      repositoryName: kyverno
      chartName: kyverno/kyverno
      chartVersion: v3.2.6
      releaseName: kyverno-latest
      releaseNamespace: kyverno
      helmChartAction: Install
status:
  featureSummaries:
  - featureID: Helm
    status: Removing
    failureMessage: 'Kubernetes cluster unreachable: Get "https://wali-aws-dev-apiserver-1864207719.us-west-2.elb.amazonaws.com:6443/version": dial tcp: lookup wali-aws-dev-apiserver-1864207719.us-west-2.elb.amazonaws.com on 10.96.0.10:53: no such host'
    lastAppliedTime: "2024-10-16T18:21:07Z"
  helmReleaseSummaries:
  - releaseName: kyverno-latest
    releaseNamespace: kyverno
    status: Managing
`,
		deletes: []string{"Cluster/hmc-system/wali-aws-dev", "ClusterProfile//deploy-kyverno", "ClusterSummary/hmc-system/deploy-kyverno-capi-wali-aws-dev"},
	}.run(t)

	d := diagnoseAfter(t, 20*time.Hour, "clusterprofiles.config.projectsveltos.io", "deploy-kyverno")
	d.exit(1, "STUCK")
	summary := "clustersummaries.config.projectsveltos.io/deploy-kyverno-capi-wali-aws-dev -n hmc-system"
	fp := d.finalizer("clusterprofiles.config.projectsveltos.io/deploy-kyverno", "clusterprofilefinalizer.projectsveltos.io")
	// The profile waits for its summary; the summary for the cluster that stays in Deleting.
	d.names(fp, summary)
	f := d.finalizer(summary, "clustersummaryfinalizer.projectsveltos.io")
	d.remover(f, "deployments.apps/addon-controller -n projectsveltos", true)
	d.names(f, "clusters.cluster.x-k8s.io/wali-aws-dev -n hmc-system")
	// Expected behaviour while the Cluster is being deleted: its deletion is the way out, not a
	// strip of the summary's finalizer first.
	d.notFirstFix(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
