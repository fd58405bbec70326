package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/actions/actions-runner-controller/issues/4093
// ("AutoscalingRunnerSet resource deletion fails indefinitely when a matching secret never
// existed"): an AutoscalingRunnerSet is deployed with spec.githubConfigSecret naming a Secret
// that does not exist; the user notices the wrong name and deletes the resource. Its
// EphemeralRunners got both finalizers on creation; on deletion the controller must remove the
// runner from the GitHub Actions service first, which needs that Secret, so the lookup fails on
// every retry ("EphemeralRunner Failed to clean up runner from service") and the runners, their
// EphemeralRunnerSet and the scale set stay Terminating. The runners never registered (no
// runnerId: a JIT config was never obtained), so there is nothing to remove from the service;
// the proposed fix (#4619) skips that cleanup for them. Until then: create the Secret the runners
// name, or remove their finalizers by hand, which leaves nothing behind.
//
// Modelled on the chart gha-runner-scale-set-controller 0.11.0 (release arc in namespace
// arc-systems: the Deployment arc-gha-rs-controller with its labels and image, its
// ServiceAccount, the ClusterRole arc-gha-rs-controller with its rules on actions.github.com and
// its binding; the CRDs come from the chart's crds/ directory, unlabelled) and on what the
// scale-set chart gha-runner-scale-set made in arc-runners: the AutoscalingRunnerSet, the
// EphemeralRunnerSet it owns and one EphemeralRunner, with the report's names.
func TestCorpusARCEphemeralRunnerOfAMissingConfigSecret(t *testing.T) {
	replay{
		crds: []crd{
			{group: "actions.github.com", kind: "AutoscalingRunnerSet", plural: "autoscalingrunnersets", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "actions.github.com", kind: "EphemeralRunnerSet", plural: "ephemeralrunnersets", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "actions.github.com", kind: "EphemeralRunner", plural: "ephemeralrunners", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "actions.github.com", kind: "AutoscalingListener", plural: "autoscalinglisteners", namespaced: true, versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: arc-systems
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: arc-gha-rs-controller
  namespace: arc-systems
  labels:
    helm.sh/chart: gha-rs-controller-0.11.0
    app.kubernetes.io/name: gha-rs-controller
    app.kubernetes.io/namespace: arc-systems
    app.kubernetes.io/instance: arc
    app.kubernetes.io/version: "0.11.0"
    app.kubernetes.io/part-of: gha-rs-controller
    app.kubernetes.io/managed-by: Helm
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: arc-gha-rs-controller
rules:
- apiGroups: ["actions.github.com"]
  resources: ["autoscalingrunnersets", "autoscalinglisteners", "ephemeralrunnersets", "ephemeralrunners"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["actions.github.com"]
  resources: ["autoscalingrunnersets/finalizers", "autoscalinglisteners/finalizers", "ephemeralrunnersets/finalizers", "ephemeralrunners/finalizers"]
  verbs: ["patch", "update"]
- apiGroups: ["actions.github.com"]
  resources: ["autoscalingrunnersets/status", "autoscalinglisteners/status", "ephemeralrunnersets/status", "ephemeralrunners/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: [""]
  resources: ["pods", "serviceaccounts"]
  verbs: ["list", "watch"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["rolebindings"]
  verbs: ["list", "watch"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["roles"]
  verbs: ["list", "watch", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: arc-gha-rs-controller
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: arc-gha-rs-controller
subjects:
- kind: ServiceAccount
  name: arc-gha-rs-controller
  namespace: arc-systems
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: arc-gha-rs-controller
  namespace: arc-systems
  labels:
    helm.sh/chart: gha-rs-controller-0.11.0
    app.kubernetes.io/name: gha-rs-controller
    app.kubernetes.io/namespace: arc-systems
    app.kubernetes.io/instance: arc
    app.kubernetes.io/version: "0.11.0"
    app.kubernetes.io/part-of: gha-rs-controller
    app.kubernetes.io/managed-by: Helm
    actions.github.com/controller-service-account-namespace: arc-systems
    actions.github.com/controller-service-account-name: arc-gha-rs-controller
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: gha-rs-controller
      app.kubernetes.io/namespace: arc-systems
      app.kubernetes.io/instance: arc
  template:
    metadata:
      labels:
        app.kubernetes.io/part-of: gha-rs-controller
        app.kubernetes.io/component: controller-manager
        app.kubernetes.io/version: "0.11.0"
        app.kubernetes.io/name: gha-rs-controller
        app.kubernetes.io/namespace: arc-systems
        app.kubernetes.io/instance: arc
    spec:
      serviceAccountName: arc-gha-rs-controller
      containers:
      - name: manager
        image: ghcr.io/actions/gha-runner-scale-set-controller:0.11.0
        command: ["/manager"]
        args: ["--auto-scaling-runner-set-only", "--log-level=debug", "--log-format=text", "--update-strategy=immediate", "--metrics-addr=0", "--listener-metrics-addr=0", "--listener-metrics-endpoint="]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: arc-runners
---
apiVersion: actions.github.com/v1alpha1
kind: AutoscalingRunnerSet
metadata:
  name: generic-amd64-runner-1-grss
  namespace: arc-runners
  labels:
    app.kubernetes.io/component: autoscaling-runner-set
    app.kubernetes.io/instance: generic-amd64-runner-1
    app.kubernetes.io/managed-by: Helm
    app.kubernetes.io/name: generic-amd64-runner-1
    app.kubernetes.io/part-of: gha-rs
    app.kubernetes.io/version: "0.11.0"
    helm.sh/chart: gha-rs-0.11.0
    actions.github.com/scale-set-name: generic-amd64-runner-1-grss
    actions.github.com/scale-set-namespace: arc-runners
  annotations:
    actions.github.com/values-hash: 3f1d9b1c0a7e
  finalizers:
  - autoscalingrunnerset.actions.github.com/finalizer
spec:
  githubConfigUrl: https://github.com/example-org
  githubConfigSecret: some-non-existent-secret
  runnerScaleSetName: generic-amd64-runner-1
  minRunners: 1
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: runner
        image: ghcr.io/actions/actions-runner:latest
        command: ["/home/runner/run.sh"]
---
apiVersion: actions.github.com/v1alpha1
kind: EphemeralRunnerSet
metadata:
  name: generic-amd64-runner-1-grss-mfvdt
  namespace: arc-runners
  labels:
    app.kubernetes.io/component: runner-set
    app.kubernetes.io/instance: generic-amd64-runner-1
    app.kubernetes.io/part-of: gha-runner-scale-set
    actions.github.com/scale-set-name: generic-amd64-runner-1-grss
    actions.github.com/scale-set-namespace: arc-runners
  finalizers:
  - ephemeralrunner.actions.github.com/finalizer
  ownerReferences:
  - apiVersion: actions.github.com/v1alpha1
    kind: AutoscalingRunnerSet
    name: generic-amd64-runner-1-grss
    controller: true
    blockOwnerDeletion: true
spec:
  replicas: 1
  ephemeralRunnerSpec:
    githubConfigUrl: https://github.com/example-org
    githubConfigSecret: some-non-existent-secret
    spec:
      restartPolicy: Never
      containers:
      - name: runner
        image: ghcr.io/actions/actions-runner:latest
        command: ["/home/runner/run.sh"]
---
apiVersion: actions.github.com/v1alpha1
kind: EphemeralRunner
metadata:
  name: generic-amd64-runner-1-grss-mfvdt-runner-spkd4
  namespace: arc-runners
  labels:
    app.kubernetes.io/component: runner
    app.kubernetes.io/part-of: gha-runner-scale-set
    actions.github.com/scale-set-name: generic-amd64-runner-1-grss
    actions.github.com/scale-set-namespace: arc-runners
  finalizers:
  - ephemeralrunner.actions.github.com/finalizer
  - ephemeralrunner.actions.github.com/runner-registration-finalizer
  ownerReferences:
  - apiVersion: actions.github.com/v1alpha1
    kind: EphemeralRunnerSet
    name: generic-amd64-runner-1-grss-mfvdt
    controller: true
    blockOwnerDeletion: true
spec:
  githubConfigUrl: https://github.com/example-org
  githubConfigSecret: some-non-existent-secret
  restartPolicy: Never
  containers:
  - name: runner
    image: ghcr.io/actions/actions-runner:latest
    command: ["/home/runner/run.sh"]
status:
  ready: false
`,
		deletes: []string{
			"AutoscalingRunnerSet/arc-runners/generic-amd64-runner-1-grss",
			"EphemeralRunnerSet/arc-runners/generic-amd64-runner-1-grss-mfvdt",
			"EphemeralRunner/arc-runners/generic-amd64-runner-1-grss-mfvdt-runner-spkd4",
		},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "ephemeralrunners.actions.github.com", "generic-amd64-runner-1-grss-mfvdt-runner-spkd4", "-n", "arc-runners")
	d.exit(1, "STUCK")
	f := d.finalizer("ephemeralrunners.actions.github.com/generic-amd64-runner-1-grss-mfvdt-runner-spkd4 -n arc-runners",
		"ephemeralrunner.actions.github.com/runner-registration-finalizer")
	// The controller runs and may update the runner; what it waits for is the Secret the
	// runner's spec.githubConfigSecret names, which does not exist: named, with creating it or
	// the strip (the runner never registered) as the way out, never a reinstall.
	d.remover(f, "deployments.apps/arc-gha-rs-controller -n arc-systems", true)
	d.names(f, "secrets/some-non-existent-secret -n arc-runners")
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
