//go:build corpusopen

package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/rancher/cluster-api-addon-provider-fleet/issues/366 ("CAAPF finalizer
// preventing CAPI Cluster from deleting"), fixed by #367 ("ignore BundleNamespaceMapping not found
// on Cluster deletion"): a Cluster API Cluster being deleted keeps the finalizer
// fleet.addons.cluster.x-k8s.io of the Cluster API Addon Provider Fleet (CAAPF, running). Its
// cleanup deletes the Fleet BundleNamespaceMapping it made for the cluster's namespace; that
// mapping had already been deleted, so every pass fails ("Finalizer Error: failed to clean up
// object: Fleet error: BundleNamespaceMapping delete error ... NotFound") and the finalizer stays.
// The fix ignores NotFound; until then nothing is left for the cleanup to do, so removing that
// one finalizer by hand is the way out. Cluster API's own controller (whose finalizer is gone
// already), Rancher and Turtles may update Clusters too and are not the remover.
//
// Modelled on CAAPF's provider components as Rancher Turtles installs them (config/rbac/role.yaml
// of the release: namespaces, cluster.x-k8s.io clusters get/list/watch/patch, fleet.cattle.io
// clusters, clustergroups and bundlenamespacemappings, addons.cluster.x-k8s.io
// fleetaddonconfigs; the Deployment caapf-controller-manager with clusterctl's provider label
// addon-fleet), Cluster API core (capi-system, abbreviated as clusterctl installs it), Rancher
// (cattle-system, bound to cluster-admin) and Turtles' controller (rancher-turtles-system), Fleet's
// controller (cattle-fleet-system), the CRDs with their installers' labels. The Cluster of the
// report in its namespace, its infrastructure already gone; the BundleNamespaceMapping is gone, as
// the report shows. The Fleet Cluster of the same name the CAPI Cluster owns is left out (the
// replay keys its objects by kind, namespace and name, and it bears on nothing here).
// Open (tag corpusopen): Cluster API's core manager is still named as a second remover, with the
// same high confidence as CAAPF: its role names addons.cluster.x-k8s.io and cluster.x-k8s.io
// through resources "*", and nothing yet ranks apart a candidate whose product label
// (cluster.x-k8s.io/provider=cluster-api) disagrees with the one the domain's own CRD
// (fleetaddonconfigs.addons.cluster.x-k8s.io, provider=addon-fleet) carries, when the stuck
// object's type is not the finalizer's own. The way out the tool gives (CAAPF's logs, then the
// strip) is right.
func TestCorpusCAAPFClusterWhoseBundleNamespaceMappingIsGone(t *testing.T) {
	core := map[string]string{"cluster.x-k8s.io/provider": "cluster-api", "clusterctl.cluster.x-k8s.io": ""}
	addon := map[string]string{"cluster.x-k8s.io/provider": "addon-fleet", "clusterctl.cluster.x-k8s.io": ""}
	fleet := map[string]string{"app.kubernetes.io/managed-by": "Helm"}
	fleetAnn := map[string]string{"meta.helm.sh/release-name": "fleet-crd", "meta.helm.sh/release-namespace": "cattle-fleet-system"}
	replay{
		crds: []crd{
			{group: "cluster.x-k8s.io", kind: "Cluster", plural: "clusters", namespaced: true, versions: []string{"v1beta1"}, labels: core},
			{group: "cluster.x-k8s.io", kind: "ClusterClass", plural: "clusterclasses", namespaced: true, versions: []string{"v1beta1"}, labels: core},
			{group: "cluster.x-k8s.io", kind: "Machine", plural: "machines", namespaced: true, versions: []string{"v1beta1"}, labels: core},
			{group: "addons.cluster.x-k8s.io", kind: "FleetAddonConfig", plural: "fleetaddonconfigs", namespaced: false, versions: []string{"v1alpha1"}, labels: addon},
			{group: "fleet.cattle.io", kind: "Cluster", plural: "clusters", namespaced: true, versions: []string{"v1alpha1"}, labels: fleet, annotations: fleetAnn},
			{group: "fleet.cattle.io", kind: "ClusterGroup", plural: "clustergroups", namespaced: true, versions: []string{"v1alpha1"}, labels: fleet, annotations: fleetAnn},
			{group: "fleet.cattle.io", kind: "BundleNamespaceMapping", plural: "bundlenamespacemappings", namespaced: true, versions: []string{"v1alpha1"}, labels: fleet, annotations: fleetAnn},
			{group: "fleet.cattle.io", kind: "Bundle", plural: "bundles", namespaced: true, versions: []string{"v1alpha1"}, labels: fleet, annotations: fleetAnn},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: capi-system
  labels: {cluster.x-k8s.io/provider: cluster-api}
---
apiVersion: v1
kind: Namespace
metadata:
  name: rancher-turtles-system
---
apiVersion: v1
kind: Namespace
metadata:
  name: cattle-system
---
apiVersion: v1
kind: Namespace
metadata:
  name: cattle-fleet-system
---
apiVersion: v1
kind: Namespace
metadata:
  name: creategitops-t28int
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: capi-manager
  namespace: capi-system
  labels: {cluster.x-k8s.io/provider: cluster-api}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: capi-system-capi-manager-role
  labels: {cluster.x-k8s.io/provider: cluster-api}
rules:
- apiGroups: ["cluster.x-k8s.io"]
  resources: ["*"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["addons.cluster.x-k8s.io", "bootstrap.cluster.x-k8s.io", "controlplane.cluster.x-k8s.io", "infrastructure.cluster.x-k8s.io"]
  resources: ["*"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["secrets", "configmaps", "events"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: capi-system-capi-manager-rolebinding
  labels: {cluster.x-k8s.io/provider: cluster-api}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: capi-system-capi-manager-role
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
        image: registry.k8s.io/cluster-api/cluster-api-controller:v1.10.6
        command: ["/manager"]
        args: ["--leader-elect", "--feature-gates=MachinePool=true,ClusterTopology=true"]
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: caapf-controller-manager
  namespace: rancher-turtles-system
  labels: {cluster.x-k8s.io/provider: addon-fleet}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: caapf-manager-role
  labels: {cluster.x-k8s.io/provider: addon-fleet}
rules:
- apiGroups: ["addons.cluster.x-k8s.io"]
  resources: ["fleetaddonconfigs", "fleetaddonconfigs/status"]
  verbs: ["*"]
- apiGroups: [""]
  resources: ["namespaces"]
  verbs: ["list", "get", "watch", "create", "patch"]
- apiGroups: ["events.k8s.io"]
  resources: ["events"]
  verbs: ["create"]
- apiGroups: [""]
  resources: ["secrets", "configmaps"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["bootstrap.cluster.x-k8s.io", "clusterctl.cluster.x-k8s.io", "controlplane.cluster.x-k8s.io", "infrastructure.cluster.x-k8s.io"]
  resources: ["*"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["cluster.x-k8s.io"]
  resources: ["clusters", "clusterclasses"]
  verbs: ["get", "list", "watch", "patch"]
- apiGroups: ["fleet.cattle.io"]
  resources: ["clusters", "clustergroups", "clusterregistrationtokens", "bundlenamespacemappings"]
  verbs: ["create", "get", "list", "patch", "update", "watch"]
- apiGroups: ["fleet.cattle.io"]
  resources: ["bundlenamespacemappings"]
  verbs: ["delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: caapf-manager-rolebinding
  labels: {cluster.x-k8s.io/provider: addon-fleet}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: caapf-manager-role
subjects:
- kind: ServiceAccount
  name: caapf-controller-manager
  namespace: rancher-turtles-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: caapf-controller-manager
  namespace: rancher-turtles-system
  labels: {cluster.x-k8s.io/provider: addon-fleet, control-plane: controller-manager}
spec:
  replicas: 1
  selector:
    matchLabels: {cluster.x-k8s.io/provider: addon-fleet, control-plane: controller-manager}
  template:
    metadata:
      labels: {cluster.x-k8s.io/provider: addon-fleet, control-plane: controller-manager}
    spec:
      serviceAccountName: caapf-controller-manager
      containers:
      - name: helm-manager
        image: ghcr.io/rancher/cluster-api-addon-provider-fleet:v0.12.0
        args: ["--helm-install"]
      - name: manager
        image: ghcr.io/rancher/cluster-api-addon-provider-fleet:v0.12.0
        ports:
        - {containerPort: 8443, name: http, protocol: TCP}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: rancher-turtles-manager
  namespace: rancher-turtles-system
  labels: {app.kubernetes.io/name: rancher-turtles, app.kubernetes.io/managed-by: Helm}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: rancher-turtles-manager-role
  labels: {app.kubernetes.io/name: rancher-turtles, app.kubernetes.io/managed-by: Helm}
rules:
- apiGroups: ["cluster.x-k8s.io"]
  resources: ["clusters", "clusters/status"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["management.cattle.io", "provisioning.cattle.io"]
  resources: ["*"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["secrets", "namespaces"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: rancher-turtles-manager-rolebinding
  labels: {app.kubernetes.io/name: rancher-turtles, app.kubernetes.io/managed-by: Helm}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: rancher-turtles-manager-role
subjects:
- kind: ServiceAccount
  name: rancher-turtles-manager
  namespace: rancher-turtles-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: rancher-turtles-controller-manager
  namespace: rancher-turtles-system
  labels: {app.kubernetes.io/name: rancher-turtles, app.kubernetes.io/managed-by: Helm, control-plane: controller-manager}
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: rancher-turtles, control-plane: controller-manager}
  template:
    metadata:
      labels: {app.kubernetes.io/name: rancher-turtles, control-plane: controller-manager}
    spec:
      serviceAccountName: rancher-turtles-manager
      containers:
      - name: manager
        image: registry.rancher.com/rancher/rancher/turtles:v0.24.0
        args: ["--leader-elect", "--feature-gates=agent-tls-mode=true"]
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: rancher
  namespace: cattle-system
  labels: {app: rancher}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: rancher
  labels: {app: rancher}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-admin
subjects:
- kind: ServiceAccount
  name: rancher
  namespace: cattle-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: rancher
  namespace: cattle-system
  labels: {app: rancher}
spec:
  replicas: 1
  selector:
    matchLabels: {app: rancher}
  template:
    metadata:
      labels: {app: rancher}
    spec:
      serviceAccountName: rancher
      containers:
      - name: rancher
        image: rancher/rancher:v2.12.1
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: fleet-controller
  namespace: cattle-fleet-system
  labels: {app: fleet-controller}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: fleet-controller
  labels: {app: fleet-controller}
rules:
- apiGroups: ["fleet.cattle.io"]
  resources: ["*"]
  verbs: ["*"]
- apiGroups: [""]
  resources: ["namespaces", "serviceaccounts", "secrets", "configmaps", "events"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: fleet-controller
  labels: {app: fleet-controller}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: fleet-controller
subjects:
- kind: ServiceAccount
  name: fleet-controller
  namespace: cattle-fleet-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: fleet-controller
  namespace: cattle-fleet-system
  labels: {app: fleet-controller}
spec:
  replicas: 1
  selector:
    matchLabels: {app: fleet-controller}
  template:
    metadata:
      labels: {app: fleet-controller}
    spec:
      serviceAccountName: fleet-controller
      containers:
      - name: fleet-controller
        image: rancher/fleet:v0.13.1
        command: ["fleetcontroller"]
`,
		objects: `
apiVersion: addons.cluster.x-k8s.io/v1alpha1
kind: FleetAddonConfig
metadata:
  name: fleet-addon-config
spec:
  cluster:
    applyClassGroup: true
    setOwnerReferences: true
    selector: {matchLabels: {import: ""}}
    namespaceSelector: {matchLabels: {import: ""}}
  clusterClass: {}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata:
  name: cluster-azure-rke2-4cy7c3
  namespace: creategitops-t28int
  labels: {cluster-api.cattle.io/rancher-auto-import: "true", import: ""}
  finalizers: [fleet.addons.cluster.x-k8s.io]
spec:
  clusterNetwork:
    pods: {cidrBlocks: [192.168.0.0/16]}
  topology:
    class: azure-rke2-example
    classNamespace: creategitops-classes
    version: v1.31.7+rke2r1
    controlPlane: {replicas: 1}
status:
  phase: Deleting
  infrastructureReady: false
  controlPlaneReady: false
  conditions:
  - {type: Ready, status: "False", severity: Info, reason: Deleting, lastTransitionTime: "2025-11-13T01:05:12Z"}
  - {type: InfrastructureReady, status: "False", severity: Info, reason: Deleted, lastTransitionTime: "2025-11-13T01:13:58Z"}
`,
		deletes: []string{"Cluster/creategitops-t28int/cluster-azure-rke2-4cy7c3"},
	}.run(t)

	// "this will fail consistently": well after the deletion.
	d := diagnoseAfter(t, 30*time.Minute, "clusters.cluster.x-k8s.io", "cluster-azure-rke2-4cy7c3", "-n", "creategitops-t28int")
	d.exit(1, "STUCK")
	ref := "clusters.cluster.x-k8s.io/cluster-azure-rke2-4cy7c3 -n creategitops-t28int"
	f := d.finalizer(ref, "fleet.addons.cluster.x-k8s.io")
	d.remover(f, "deployments.apps/caapf-controller-manager -n rancher-turtles-system", true)
	d.notRemover(f, "deployments.apps/capi-controller-manager -n capi-system")
	d.notRemover(f, "deployments.apps/rancher -n cattle-system")
	// The cluster shows no reason; the remover has stalled: its logs, then the strip.
	d.verdict(f, removerStalled)
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
