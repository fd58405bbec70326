package whyterminating_test

import "testing"

// Report: https://github.com/shipwright-io/operator/issues/70 ("Cannot delete ShipwrightBuild
// object if operator was removed"): the Shipwright operator (v0.9.0, installed from
// OperatorHub) is removed after a ShipwrightBuild was created; "ShipwrightBuild objects remain
// (along with their related deployment of the Build controller)" and cannot be deleted, because
// of the finalizer the operator put on them, which only it removes, after deleting what it
// deployed. The way out: install the operator again so that it finalizes the object (and
// uninstalls the Build controller), or remove the finalizer by hand, and then the Build
// controller it deployed yourself.
//
// Modelled on the operator's bundle (installed by OLM into namespace operators, for all
// namespaces; removing the operator took its Deployment, ServiceAccount and RBAC, and left the
// namespace and the CRD) and on what it deployed for the ShipwrightBuild from its kodata
// release.yaml: namespace shipwright-build with the Deployment shipwright-build-controller, its
// ServiceAccount, the ClusterRole shipwright-build-controller with its rules on shipwright.io
// and its binding, with no owner references back to the ShipwrightBuild.
func TestCorpusShipwrightBuildAfterOperatorRemoved(t *testing.T) {
	replay{
		crds: []crd{
			{group: "operator.shipwright.io", kind: "ShipwrightBuild", plural: "shipwrightbuilds", versions: []string{"v1alpha1"}},
			{group: "shipwright.io", kind: "Build", plural: "builds", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "shipwright.io", kind: "BuildRun", plural: "buildruns", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "shipwright.io", kind: "ClusterBuildStrategy", plural: "clusterbuildstrategies", versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: operators
---
apiVersion: v1
kind: Namespace
metadata:
  name: shipwright-build
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: shipwright-build-controller
  namespace: shipwright-build
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: shipwright-build-controller
rules:
- apiGroups: ["shipwright.io"]
  resources: ["buildruns"]
  verbs: ["get", "list", "watch", "update", "delete"]
- apiGroups: ["shipwright.io"]
  resources: ["buildruns/finalizers"]
  verbs: ["update"]
- apiGroups: ["shipwright.io"]
  resources: ["buildruns/status"]
  verbs: ["update"]
- apiGroups: ["shipwright.io"]
  resources: ["builds"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["shipwright.io"]
  resources: ["builds/finalizers"]
  verbs: ["update"]
- apiGroups: ["shipwright.io"]
  resources: ["builds/status"]
  verbs: ["update"]
- apiGroups: ["shipwright.io"]
  resources: ["buildstrategies", "clusterbuildstrategies"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["tekton.dev"]
  resources: ["taskruns"]
  verbs: ["get", "list", "watch", "create", "delete", "patch"]
- apiGroups: [""]
  resources: ["pods", "secrets"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["serviceaccounts"]
  verbs: ["get", "list", "watch", "create", "update", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: shipwright-build-controller
subjects:
- kind: ServiceAccount
  name: shipwright-build-controller
  namespace: shipwright-build
roleRef:
  kind: ClusterRole
  name: shipwright-build-controller
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shipwright-build-controller
  namespace: shipwright-build
spec:
  replicas: 1
  selector:
    matchLabels:
      name: shipwright-build
  template:
    metadata:
      labels:
        name: shipwright-build
    spec:
      serviceAccountName: shipwright-build-controller
      containers:
      - name: shipwright-build
        image: ghcr.io/shipwright-io/build/shipwright-build-controller:v0.9.0
        env:
        - name: CONTROLLER_NAME
          value: shipwright-build
`,
		objects: `
apiVersion: operator.shipwright.io/v1alpha1
kind: ShipwrightBuild
metadata:
  name: shipwright-build
  finalizers:
  - finalizer.operator.shipwright.io
spec:
  targetNamespace: shipwright-build
status:
  conditions:
  - type: Ready
    status: "True"
    reason: Ready
    message: Reconciled ShipwrightBuild successfully
    lastTransitionTime: "2022-04-27T15:02:44Z"
`,
		deletes: []string{"ShipwrightBuild//shipwright-build"},
	}.run(t)

	d := diagnose(t, "shipwrightbuilds.operator.shipwright.io", "shipwright-build")
	d.exit(1, "STUCK")
	f := d.finalizer("shipwrightbuilds.operator.shipwright.io/shipwright-build", "finalizer.operator.shipwright.io")
	// Nothing of the operator runs; the Build controller it deployed runs but acts on
	// shipwright.io, not on the operator's objects. The operator can come back (its namespace is
	// not being deleted); the strip is the way out for whoever removes what it deployed by hand,
	// and it leaves the Build controller running.
	d.verdict(f, controllerAbsent)
	d.noRunningRemover(f)
	d.notRemover(f, "deployments.apps/shipwright-build-controller -n shipwright-build")
	d.firstFix(f, reinstall, restoreController)
	d.offers(f, stripFinalizer)
	d.stripCosts(f, "deployments.apps/shipwright-build-controller -n shipwright-build")
}
