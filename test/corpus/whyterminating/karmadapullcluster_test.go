package whyterminating_test

import "testing"

// Report: https://github.com/karmada-io/karmada/issues/1847 ("The PULL mode cluster cannot be
// deleted immediately"): member cluster member1, joined in Pull mode (its karmada-agent runs in
// member1 and pulls its Works), is Ready Unknown; `kubectl delete clusters member1` hangs. The
// Cluster keeps its finalizer karmada.io/cluster-controller, and the Works in its execution
// namespace karmada-es-member1 keep karmada.io/execution-controller: "needing to remove manually
// finalizers filed of cluster and all work objects, the cluster can be deleted". The cluster
// controller waits for the execution namespace to be emptied; in Pull mode only member1's agent
// removes the Works' finalizer (after deleting what they applied in member1), and it no longer
// reports. The fix (karmada-io/karmada#3998) removes the Works' finalizers when a Pull-mode cluster
// is not ready; by hand, the same: remove the Works' finalizer (what they applied stays in
// member1), and the cluster controller then finishes on its own.
//
// Modelled on what karmada-apiserver holds after `karmada-agent` registration (v1.1): the CRDs of
// cluster.karmada.io, work.karmada.io and policy.karmada.io, namespaces karmada-system and
// karmada-cluster, the Clusters member1 (Pull, Ready Unknown) and member2 (Push, Ready), and the
// Works of member1's execution namespace as the report lists them. Karmada's controllers run in
// the host cluster and reach this API server with a kubeconfig: no workload runs here. The
// aggregated API server's APIService is left out (its backend would answer in the report's
// cluster; the replay's pods answer nothing).
func TestCorpusKarmadaPullClusterWorksOfAnUnreachableAgent(t *testing.T) {
	replay{
		crds: []crd{
			{group: "cluster.karmada.io", kind: "Cluster", plural: "clusters", versions: []string{"v1alpha1"}},
			{group: "work.karmada.io", kind: "Work", plural: "works", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "work.karmada.io", kind: "ResourceBinding", plural: "resourcebindings", namespaced: true, versions: []string{"v1alpha2", "v1alpha1"}},
			{group: "policy.karmada.io", kind: "PropagationPolicy", plural: "propagationpolicies", namespaced: true, versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: karmada-system
---
apiVersion: v1
kind: Namespace
metadata:
  name: karmada-cluster
`,
		objects: `
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata:
  name: member1
  finalizers:
  - karmada.io/cluster-controller
spec:
  syncMode: Pull
  apiEndpoint: https://172.18.0.5:6443
status:
  kubernetesVersion: v1.22.3
  conditions:
  - type: Ready
    status: Unknown
    reason: ClusterStatusUnknown
    message: Cluster status controller stopped posting cluster status.
    lastTransitionTime: "2022-05-19T08:14:02Z"
---
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata:
  name: member2
  finalizers:
  - karmada.io/cluster-controller
spec:
  syncMode: Push
  apiEndpoint: https://172.18.0.6:6443
  secretRef:
    namespace: karmada-cluster
    name: member2
status:
  kubernetesVersion: v1.19.1
  conditions:
  - type: Ready
    status: "True"
    reason: ClusterReady
    message: cluster is healthy and ready to accept workloads
    lastTransitionTime: "2022-05-06T02:41:10Z"
---
apiVersion: v1
kind: Namespace
metadata:
  name: karmada-es-member1
---
apiVersion: work.karmada.io/v1alpha1
kind: Work
metadata:
  name: nginx-687f7fb96f
  namespace: karmada-es-member1
  labels:
    resourcebinding.karmada.io/namespace: default
    resourcebinding.karmada.io/name: nginx-deployment
  finalizers:
  - karmada.io/execution-controller
spec:
  workload:
    manifests:
    - apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: nginx
        namespace: default
      spec:
        replicas: 2
status:
  conditions:
  - type: Applied
    status: "True"
    reason: AppliedSuccessful
    message: Manifest has been successfully applied
    lastTransitionTime: "2022-05-14T10:20:31Z"
---
apiVersion: work.karmada.io/v1alpha1
kind: Work
metadata:
  name: cert-manager-674b866f4c
  namespace: karmada-es-member1
  finalizers:
  - karmada.io/execution-controller
spec:
  workload:
    manifests:
    - apiVersion: v1
      kind: Namespace
      metadata:
        name: cert-manager
status:
  conditions:
  - type: Applied
    status: "True"
    reason: AppliedSuccessful
    message: Manifest has been successfully applied
    lastTransitionTime: "2022-05-14T10:20:31Z"
`,
		deletes: []string{"Cluster//member1", "Namespace//karmada-es-member1"},
	}.run(t)

	d := diagnose(t, "clusters.cluster.karmada.io", "member1")
	d.exit(1, "STUCK")
	f := d.finalizer("clusters.cluster.karmada.io/member1", "karmada.io/cluster-controller")
	// What the cluster waits for is its execution namespace, held by the Works (explained below
	// it); their finalizer, not the cluster's, is the one to remove.
	d.names(f, "namespaces/karmada-es-member1")
	d.notFirstFix(f, stripFinalizer)
	w := d.finalizer("works.work.karmada.io/nginx-687f7fb96f -n karmada-es-member1", "karmada.io/execution-controller")
	d.noRunningRemover(w)
	d.never(w, readLogs)
	d.offers(w, stripFinalizer)
}
