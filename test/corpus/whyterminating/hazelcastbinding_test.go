package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/hazelcast/hazelcast-platform-operator/issues/651 ("kubernetes
// operator: delete of CRs hangs on finalizer - sometimes"; the same report as
// hazelcast/hazelcast#23815): one Hazelcast Platform Operator per application namespace, each
// installed from the bundle YAML into its own namespace; deleting a namespace's Hazelcast and
// ManagementCenter hangs on their finalizer. The maintainers reproduced it: "The problem was
// related to the cluster role assigned to the operator when we install a new operator for each
// namespace", fixed by installing with Helm (one cluster-wide operator, or a restricted install
// whose cluster-scoped RBAC is its own).
//
// Modelled on the operator's bundle.yaml (5.x): per install a ServiceAccount
// hazelcast-platform-controller-manager, a Role and RoleBinding hazelcast-platform-manager-role
// (hazelcasts and managementcenters of hazelcast.com, with their finalizers and status) and the
// Deployment, all in the install's namespace; and one ClusterRole hazelcast-platform-manager-role
// (get and list on nodes, pods, services, secrets; maps and wanreplications; create, delete ... on
// clusterroles and clusterrolebindings) with one ClusterRoleBinding
// hazelcast-platform-manager-clusterrolebinding, both with the same name in every install: the
// binding names the ServiceAccount of whichever namespace was installed last. Two installs,
// team-a then team-b; team-a's Hazelcast ams-hazelcast-blue with the ClusterRole and
// ClusterRoleBinding the operator made for its members' discovery (named after it), which its
// finalizer hazelcast.com/finalizer deletes — something team-a's operator may no longer do.
func TestCorpusHazelcastOperatorBindingTakenByAnotherNamespace(t *testing.T) {
	install := func(ns string) string {
		return `
apiVersion: v1
kind: Namespace
metadata:
  name: ` + ns + `
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: hazelcast-platform-controller-manager
  namespace: ` + ns + `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: hazelcast-platform-manager-role
  namespace: ` + ns + `
rules:
- apiGroups: [""]
  resources: ["configmaps", "events", "pods", "serviceaccounts", "services"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "watch"]
- apiGroups: ["apps"]
  resources: ["statefulsets"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["hazelcast.com"]
  resources: ["hazelcasts", "hotbackups", "managementcenters"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["hazelcast.com"]
  resources: ["hazelcasts/finalizers", "hotbackups/finalizers", "managementcenters/finalizers"]
  verbs: ["update"]
- apiGroups: ["hazelcast.com"]
  resources: ["hazelcasts/status", "hotbackups/status", "managementcenters/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["rolebindings", "roles"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: hazelcast-platform-manager-rolebinding
  namespace: ` + ns + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: hazelcast-platform-manager-role
subjects:
- kind: ServiceAccount
  name: hazelcast-platform-controller-manager
  namespace: ` + ns + `
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: hazelcast-platform-controller-manager
  namespace: ` + ns + `
  labels: {control-plane: controller-manager}
spec:
  replicas: 1
  selector:
    matchLabels: {control-plane: controller-manager}
  template:
    metadata:
      labels: {control-plane: controller-manager}
    spec:
      serviceAccountName: hazelcast-platform-controller-manager
      terminationGracePeriodSeconds: 10
      containers:
      - name: manager
        image: hazelcast/hazelcast-platform-operator:5.5
        command: ["/manager"]
        args: ["--leader-elect=false"]
        env:
        - name: WATCH_NAMESPACE
          valueFrom: {fieldRef: {fieldPath: metadata.namespace}}
---
`
	}
	replay{
		crds: []crd{
			{group: "hazelcast.com", kind: "Hazelcast", plural: "hazelcasts", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "hazelcast.com", kind: "ManagementCenter", plural: "managementcenters", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "hazelcast.com", kind: "Map", plural: "maps", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "hazelcast.com", kind: "HotBackup", plural: "hotbackups", namespaced: true, versions: []string{"v1alpha1"}},
		},
		// The cluster-scoped part of the bundle, applied by each install under the same names;
		// the binding as the last install (team-b) left it.
		install: install("team-a") + install("team-b") + `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: hazelcast-platform-manager-role
rules:
- apiGroups: [""]
  resources: ["endpoints", "nodes", "pods", "secrets", "services"]
  verbs: ["get", "list"]
- apiGroups: ["hazelcast.com"]
  resources: ["maps", "wanreplications"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["hazelcast.com"]
  resources: ["maps/finalizers", "wanreplications/finalizers"]
  verbs: ["update"]
- apiGroups: ["hazelcast.com"]
  resources: ["maps/status", "wanreplications/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["clusterrolebindings", "clusterroles"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: hazelcast-platform-manager-clusterrolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: hazelcast-platform-manager-role
subjects:
- kind: ServiceAccount
  name: hazelcast-platform-controller-manager
  namespace: team-b
`,
		objects: `
apiVersion: hazelcast.com/v1alpha1
kind: Hazelcast
metadata:
  name: ams-hazelcast-blue
  namespace: team-a
  finalizers: [hazelcast.com/finalizer]
spec:
  clusterSize: 3
  repository: docker.io/hazelcast/hazelcast
  version: "5.2.1"
status:
  phase: Running
  hazelcastClusterStatus: {readyMembers: 3/3}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ams-hazelcast-blue
  labels: {app.kubernetes.io/name: hazelcast, app.kubernetes.io/instance: ams-hazelcast-blue, app.kubernetes.io/managed-by: hazelcast-platform-operator}
rules:
- apiGroups: [""]
  resources: ["endpoints", "pods", "nodes", "services"]
  verbs: ["get", "list"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: ams-hazelcast-blue
  labels: {app.kubernetes.io/name: hazelcast, app.kubernetes.io/instance: ams-hazelcast-blue, app.kubernetes.io/managed-by: hazelcast-platform-operator}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: ams-hazelcast-blue
subjects:
- kind: ServiceAccount
  name: ams-hazelcast-blue
  namespace: team-a
`,
		finalizersBy: map[string]string{"Hazelcast/team-a/ams-hazelcast-blue": "manager"},
		deletes:      []string{"Hazelcast/team-a/ams-hazelcast-blue"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "hazelcasts.hazelcast.com", "ams-hazelcast-blue", "-n", "team-a")
	d.exit(1, "STUCK")
	f := d.finalizer("hazelcasts.hazelcast.com/ams-hazelcast-blue -n team-a", "hazelcast.com/finalizer")
	// team-a's own operator runs and is the remover (it watches only its namespace); team-b's
	// is not.
	d.remover(f, "deployments.apps/hazelcast-platform-controller-manager -n team-a", true)
	d.notRemover(f, "deployments.apps/hazelcast-platform-controller-manager -n team-b")
	// The cause, as the maintainers found it: the cluster-wide binding of the install, which now
	// names team-b's ServiceAccount only.
	d.names(f, "clusterrolebindings.rbac.authorization.k8s.io/hazelcast-platform-manager-clusterrolebinding")
	// The operator runs: nothing to reinstall, and what it lacks is its rights, which the strip
	// does not give back: the strip is not the first step.
	d.never(f, reinstall, restoreController)
	d.notFirstFix(f, stripFinalizer)
}
