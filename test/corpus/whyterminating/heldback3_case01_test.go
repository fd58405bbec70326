package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/NetApp/trident/issues/331 ("Cannot delete trident namespace",
// Trident 19.10.0 on minikube): "After running `tridentctl uninstall -n trident`, I tried to
// delete trident namespace, but it failed due to finalizers of Trident custom resources": the
// TridentVersion trident and the TridentNode of the node stay, each with finalizer
// trident.netapp.io, which only Trident itself removes; the uninstaller had removed Trident (its
// Deployment, DaemonSet, RBAC, service account) and kept its CRDs and custom resources. Nothing
// that runs can remove those finalizers, and Trident cannot be installed again into the
// namespace being deleted; the way out is to remove them by hand (`tridentctl obliviate crd`
// does the same for every Trident resource), which loses nothing the uninstall had not already
// given up.
//
// Modelled on what `tridentctl uninstall` of 19.10 leaves: the CRDs of trident.netapp.io, the
// namespace trident with the TridentVersion and the TridentNode of the replay's node worker-1
// (the report's minikube); no Trident workload, no ClusterRole.
func TestCorpusTridentCustomResourcesAfterUninstall(t *testing.T) {
	replay{
		crds: []crd{
			{group: "trident.netapp.io", kind: "TridentVersion", plural: "tridentversions", namespaced: true, versions: []string{"v1"}},
			{group: "trident.netapp.io", kind: "TridentNode", plural: "tridentnodes", namespaced: true, versions: []string{"v1"}},
			{group: "trident.netapp.io", kind: "TridentBackend", plural: "tridentbackends", namespaced: true, versions: []string{"v1"}},
			{group: "trident.netapp.io", kind: "TridentStorageClass", plural: "tridentstorageclasses", namespaced: true, versions: []string{"v1"}},
			{group: "trident.netapp.io", kind: "TridentVolume", plural: "tridentvolumes", namespaced: true, versions: []string{"v1"}},
			{group: "trident.netapp.io", kind: "TridentTransaction", plural: "tridenttransactions", namespaced: true, versions: []string{"v1"}},
			{group: "trident.netapp.io", kind: "TridentSnapshot", plural: "tridentsnapshots", namespaced: true, versions: []string{"v1"}},
		},
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: trident
---
apiVersion: trident.netapp.io/v1
kind: TridentVersion
metadata:
  name: trident
  namespace: trident
  finalizers:
  - trident.netapp.io
trident_version: 19.10.0
trident_api_version: "1"
go_version: go1.12.9
---
apiVersion: trident.netapp.io/v1
kind: TridentNode
metadata:
  name: worker-1
  namespace: trident
  finalizers:
  - trident.netapp.io
name: worker-1
iqn: iqn.1993-08.org.debian:01:8c1f2a7b6d3e
ips:
- 192.168.0.10
`,
		deletes: []string{"Namespace//trident"},
	}.run(t)

	d := diagnoseAfter(t, 25*time.Minute, "namespace", "trident")
	d.exit(1, "STUCK")
	for _, ref := range []string{"tridentversions.trident.netapp.io/trident -n trident", "tridentnodes.trident.netapp.io/worker-1 -n trident"} {
		f := d.finalizer(ref, "trident.netapp.io")
		// Nothing that runs can remove it, and Trident cannot come back into the namespace
		// being deleted: the strip is the way out.
		d.verdict(f, controllerAbsent, finalizerOrphaned)
		d.noRunningRemover(f)
		d.never(f, readLogs)
		d.notFirstFix(f, reinstall)
		d.offers(f, stripFinalizer)
	}
}
