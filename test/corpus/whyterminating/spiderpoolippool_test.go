package whyterminating_test

import "testing"

// Report: https://github.com/spidernet-io/spiderpool/issues/798 ("uninstall spiderpool
// plugin, old pool cannot be deleted"): Spiderpool was uninstalled with Helm while the IPPool aaa
// existed; the pool stays, and deleting it hangs on the finalizer spiderpool.spidernet.io that
// only spiderpool-controller removes. The maintainer: "Due to the existence of the finalizer of
// SpiderSubnet and SpiderIPPool resources, the CRDs and CRs related to Spiderpool cannot be
// properly uninstalled when helm uninstall spiderpool is executed. You can use
// tools/scripts/cleanCRD.sh": the script removes the finalizers by hand.
//
// Modelled on the spiderpool chart (v0.2, the release of the report): Helm uninstall removed the
// controller's Deployment, the agent's DaemonSet, their ServiceAccounts and RBAC and the
// webhook, and kept the chart's crds/ (spiderpool.spidernet.io, unlabelled); nothing of the
// product runs. The IPPool is the report's, with the fields of the v1 API.
func TestCorpusSpiderpoolIPPoolAfterHelmUninstall(t *testing.T) {
	replay{
		crds: []crd{
			{group: "spiderpool.spidernet.io", kind: "SpiderIPPool", plural: "spiderippools", versions: []string{"v1"}},
			{group: "spiderpool.spidernet.io", kind: "SpiderSubnet", plural: "spidersubnets", versions: []string{"v1"}},
			{group: "spiderpool.spidernet.io", kind: "SpiderEndpoint", plural: "spiderendpoints", namespaced: true, versions: []string{"v1"}},
			{group: "spiderpool.spidernet.io", kind: "SpiderReservedIP", plural: "spiderreservedips", versions: []string{"v1"}},
		},
		objects: `
apiVersion: spiderpool.spidernet.io/v1
kind: SpiderIPPool
metadata:
  name: aaa
  finalizers:
  - spiderpool.spidernet.io
spec:
  ipVersion: 4
  subnet: 172.18.40.0/24
  ips:
  - 172.18.40.40-172.18.40.50
  gateway: 172.18.40.1
status:
  allocatedIPCount: 0
  totalIPCount: 11
`,
		deletes: []string{"SpiderIPPool//aaa"},
	}.run(t)

	d := diagnose(t, "spiderippools.spiderpool.spidernet.io", "aaa")
	d.exit(1, "STUCK")
	f := d.finalizer("spiderippools.spiderpool.spidernet.io/aaa", "spiderpool.spidernet.io")
	// Nothing of Spiderpool runs: its controller is gone, and the strip is the way out (the
	// pool holds no allocation); reinstalling would finalize too.
	d.verdict(f, controllerAbsent)
	d.noRunningRemover(f)
	d.offers(f, stripFinalizer)
	d.never(f, readLogs)
}
