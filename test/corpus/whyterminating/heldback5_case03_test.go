package whyterminating_test

import "testing"

// Report: https://github.com/kube-logging/logging-operator/issues/1859 ("Remove resource
// finalizers before terminating operator"): a Helm chart installs the Logging Operator as a
// dependency with a (cluster-scoped) Logging and a SyslogNGConfig; the operator puts
// syslogngconfig.logging.banzaicloud.io/finalizer on the Logging while a SyslogNGConfig uses
// it. `helm uninstall` deletes everything in no particular order: the operator, its RBAC and
// the SyslogNGConfig went, and the Logging stayed deleted with the finalizer nothing will
// remove. Resolved by https://github.com/kube-logging/logging-operator/pull/1873 (an opt-in
// -finalizer-cleanup with the RBAC kept on delete); for the Logging already stuck, the
// finalizer comes off by hand: the SyslogNGConfig it guarded is gone already.
//
// Modelled on the chart charts/logging-operator (4.x) as the uninstall leaves it: the release
// namespace logging stays Active, the operator's Deployment, ServiceAccount, ClusterRole and
// ClusterRoleBinding are gone, the CRDs of logging.banzaicloud.io stay (Helm keeps CRDs).
func TestCorpusLoggingHeldAfterOperatorUninstall(t *testing.T) {
	chart := map[string]string{"app.kubernetes.io/name": "logging-operator", "app.kubernetes.io/managed-by": "Helm"}
	replay{
		crds: []crd{
			{group: "logging.banzaicloud.io", kind: "Logging", plural: "loggings", versions: []string{"v1beta1"}, labels: chart},
			{group: "logging.banzaicloud.io", kind: "SyslogNGConfig", plural: "syslogngconfigs", namespaced: true, versions: []string{"v1beta1"}, labels: chart},
			{group: "logging.banzaicloud.io", kind: "FluentbitAgent", plural: "fluentbitagents", versions: []string{"v1beta1"}, labels: chart},
			{group: "logging.banzaicloud.io", kind: "SyslogNGClusterFlow", plural: "syslogngclusterflows", namespaced: true, versions: []string{"v1beta1"}, labels: chart},
		},
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: logging
---
apiVersion: logging.banzaicloud.io/v1beta1
kind: Logging
metadata:
  name: dev-cluster-logging-agent
  finalizers:
  - syslogngconfig.logging.banzaicloud.io/finalizer
  labels:
    app.kubernetes.io/instance: dev-cluster-logging
    app.kubernetes.io/managed-by: Helm
    app.kubernetes.io/name: dev-cluster-logging
    app.kubernetes.io/version: 0.2.4
    helm.sh/chart: mbgp-cluster-logging-0.1.0
  annotations:
    fluentbit.io/exclude: "true"
    meta.helm.sh/release-name: dev-cluster-logging
    meta.helm.sh/release-namespace: logging
spec:
  clusterDomain: cluster.local.
  configCheck:
    timeoutSeconds: 60
  controlNamespace: logging
  syslogNG: {}
`,
		deletes: []string{"Logging//dev-cluster-logging-agent"},
	}.run(t)

	d := diagnose(t, "loggings.logging.banzaicloud.io", "dev-cluster-logging-agent")
	d.exit(1, "STUCK")
	f := d.finalizer("loggings.logging.banzaicloud.io/dev-cluster-logging-agent", "syslogngconfig.logging.banzaicloud.io/finalizer")
	// Nothing that runs can remove it, and no SyslogNGConfig is left for it to guard: the
	// strip is the way out, not the logs of an operator that is gone.
	d.verdict(f, controllerAbsent, finalizerOrphaned)
	d.noRunningRemover(f)
	d.never(f, readLogs)
	d.offers(f, stripFinalizer)
}
