package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/hashicorp/consul-helm/issues/646 ("Uninstall CRDs on helm
// uninstall"): Consul was installed with the consul-helm chart (0.26, the first release with
// the controller and its CRDs, release consulbeta in namespace default), a ServiceDefaults was
// created, then the release was uninstalled. Helm deleted the controller with the rest of the
// release and asked for its CRDs to go; they stay, and the next install fails on the existing
// proxydefaults.consul.hashicorp.com. The maintainer: "the CRDs weren't deleted on uninstall,
// most likely because there were some custom resources created": each keeps the controller's
// finalizer finalizers.consul.hashicorp.com, and nothing that removes it runs any more. The way
// out given: find the resources left (`kubectl get servicedefaults`), patch their finalizers away,
// after which the CRDs go; next time delete the custom resources before uninstalling. (Later
// releases' `consul-k8s uninstall` does the same: delete, then patch the finalizers.)
//
// Modelled on what the uninstall leaves: the chart's CRDs of consul.hashicorp.com (templates of
// the release, labelled app: consul, chart, heritage, release), deleted by Helm with the rest of
// the release; nothing of Consul runs (the controller's Deployment, ServiceAccount and RBAC, the
// servers, clients and injector are gone). The ServiceDefaults servicedefaults-sample of the
// thread, Synced, its deletion requested when the CRD's was.
func TestCorpusConsulServiceDefaultsAfterHelmUninstall(t *testing.T) {
	lbl := map[string]string{"app": "consul", "chart": "consul-helm", "heritage": "Helm", "release": "consulbeta"}
	cs := func(kind, plural string) crd {
		return crd{group: "consul.hashicorp.com", kind: kind, plural: plural, namespaced: true, versions: []string{"v1alpha1"}, labels: lbl}
	}
	replay{
		crds: []crd{
			cs("ServiceDefaults", "servicedefaults"),
			cs("ServiceResolver", "serviceresolvers"),
			cs("ServiceRouter", "servicerouters"),
			cs("ServiceSplitter", "servicesplitters"),
			cs("ServiceIntentions", "serviceintentions"),
			cs("ProxyDefaults", "proxydefaults"),
		},
		objects: `
apiVersion: consul.hashicorp.com/v1alpha1
kind: ServiceDefaults
metadata:
  name: servicedefaults-sample
  namespace: default
  finalizers: [finalizers.consul.hashicorp.com]
spec:
  protocol: http
status:
  conditions:
  - type: Synced
    status: "True"
    lastTransitionTime: "2020-10-14T17:02:11Z"
`,
		deletes: []string{"ServiceDefaults/default/servicedefaults-sample",
			"CustomResourceDefinition//servicedefaults.consul.hashicorp.com"},
	}.run(t)

	// Found at the next install, a while after the uninstall.
	d := diagnoseAfter(t, time.Hour, "customresourcedefinitions", "servicedefaults.consul.hashicorp.com")
	d.exit(1, "STUCK")
	f := d.finalizer("servicedefaults.consul.hashicorp.com/servicedefaults-sample -n default", "finalizers.consul.hashicorp.com")
	// Nothing of Consul runs: no remover, and removing the finalizer is the way out given.
	d.noRunningRemover(f)
	d.verdict(f, controllerAbsent, finalizerOrphaned)
	d.offers(f, stripFinalizer)
	// Its own definition is being deleted with nothing of the product running: a reinstall that
	// creates the definition fails until the definition is gone, which waits on this finalizer,
	// so the strip comes first (added after the held-back run, judged WRONG in part for ranking
	// the reinstall first).
	d.firstFix(f, stripFinalizer)
	d.never(f, readLogs)
}
