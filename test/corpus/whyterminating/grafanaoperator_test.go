package whyterminating_test

import "testing"

// Report: https://github.com/grafana/grafana-operator/issues/79 ("OpenShift 3.11 Projects with
// Grafana Operator and related CRs get stuck in Terminating"): the operator runs in the project
// with a Grafana, GrafanaDashboards and GrafanaDataSources; deleting the project deletes the
// operator with everything else, and the dashboards and data sources keep their finalizer
// grafana.cleanup ("Dashboards and DataSources objects both have finalizers, while Grafana does
// not"), which only the operator removes. Nothing that runs can remove it, the operator cannot
// come back into a namespace that refuses new content, and the Grafana it would have cleaned
// is gone with the project: the way out is to remove the finalizer by hand.
//
// Modelled on the operator's deploy/ manifests of the v3 era (integreatly.org/v1alpha1 CRDs
// grafanas, grafanadashboards, grafanadatasources; the operator's ServiceAccount, Role,
// RoleBinding and Deployment all namespaced in the project, hence gone with it).
func TestCorpusGrafanaOperatorDeletedWithItsProject(t *testing.T) {
	replay{
		crds: []crd{
			{group: "integreatly.org", kind: "Grafana", plural: "grafanas", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "integreatly.org", kind: "GrafanaDashboard", plural: "grafanadashboards", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "integreatly.org", kind: "GrafanaDataSource", plural: "grafanadatasources", namespaced: true, versions: []string{"v1alpha1"}},
		},
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: jorge-prom
---
apiVersion: integreatly.org/v1alpha1
kind: GrafanaDataSource
metadata:
  name: prometheus-ds
  namespace: jorge-prom
  finalizers:
  - grafana.cleanup
spec:
  name: prometheus-ds.yaml
  datasources:
  - name: Prometheus
    type: prometheus
    access: proxy
    url: http://prometheus-operated:9090
    isDefault: true
    editable: true
    version: 1
---
apiVersion: integreatly.org/v1alpha1
kind: GrafanaDashboard
metadata:
  name: simple-dashboard
  namespace: jorge-prom
  finalizers:
  - grafana.cleanup
  labels:
    app: grafana
spec:
  name: simple-dashboard.json
  json: '{"title":"Simple Dashboard","panels":[]}'
`,
		deletes: []string{"Namespace//jorge-prom"},
	}.run(t)

	d := diagnose(t, "namespace", "jorge-prom")
	d.exit(1, "STUCK")
	for _, ref := range []string{"grafanadatasources.integreatly.org/prometheus-ds -n jorge-prom", "grafanadashboards.integreatly.org/simple-dashboard -n jorge-prom"} {
		f := d.finalizer(ref, "grafana.cleanup")
		d.verdict(f, controllerAbsent, finalizerOrphaned)
		d.noRunningRemover(f)
		d.never(f, readLogs, reinstall)
		d.offers(f, stripFinalizer)
	}
}
