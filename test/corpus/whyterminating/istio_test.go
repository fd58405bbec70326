package whyterminating_test

import "testing"

// Report: https://github.com/Azure/AKS/issues/733 (comment by caruccio, 2020-07-06: Istio's
// istio-system stuck Terminating): the namespace is held by istiooperators.install.istio.io/installed-state,
// whose istio-finalizer.install.istio.io stayed because "istio operator was removed before the
// istiooperator.install.istio.io object"; removing the finalizer by hand let the object and
// then the namespace go.
//
// Modelled on Istio 1.6's operator install (istio/istio manifests/charts/istio-operator:
// the IstioOperator CRD, install.istio.io/v1alpha1), as the report leaves it: the operator's
// namespace, Deployment and RBAC removed, the CRD and the object kept.
func TestCorpusIstioOperatorRemovedFirst(t *testing.T) {
	replay{
		crds: []crd{{group: "install.istio.io", kind: "IstioOperator", plural: "istiooperators", namespaced: true, versions: []string{"v1alpha1"},
			labels: map[string]string{"release": "istio"}}},
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: istio-system
  labels:
    istio-injection: disabled
---
apiVersion: install.istio.io/v1alpha1
kind: IstioOperator
metadata:
  name: installed-state
  namespace: istio-system
  finalizers:
  - istio-finalizer.install.istio.io
spec:
  profile: default
status:
  status: HEALTHY
`,
		deletes: []string{"Namespace//istio-system"},
	}.run(t)

	d := diagnose(t, "namespace", "istio-system")
	d.exit(1, "STUCK")
	f := d.finalizer("istiooperators.install.istio.io/installed-state -n istio-system", "istio-finalizer.install.istio.io")
	d.verdict(f, controllerAbsent)
	d.noRunningRemover(f)
	d.offers(f, stripFinalizer)
}
