package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/openshift/cluster-autoscaler-operator/pull/33 ("Ignore not-found
// errors when finalizing resources"): the MachineAutoscaler's finalizer
// (machinetarget.autoscaling.openshift.io) lets the operator take its min/max labels off the
// MachineSet spec.scaleTargetRef names before the MachineAutoscaler goes. The operator fetches
// that target first, and "deleting a MachineAutoscaler that targets a deleted or otherwise missing
// MachineSet will hang forever": the fetch returns NotFound, the reconcile fails before the
// deletion branch, and the finalizer stays although the operator runs. The fix ignores NotFound
// (nothing is left to clean on a MachineSet that is gone); by hand, the way out is the same:
// remove the finalizer. Creating the MachineSet again to let the operator finish would provision
// machines only to delete the labels on them.
//
// Modelled on the operator's manifests of the time (install/0000_50_cluster-autoscaler-operator_*,
// OpenShift 4.0 beta): namespace openshift-cluster-api, the ServiceAccount, ClusterRole
// (autoscaling.openshift.io) and Role (machinesets of cluster.k8s.io: get, list, watch, update)
// with their bindings, the Deployment cluster-autoscaler-operator (its master nodeSelector left
// out: the replay's node is a worker); the CRDs machineautoscalers and clusterautoscalers of
// autoscaling.openshift.io and machinesets of cluster.k8s.io (a protected group: annotated). The
// MachineSet worker-us-east-1a was deleted; worker-us-east-1b remains; the MachineAutoscaler
// worker-us-east-1a, which targets the deleted one, deleted since.
func TestCorpusMachineAutoscalerFinalizerOnADeletedMachineSet(t *testing.T) {
	unapproved := map[string]string{"api-approved.kubernetes.io": "unapproved, the cluster-api group of the time"}
	replay{
		crds: []crd{
			{group: "autoscaling.openshift.io", kind: "MachineAutoscaler", plural: "machineautoscalers", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "autoscaling.openshift.io", kind: "ClusterAutoscaler", plural: "clusterautoscalers", versions: []string{"v1alpha1"}},
			{group: "cluster.k8s.io", kind: "MachineSet", plural: "machinesets", namespaced: true, versions: []string{"v1alpha1"}, annotations: unapproved},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: openshift-cluster-api
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: cluster-autoscaler-operator
  namespace: openshift-cluster-api
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: cluster-autoscaler-operator
rules:
- apiGroups: ["autoscaling.openshift.io"]
  resources: ["*"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: cluster-autoscaler-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-autoscaler-operator
subjects:
- kind: ServiceAccount
  name: cluster-autoscaler-operator
  namespace: openshift-cluster-api
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: cluster-autoscaler-operator
  namespace: openshift-cluster-api
rules:
- apiGroups: ["autoscaling.openshift.io"]
  resources: ["*"]
  verbs: ["*"]
- apiGroups: [""]
  resources: ["pods", "services", "endpoints", "persistentvolumeclaims", "events", "configmaps", "secrets"]
  verbs: ["*"]
- apiGroups: ["apps"]
  resources: ["deployments", "daemonsets", "replicasets", "statefulsets"]
  verbs: ["*"]
- apiGroups: ["cluster.k8s.io"]
  resources: ["machinedeployments", "machinesets"]
  verbs: ["watch", "list", "get", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: cluster-autoscaler-operator
  namespace: openshift-cluster-api
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: cluster-autoscaler-operator
subjects:
- kind: ServiceAccount
  name: cluster-autoscaler-operator
  namespace: openshift-cluster-api
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: cluster-autoscaler-operator
  namespace: openshift-cluster-api
  labels: {k8s-app: cluster-autoscaler-operator}
spec:
  replicas: 1
  selector:
    matchLabels: {k8s-app: cluster-autoscaler-operator}
  template:
    metadata:
      labels: {k8s-app: cluster-autoscaler-operator}
    spec:
      serviceAccountName: cluster-autoscaler-operator
      containers:
      - name: cluster-autoscaler-operator
        image: docker.io/openshift/origin-cluster-autoscaler-operator:v4.0.0
        command: ["cluster-autoscaler-operator"]
        args: ["-alsologtostderr"]
        env:
        - name: WATCH_NAMESPACE
          valueFrom: {fieldRef: {fieldPath: metadata.namespace}}
        - name: CLUSTER_AUTOSCALER_NAMESPACE
          valueFrom: {fieldRef: {fieldPath: metadata.namespace}}
`,
		objects: `
apiVersion: cluster.k8s.io/v1alpha1
kind: MachineSet
metadata:
  name: worker-us-east-1b
  namespace: openshift-cluster-api
  labels:
    sigs.k8s.io/cluster-api-cluster: ci-ln-7x2k
    sigs.k8s.io/cluster-api-autoscaler-node-group-min-size: "1"
    sigs.k8s.io/cluster-api-autoscaler-node-group-max-size: "6"
spec:
  replicas: 2
  selector:
    matchLabels: {sigs.k8s.io/cluster-api-machineset: worker-us-east-1b}
  template:
    metadata:
      labels: {sigs.k8s.io/cluster-api-machineset: worker-us-east-1b}
    spec:
      providerSpec:
        value: {kind: AWSMachineProviderConfig, instanceType: m4.large, placement: {availabilityZone: us-east-1b, region: us-east-1}}
---
apiVersion: autoscaling.openshift.io/v1alpha1
kind: MachineAutoscaler
metadata:
  name: worker-us-east-1b
  namespace: openshift-cluster-api
  finalizers: [machinetarget.autoscaling.openshift.io]
spec:
  minReplicas: 1
  maxReplicas: 6
  scaleTargetRef: {apiVersion: cluster.k8s.io/v1alpha1, kind: MachineSet, name: worker-us-east-1b}
---
apiVersion: autoscaling.openshift.io/v1alpha1
kind: MachineAutoscaler
metadata:
  name: worker-us-east-1a
  namespace: openshift-cluster-api
  finalizers: [machinetarget.autoscaling.openshift.io]
spec:
  minReplicas: 1
  maxReplicas: 12
  scaleTargetRef: {apiVersion: cluster.k8s.io/v1alpha1, kind: MachineSet, name: worker-us-east-1a}
`,
		deletes: []string{"MachineAutoscaler/openshift-cluster-api/worker-us-east-1a"},
	}.run(t)

	d := diagnoseAfter(t, 2*time.Hour, "machineautoscalers.autoscaling.openshift.io", "worker-us-east-1a", "-n", "openshift-cluster-api")
	d.exit(1, "STUCK")
	f := d.finalizer("machineautoscalers.autoscaling.openshift.io/worker-us-east-1a -n openshift-cluster-api", "machinetarget.autoscaling.openshift.io")
	// The operator runs and would remove it; the MachineSet its scaleTargetRef names is gone,
	// which its finalize step fails on.
	d.remover(f, "deployments.apps/cluster-autoscaler-operator -n openshift-cluster-api", true)
	d.names(f, "machinesets.cluster.k8s.io/worker-us-east-1a -n openshift-cluster-api")
	// Nothing is left to clean on a MachineSet that is gone: the strip is the way out, first;
	// making the MachineSet again would provision machines to undo labels on them.
	d.firstFix(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
