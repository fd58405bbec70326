package whyterminating_test

import "testing"

// Report: https://github.com/open-cluster-management-io/ocm/pull/211 (":bug: refactor
// rbacfinalizercontroller to fix cluster ns is terminating after delete clustermanager"): "when
// delete clustermanager cr, the registration-controller is deleted so fast to not remove the
// finalizer on work rolebinding in the cluster namespace". The hub's registration controller puts
// cluster.open-cluster-management.io/manifest-work-cleanup on the Role and RoleBinding that let a
// managed cluster's agent work in its cluster namespace, and removes it once no ManifestWork is
// left. Deleting the ClusterManager makes the cluster-manager operator remove the hub's
// controllers; the cluster namespace cluster1 is then deleted and stays Terminating on the two
// RBAC objects. The operator keeps running (it may update roles and rolebindings, as it must to
// install the hub), but it never removes that finalizer: nothing that runs will. With OCM
// uninstalled, removing the finalizer by hand is the way out (the RBAC goes with the namespace);
// the alternative is to create the ClusterManager again so that its registration controller does
// it.
//
// Modelled on the registration-operator install of OCM 0.11 (deploy/cluster-manager): namespace
// open-cluster-management with the ServiceAccount cluster-manager, its ClusterRole (rules
// abbreviated to the groups that bear on the case) and binding, the Deployment cluster-manager;
// the CRD of operator.open-cluster-management.io. The ClusterManager is gone, and with it the hub
// controllers in open-cluster-management-hub and the hub's CRDs the operator installed.
func TestCorpusOCMWorkRBACAfterTheClusterManagerWasDeleted(t *testing.T) {
	replay{
		crds: []crd{
			{group: "operator.open-cluster-management.io", kind: "ClusterManager", plural: "clustermanagers", versions: []string{"v1"}},
			{group: "operator.open-cluster-management.io", kind: "Klusterlet", plural: "klusterlets", versions: []string{"v1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: open-cluster-management
---
apiVersion: v1
kind: Namespace
metadata:
  name: open-cluster-management-hub
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: cluster-manager
  namespace: open-cluster-management
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: cluster-manager
rules:
- apiGroups: [""]
  resources: ["configmaps", "namespaces", "serviceaccounts", "services", "secrets", "events"]
  verbs: ["create", "get", "list", "update", "watch", "patch", "delete"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["create", "get", "list", "update", "watch", "patch", "delete"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["clusterrolebindings", "rolebindings", "clusterroles", "roles"]
  verbs: ["create", "get", "list", "update", "watch", "patch", "delete", "escalate", "bind"]
- apiGroups: ["apiextensions.k8s.io"]
  resources: ["customresourcedefinitions"]
  verbs: ["create", "get", "list", "update", "watch", "patch", "delete"]
- apiGroups: ["admissionregistration.k8s.io"]
  resources: ["validatingwebhookconfigurations", "mutatingwebhookconfigurations"]
  verbs: ["create", "get", "list", "update", "watch", "patch", "delete"]
- apiGroups: ["operator.open-cluster-management.io"]
  resources: ["clustermanagers"]
  verbs: ["get", "list", "watch", "update", "delete"]
- apiGroups: ["operator.open-cluster-management.io"]
  resources: ["clustermanagers/status"]
  verbs: ["update", "patch"]
- apiGroups: ["cluster.open-cluster-management.io"]
  resources: ["managedclusters", "managedclustersets", "managedclustersetbindings", "placements", "placementdecisions"]
  verbs: ["create", "get", "list", "update", "watch", "patch", "delete"]
- apiGroups: ["work.open-cluster-management.io"]
  resources: ["manifestworks"]
  verbs: ["create", "get", "list", "update", "watch", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: cluster-manager
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-manager
subjects:
- kind: ServiceAccount
  name: cluster-manager
  namespace: open-cluster-management
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: cluster-manager
  namespace: open-cluster-management
  labels:
    app: cluster-manager
spec:
  replicas: 1
  selector:
    matchLabels:
      app: cluster-manager
  template:
    metadata:
      labels:
        app: cluster-manager
    spec:
      serviceAccountName: cluster-manager
      containers:
      - name: registration-operator
        image: quay.io/open-cluster-management/registration-operator:v0.11.0
        args: ["/registration-operator", "hub"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: cluster1
  labels:
    open-cluster-management.io/cluster-name: cluster1
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: open-cluster-management:managedcluster:cluster1:work
  namespace: cluster1
  labels:
    open-cluster-management.io/cluster-name: cluster1
  finalizers:
  - cluster.open-cluster-management.io/manifest-work-cleanup
rules:
- apiGroups: ["work.open-cluster-management.io"]
  resources: ["manifestworks"]
  verbs: ["get", "list", "watch", "update", "patch"]
- apiGroups: ["work.open-cluster-management.io"]
  resources: ["manifestworks/status"]
  verbs: ["update", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: open-cluster-management:managedcluster:cluster1:work
  namespace: cluster1
  labels:
    open-cluster-management.io/cluster-name: cluster1
  finalizers:
  - cluster.open-cluster-management.io/manifest-work-cleanup
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: open-cluster-management:managedcluster:cluster1:work
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: Group
  name: system:open-cluster-management:cluster1
`,
		deletes: []string{"Namespace//cluster1"},
	}.run(t)

	d := diagnose(t, "namespace", "cluster1")
	d.exit(1, "STUCK")
	f := d.finalizer("rolebindings.rbac.authorization.k8s.io/open-cluster-management:managedcluster:cluster1:work -n cluster1", "cluster.open-cluster-management.io/manifest-work-cleanup")
	// The operator that installed (and removed) the hub controllers may update rolebindings but is
	// not the remover: "read its logs" leads nowhere. The finalizer is removed by hand.
	d.notRemover(f, "deployments.apps/cluster-manager -n open-cluster-management")
	d.noRunningRemover(f)
	d.verdict(f, controllerAbsent, finalizerOrphaned)
	d.never(f, readLogs)
	d.offers(f, stripFinalizer)
}
