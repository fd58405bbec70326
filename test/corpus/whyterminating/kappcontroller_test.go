package whyterminating_test

import "testing"

// Report: https://github.com/carvel-dev/kapp-controller/issues/114 ("App gets stuck deleting
// if service account is not created"): kapp-controller runs, but to delete an App it acts as
// the App's spec.serviceAccountName, and that ServiceAccount does not exist (never created, or
// deleted before the App), so finalizers.kapp-ctrl.k14s.io/delete stays; the App's status says
// so. The way out the maintainers give (#114, #71, #416): create the ServiceAccount again so
// the delete can run, or give up on the cleanup (noopDelete, or removing the finalizer by hand,
// which leaves the App's resources behind).
//
// Modelled on kapp-controller's release.yml (v0.20, config/): the CRD apps.kappctrl.k14s.io,
// namespace kapp-controller, ServiceAccount kapp-controller-sa, ClusterRole
// kapp-controller-cluster-role and its binding, Deployment kapp-controller. The aggregated
// packaging API (APIService v1alpha1.data.packaging.carvel.dev) is left out: the replay's pods
// answer no requests.
func TestCorpusKappControllerServiceAccountMissing(t *testing.T) {
	replay{
		crds: []crd{
			{group: "kappctrl.k14s.io", kind: "App", plural: "apps", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "packaging.carvel.dev", kind: "PackageInstall", plural: "packageinstalls", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "packaging.carvel.dev", kind: "PackageRepository", plural: "packagerepositories", namespaced: true, versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: kapp-controller
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kapp-controller-sa
  namespace: kapp-controller
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kapp-controller-cluster-role
rules:
- apiGroups: [""]
  resources: ["serviceaccounts"]
  verbs: ["get"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "list", "watch", "create", "update", "delete"]
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "list", "watch", "create", "update", "delete"]
- apiGroups: ["kappctrl.k14s.io"]
  resources: ["apps", "apps/status"]
  verbs: ["*"]
- apiGroups: ["packaging.carvel.dev"]
  resources: ["packageinstalls", "packageinstalls/status", "packagerepositories", "packagerepositories/status"]
  verbs: ["*"]
- apiGroups: [""]
  resources: ["serviceaccounts/token"]
  verbs: ["create"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kapp-controller-cluster-role-binding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: kapp-controller-cluster-role
subjects:
- kind: ServiceAccount
  name: kapp-controller-sa
  namespace: kapp-controller
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kapp-controller
  namespace: kapp-controller
  annotations:
    kapp-controller.carvel.dev/version: v0.20.0
spec:
  replicas: 1
  selector:
    matchLabels:
      app: kapp-controller
  template:
    metadata:
      labels:
        app: kapp-controller
    spec:
      serviceAccount: kapp-controller-sa
      serviceAccountName: kapp-controller-sa
      containers:
      - name: kapp-controller
        image: ghcr.io/vmware-tanzu/carvel-kapp-controller:v0.20.0
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: my-app
---
apiVersion: kappctrl.k14s.io/v1alpha1
kind: App
metadata:
  name: simple-app
  namespace: my-app
  finalizers:
  - finalizers.kapp-ctrl.k14s.io/delete
spec:
  serviceAccountName: default-ns-sa
  fetch:
  - git:
      url: https://github.com/vmware-tanzu/carvel-simple-app-on-kubernetes
      ref: origin/develop
      subPath: config-step-2-template
  template:
  - ytt: {}
  deploy:
  - kapp: {}
status:
  conditions:
  - type: DeleteFailed
    status: "True"
    message: 'Preparing kapp: Getting service account: serviceaccounts "default-ns-sa" not found'
  consecutiveReconcileFailures: 12
  friendlyDescription: 'Delete failed: Preparing kapp: Getting service account: serviceaccounts "default-ns-sa" not found'
  usefulErrorMessage: 'Preparing kapp: Getting service account: serviceaccounts "default-ns-sa" not found'
`,
		deletes: []string{"App/my-app/simple-app"},
	}.run(t)

	d := diagnose(t, "apps.kappctrl.k14s.io", "simple-app", "-n", "my-app")
	d.exit(1, "STUCK")
	f := d.finalizer("apps.kappctrl.k14s.io/simple-app -n my-app", "finalizers.kapp-ctrl.k14s.io/delete")
	d.remover(f, "deployments.apps/kapp-controller -n kapp-controller", true)
	d.verdict(f, controllerRunning, blockedByObjects)
	// What the delete waits for, as the App's own status names it.
	d.names(f, "serviceaccounts/default-ns-sa -n my-app")
	d.notFirstFix(f, stripFinalizer)
}
