package whyterminating_test

import "testing"

// Report: https://github.com/kubescape/kubescape/issues/1571: after the Kubescape operator's
// Helm chart was uninstalled, its namespace kubescape stayed Terminating for 20 days, and every
// kubectl call printed "couldn't get resource list for spdx.softwarecomposition.kubescape.io/
// v1beta1: the server is currently unable to handle the request". The maintainer's first
// question: "make sure the storage pod is running" — the aggregated API behind that group is
// Kubescape's storage server, uninstalled; the APIService registering it stayed. The namespace
// controller must discover every group before it can empty a namespace, so it never finishes.
// What frees it: removing the APIService whose backend is gone for good (the reporters
// cleared the namespace's own finalizer by hand, which strands whatever the API held).
//
// Modelled on the chart kubescape/helm-charts charts/kubescape-operator (1.16 era): the
// APIService v1beta1.spdx.softwarecomposition.kubescape.io served by the Service storage in
// namespace kubescape, with the chart's labels; the Deployment storage, its Service, the
// ServiceAccount and the rest of the namespace's content are gone with the uninstall.
func TestCorpusKubescapeStorageAPIServiceAfterUninstall(t *testing.T) {
	chart := map[string]string{"app.kubernetes.io/name": "kubescape-operator", "app.kubernetes.io/instance": "kubescape", "app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "kubescape-operator-1.16.2"}
	replay{
		crds: []crd{{group: "kubescape.io", kind: "RuntimeRuleAlertBinding", plural: "runtimerulealertbindings", versions: []string{"v1"}, labels: chart}},
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: kubescape
  labels:
    kubernetes.io/metadata.name: kubescape
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: ks-cloud-config
  namespace: kubescape
  labels:
    app.kubernetes.io/instance: kubescape
data:
  clusterData: '{"clusterName":"prod-eu-1"}'
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1beta1.spdx.softwarecomposition.kubescape.io
  labels:
    app.kubernetes.io/name: storage
    app.kubernetes.io/instance: kubescape
    app.kubernetes.io/component: apiserver
    app.kubernetes.io/part-of: kubescape-storage
spec:
  group: spdx.softwarecomposition.kubescape.io
  version: v1beta1
  groupPriorityMinimum: 1000
  versionPriority: 15
  insecureSkipTLSVerify: true
  service:
    name: storage
    namespace: kubescape
    port: 443
`,
		deletes: []string{"Namespace//kubescape"},
	}.run(t)

	d := diagnose(t, "namespace", "kubescape")
	d.exit(1, "STUCK")
	f := d.finalizer("namespaces/kubescape", "kubernetes")
	d.blocker(f, "apiservices.apiregistration.k8s.io/v1beta1.spdx.softwarecomposition.kubescape.io", "apiservice-unavailable")
	// The storage server is uninstalled, not down for a while: removing its APIService is the
	// fix, and the namespace's own finalizer is never stripped first.
	d.firstFix(f, deleteAPIService)
	d.notFirstFix(f, stripFinalizer)
	d.names(f, "services/storage -n kubescape")
}
