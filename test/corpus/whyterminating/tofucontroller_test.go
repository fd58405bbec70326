package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/flux-iac/tofu-controller/issues/300 ("Hanging deletion after
// creating Terraform resource in namespace without ServiceAccount"): a Terraform object is
// created in namespace default, where the runner's ServiceAccount tf-runner (the default of its
// spec.serviceAccountName) does not exist; the chart makes it only in the controller's own
// namespace. Deleting the object hangs: the controller (v0.12.0-rc.1) runs, but every attempt
// to start the runner pod fails ("error looking up service account default/tf-runner:
// serviceaccount \"tf-runner\" not found"), so the finalizer finalizers.tf.contrib.fluxcd.io is
// never removed. The thread: remove the finalizer by hand, or give the namespace the runner's
// ServiceAccount (the chart's runner.serviceAccount.allowedNamespaces came of it) so that the
// runner can do its cleanup.
//
// Modelled on the chart tf-controller 0.5.0 (appVersion v0.12.0-rc.1) as Flux installs it in
// flux-system: the Deployment tf-controller with its labels and image, its ServiceAccount bound
// to cluster-admin (tf-cluster-reconciler) and to tf-manager-role (its rules on
// infra.contrib.fluxcd.io), the runner's ServiceAccount tf-runner with tf-runner-role, in
// flux-system only; and on Flux itself, which runs beside it (source-controller and
// kustomize-controller, the latter bound to cluster-admin as Flux installs it), with the
// GitRepository the Terraform object reads.
func TestCorpusTofuControllerRunnerServiceAccountMissing(t *testing.T) {
	flux := map[string]string{"app.kubernetes.io/instance": "flux-system", "app.kubernetes.io/part-of": "flux", "app.kubernetes.io/version": "v0.32.0"}
	replay{
		crds: []crd{
			{group: "infra.contrib.fluxcd.io", kind: "Terraform", plural: "terraforms", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "source.toolkit.fluxcd.io", kind: "GitRepository", plural: "gitrepositories", namespaced: true, versions: []string{"v1beta2"}, labels: flux},
			{group: "kustomize.toolkit.fluxcd.io", kind: "Kustomization", plural: "kustomizations", namespaced: true, versions: []string{"v1beta2"}, labels: flux},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: flux-system
  labels:
    app.kubernetes.io/instance: flux-system
    app.kubernetes.io/part-of: flux
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: source-controller
  namespace: flux-system
  labels:
    app.kubernetes.io/instance: flux-system
    app.kubernetes.io/part-of: flux
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kustomize-controller
  namespace: flux-system
  labels:
    app.kubernetes.io/instance: flux-system
    app.kubernetes.io/part-of: flux
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: crd-controller-flux-system
  labels:
    app.kubernetes.io/instance: flux-system
    app.kubernetes.io/part-of: flux
rules:
- apiGroups: ["source.toolkit.fluxcd.io", "kustomize.toolkit.fluxcd.io"]
  resources: ["*"]
  verbs: ["*"]
- apiGroups: [""]
  resources: ["namespaces", "secrets", "configmaps", "serviceaccounts"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: crd-controller-flux-system
  labels:
    app.kubernetes.io/instance: flux-system
    app.kubernetes.io/part-of: flux
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: crd-controller-flux-system
subjects:
- kind: ServiceAccount
  name: kustomize-controller
  namespace: flux-system
- kind: ServiceAccount
  name: source-controller
  namespace: flux-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: cluster-reconciler-flux-system
  labels:
    app.kubernetes.io/instance: flux-system
    app.kubernetes.io/part-of: flux
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-admin
subjects:
- kind: ServiceAccount
  name: kustomize-controller
  namespace: flux-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: source-controller
  namespace: flux-system
  labels:
    app.kubernetes.io/instance: flux-system
    app.kubernetes.io/part-of: flux
    app.kubernetes.io/version: v0.32.0
    control-plane: controller
spec:
  replicas: 1
  selector:
    matchLabels:
      app: source-controller
  template:
    metadata:
      labels:
        app: source-controller
    spec:
      serviceAccountName: source-controller
      containers:
      - name: manager
        image: ghcr.io/fluxcd/source-controller:v0.26.1
        args: ["--events-addr=http://notification-controller.flux-system.svc.cluster.local./", "--watch-all-namespaces=true", "--storage-path=/data"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kustomize-controller
  namespace: flux-system
  labels:
    app.kubernetes.io/instance: flux-system
    app.kubernetes.io/part-of: flux
    app.kubernetes.io/version: v0.32.0
    control-plane: controller
spec:
  replicas: 1
  selector:
    matchLabels:
      app: kustomize-controller
  template:
    metadata:
      labels:
        app: kustomize-controller
    spec:
      serviceAccountName: kustomize-controller
      containers:
      - name: manager
        image: ghcr.io/fluxcd/kustomize-controller:v0.27.1
        args: ["--events-addr=http://notification-controller.flux-system.svc.cluster.local./", "--watch-all-namespaces=true"]
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: tf-controller
  namespace: flux-system
  labels:
    helm.sh/chart: tf-controller-0.5.0
    app.kubernetes.io/name: tf-controller
    app.kubernetes.io/instance: tf-controller
    app.kubernetes.io/version: "v0.12.0-rc.1"
    app.kubernetes.io/managed-by: Helm
    control-plane: controller
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: tf-runner
  namespace: flux-system
  labels:
    helm.sh/chart: tf-controller-0.5.0
    app.kubernetes.io/name: tf-controller
    app.kubernetes.io/instance: tf-controller
    app.kubernetes.io/version: "v0.12.0-rc.1"
    app.kubernetes.io/managed-by: Helm
    control-plane: controller
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: tf-manager-role
rules:
- apiGroups: [""]
  resources: ["configmaps", "secrets", "serviceaccounts"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: ["infra.contrib.fluxcd.io"]
  resources: ["terraforms"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["infra.contrib.fluxcd.io"]
  resources: ["terraforms/finalizers"]
  verbs: ["create", "delete", "get", "patch", "update"]
- apiGroups: ["infra.contrib.fluxcd.io"]
  resources: ["terraforms/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["source.toolkit.fluxcd.io"]
  resources: ["buckets", "gitrepositories", "ocirepositories"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["source.toolkit.fluxcd.io"]
  resources: ["buckets/status", "gitrepositories/status", "ocirepositories/status"]
  verbs: ["get"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: tf-runner-role
rules:
- apiGroups: [""]
  resources: ["configmaps", "secrets"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: tf-cluster-reconciler
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-admin
subjects:
- kind: ServiceAccount
  name: tf-controller
  namespace: flux-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: tf-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: tf-manager-role
subjects:
- kind: ServiceAccount
  name: tf-controller
  namespace: flux-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: tf-runner-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: tf-runner-role
subjects:
- kind: ServiceAccount
  name: tf-runner
  namespace: flux-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: tf-controller
  namespace: flux-system
  labels:
    helm.sh/chart: tf-controller-0.5.0
    app.kubernetes.io/name: tf-controller
    app.kubernetes.io/instance: tf-controller
    app.kubernetes.io/version: "v0.12.0-rc.1"
    app.kubernetes.io/managed-by: Helm
    control-plane: controller
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: tf-controller
      app.kubernetes.io/instance: tf-controller
  template:
    metadata:
      labels:
        app.kubernetes.io/name: tf-controller
        app.kubernetes.io/instance: tf-controller
    spec:
      serviceAccountName: tf-controller
      containers:
      - name: manager
        image: ghcr.io/weaveworks/tf-controller:v0.12.0-rc.1
        command: ["/sbin/tini", "--", "tf-controller"]
        args: ["--watch-all-namespaces", "--log-level=info", "--log-encoding=json", "--enable-leader-election", "--concurrent=24", "--runner-creation-timeout=5m0s"]
        env:
        - name: RUNNER_POD_IMAGE
          value: ghcr.io/weaveworks/tf-runner:v0.12.0-rc.1
`,
		objects: `
apiVersion: source.toolkit.fluxcd.io/v1beta2
kind: GitRepository
metadata:
  name: helloworld
  namespace: flux-system
spec:
  interval: 30s
  url: https://github.com/tf-controller/helloworld
  ref:
    branch: main
status:
  artifact:
    path: gitrepository/flux-system/helloworld/6f1c1b9.tar.gz
    revision: main/6f1c1b9
  conditions:
  - type: Ready
    status: "True"
    reason: Succeeded
    message: "stored artifact for revision 'main/6f1c1b9'"
    lastTransitionTime: "2022-08-16T14:40:02Z"
---
apiVersion: infra.contrib.fluxcd.io/v1alpha1
kind: Terraform
metadata:
  name: vpc
  namespace: default
  finalizers:
  - finalizers.tf.contrib.fluxcd.io
spec:
  interval: 1m
  approvePlan: auto
  path: ./
  serviceAccountName: tf-runner
  sourceRef:
    kind: GitRepository
    name: helloworld
    namespace: flux-system
status:
  conditions:
  - type: Ready
    status: Unknown
    reason: Progressing
    message: Initializing
    lastTransitionTime: "2022-08-16T14:52:11Z"
`,
		deletes: []string{"Terraform/default/vpc"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "terraforms.infra.contrib.fluxcd.io", "vpc", "-n", "default")
	d.exit(1, "STUCK")
	f := d.finalizer("terraforms.infra.contrib.fluxcd.io/vpc -n default", "finalizers.tf.contrib.fluxcd.io")
	// tf-controller runs and is the remover (Flux's controllers, cluster-admin as well, act on
	// toolkit.fluxcd.io, not on its group). What it cannot get past is the runner's
	// ServiceAccount, which the object's spec.serviceAccountName names and which does not exist
	// in its namespace: named, with restoring it or the strip as the way out, never a reinstall.
	d.remover(f, "deployments.apps/tf-controller -n flux-system", true)
	d.notRemover(f, "deployments.apps/kustomize-controller -n flux-system")
	d.names(f, "serviceaccounts/tf-runner -n default")
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
