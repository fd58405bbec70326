package whyterminating_test

import "testing"

// Report: https://github.com/piraeusdatastore/piraeus-operator/issues/402
// ("linstor-operator-piraeus-cs LinstorController stuck while trying to remove"): an install of
// the Piraeus operator (chart v1, release linstor-operator, namespace linstor-system, from
// Rancher) failed; the app was uninstalled and its namespace deleted, and the namespace stays
// Terminating: "Some content in the namespace has finalizers remaining:
// finalizer.linstor-controller.linbit.com in 1 resource instances,
// piraeus.linbit.com/protect-master-passphrase in 1 resource instances". The LinstorController's
// finalizer is the operator's (it unregisters the controller from LINSTOR first; its status:
// "failed to contact controller"), and the operator went with the uninstall. The passphrase
// Secret's finalizer is removed by no controller at all: piraeus-operator#284 added it "that is
// only removed by manual intervention by the user", because deleting the passphrase makes LINSTOR
// unusable on the next install ("back up the passphrase ... remove the finalizer blocking
// deletion"). The way out for both: remove the finalizers by hand (the operator cannot be
// reinstalled into a namespace being deleted), the Secret's after backing up its passphrase.
//
// Modelled on the chart (charts/piraeus, v1.10): the CRDs of piraeus.linbit.com that Helm keeps;
// the namespace with what the uninstall left: the LinstorController the chart made
// (linstor-operator-piraeus-cs, with the status the report shows) and the passphrase Secret
// (linstor-operator-passphrase, kept by the chart's resource policy, its finalizer as #284
// sets it). Nothing of the operator runs.
func TestCorpusPiraeusNamespaceHeldByItsControllerAndPassphrase(t *testing.T) {
	replay{
		crds: []crd{
			{group: "piraeus.linbit.com", kind: "LinstorController", plural: "linstorcontrollers", namespaced: true, versions: []string{"v1"}},
			{group: "piraeus.linbit.com", kind: "LinstorSatelliteSet", plural: "linstorsatellitesets", namespaced: true, versions: []string{"v1"}},
			{group: "piraeus.linbit.com", kind: "LinstorCSIDriver", plural: "linstorcsidrivers", namespaced: true, versions: []string{"v1"}},
		},
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: linstor-system
---
apiVersion: v1
kind: Secret
metadata:
  name: linstor-operator-passphrase
  namespace: linstor-system
  annotations:
    helm.sh/resource-policy: keep
    meta.helm.sh/release-name: linstor-operator
    meta.helm.sh/release-namespace: linstor-system
  finalizers:
  - piraeus.linbit.com/protect-master-passphrase
type: Opaque
data:
  MASTER_PASSPHRASE: c3VwZXJzZWNyZXRwYXNzcGhyYXNl
---
apiVersion: piraeus.linbit.com/v1
kind: LinstorController
metadata:
  name: linstor-operator-piraeus-cs
  namespace: linstor-system
  labels:
    app.kubernetes.io/managed-by: Helm
  annotations:
    meta.helm.sh/release-name: linstor-operator
    meta.helm.sh/release-namespace: linstor-system
  finalizers:
  - finalizer.linstor-controller.linbit.com
spec:
  controllerImage: quay.io/piraeusdatastore/piraeus-server:v1.20.2
  dbConnectionURL: k8s
  luksSecret: linstor-operator-passphrase
  priorityClassName: ""
  sslSecret: ""
status:
  ControllerProperties: {}
  ControllerStatus:
    nodeName: ""
    registeredOnController: false
  SatelliteStatuses: []
  errors:
  - 'temporary error: timeout=10000000000, error=failed to contact controller: Get "http://linstor-operator-piraeus-cs.linstor-system.svc:3370/v1/controller/version": dial tcp 10.43.67.84:3370: connect: network is unreachable'
`,
		deletes: []string{"Namespace//linstor-system"},
	}.run(t)

	d := diagnose(t, "namespace", "linstor-system")
	d.exit(1, "STUCK")
	lc := d.finalizer("linstorcontrollers.piraeus.linbit.com/linstor-operator-piraeus-cs -n linstor-system", "finalizer.linstor-controller.linbit.com")
	// The operator went with the uninstall and cannot come back into a namespace being deleted.
	d.noRunningRemover(lc)
	d.verdict(lc, controllerAbsent)
	d.offers(lc, stripFinalizer)
	d.never(lc, readLogs)
	pass := d.finalizer("secrets/linstor-operator-passphrase -n linstor-system", "piraeus.linbit.com/protect-master-passphrase")
	// No controller removes this one, by design: remove it by hand, once the passphrase is
	// backed up (the strip's cost says what is lost); never "bring a controller back".
	d.noRunningRemover(pass)
	d.offers(pass, stripFinalizer)
	d.never(pass, readLogs, restoreController)
	d.stripCosts(pass, "passphrase")
}
