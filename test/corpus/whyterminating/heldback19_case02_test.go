package whyterminating_test

import (
	"testing"
	"time"
)

// Held back in batch 19, run once by the lead (2026-12-03, main 2603bf9): right at first sight.
//
// Report: https://github.com/rekuberate-io/sleepcycles/issues/7 ("Finalizers deadlock on delete or
// upgrade of the controller", the maintainer's own report, open): `make undeploy` deletes
// everything config/default holds — the namespace sleepcycles-system with the Deployment
// sleepcycles-controller-manager, the RBAC and the CRD — while SleepCycles in the application
// namespaces still carry sleepcycle.core.rekuberate.io/finalizer. The controller that removes it is
// deleted first, the SleepCycles stay Terminating, the CRD waits for them, and the undeploy hangs
// until interrupted. Nothing runs that could remove the finalizer; with the product being removed
// on purpose, the way out is to remove the finalizer by hand (or deploy the controller again and
// delete the SleepCycles before undeploying).
//
// Modelled on the kubebuilder layout of the repository (config/default, config/rbac/role.yaml:
// ClusterRole manager-role with sleepcycles, sleepcycles/finalizers and the workloads it scales)
// after `make undeploy`: the namespace sleepcycles-system, its Deployment, ServiceAccount and the
// ClusterRole and binding are gone; the CRD sleepcycles.core.rekuberate.io deleted and waiting.
// In namespace app-2 (the repository's sample): the Deployment app-2 labelled for the SleepCycle,
// and the SleepCycle sleepcycle-app-2 with the controller's finalizer, deleted.
func TestCorpusSleepCycleControllerUndeployedBeforeItsSleepCycles(t *testing.T) {
	replay{
		crds: []crd{
			{group: "core.rekuberate.io", kind: "SleepCycle", plural: "sleepcycles", namespaced: true, versions: []string{"v1alpha1"}},
		},
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: app-2
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-2
  namespace: app-2
  labels: {app: app-2, rekuberate.io/sleepcycle: sleepcycle-app-2}
spec:
  replicas: 2
  selector:
    matchLabels: {app: app-2}
  template:
    metadata:
      labels: {app: app-2}
    spec:
      containers:
      - name: app-2
        image: traefik/whoami
---
apiVersion: core.rekuberate.io/v1alpha1
kind: SleepCycle
metadata:
  name: sleepcycle-app-2
  namespace: app-2
  finalizers: [sleepcycle.core.rekuberate.io/finalizer]
spec:
  shutdown: "*/2 * * * *"
  shutdownTimeZone: Europe/Athens
  wakeup: "*/5 * * * *"
  wakeupTimeZone: Europe/Dublin
  enabled: true
status:
  state: Ready
  targets: 1/1
`,
		deletes: []string{"SleepCycle/app-2/sleepcycle-app-2", "CustomResourceDefinition//sleepcycles.core.rekuberate.io"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "sleepcycles.core.rekuberate.io", "sleepcycle-app-2", "-n", "app-2")
	d.exit(1, "STUCK")
	f := d.finalizer("sleepcycles.core.rekuberate.io/sleepcycle-app-2 -n app-2", "sleepcycle.core.rekuberate.io/finalizer")
	// Its controller was undeployed first: nothing runs that removes it.
	d.verdict(f, controllerAbsent, finalizerOrphaned)
	d.noRunningRemover(f)
	d.offers(f, stripFinalizer)
	d.never(f, restoreController)
}
