//go:build corpusopen

// Open (corpusopen): after statusfailure.go reads status.lastOperation, the first step quotes the
// error that names the missing access Secret by its label — but it is "fix what it names" (with
// the strip only if that cannot be), the remover's logs next, the strip last as a last resort,
// where the thread's fix is the strip first: the Secret is gone because the runtime it led to was
// deprovisioned, and nothing in the cluster says so (no object matches the label; the selector in
// a status message is not resolved). Failure class: a missing input gone for good read as one to
// restore.

package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/kyma-project/lifecycle-manager/issues/640 ("If kyma is under deleting
// and no secret found, remove finalizer"; again as #816, fixed by #819, "Remove all Kyma
// finalizers when Kyma is under deletion and no secret found"): when a Kyma runtime is
// deprovisioned and its Kyma CR is not gone within the hour, the runtime cluster is dropped
// together with its access Secret (the kubeconfig Secret in kcp-system labelled
// operator.kyma-project.io/kyma-name=<kyma>). The Kyma CR in the control plane then keeps
// operator.kyma-project.io/Kyma forever: lifecycle-manager runs, but every reconcile of the
// deletion fails on "secret with label operator.kyma-project.io/kyma-name=... access secret not
// found" (the error as #1400 logs it) and never reaches the finalizer. The fix: when the Kyma is
// being deleted and its access Secret is not found, drop the finalizers — the runtime is gone,
// nothing is left to clean up. By hand, the same: remove the finalizer.
//
// Modelled on lifecycle-manager's kustomize install (config/, namePrefix klm-): namespace
// kcp-system, the ServiceAccount klm-controller-manager, its ClusterRole (operator.kyma-project.io
// kymas, manifests, moduletemplates and their status and finalizers; secrets read; events) and
// binding, the Deployment klm-controller-manager; the CRDs kymas, manifests and moduletemplates of
// operator.kyma-project.io. The Kyma CR as #865 and kyma-project/control-plane#2662 show one
// (runtime labels, channel regular, state Error, the error in status.lastOperation), deleted; the
// access Secret is gone.
func TestCorpusKymaWhoseAccessSecretIsGone(t *testing.T) {
	const kyma = "d5d5f8f9-daf2-4c78-a351-add33a348896"
	replay{
		crds: []crd{
			{group: "operator.kyma-project.io", kind: "Kyma", plural: "kymas", namespaced: true, versions: []string{"v1beta2", "v1beta1"}},
			{group: "operator.kyma-project.io", kind: "Manifest", plural: "manifests", namespaced: true, versions: []string{"v1beta2", "v1beta1"}},
			{group: "operator.kyma-project.io", kind: "ModuleTemplate", plural: "moduletemplates", namespaced: true, versions: []string{"v1beta2", "v1beta1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: kcp-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: klm-controller-manager
  namespace: kcp-system
  labels: {app.kubernetes.io/component: lifecycle-manager.kyma-project.io, app.kubernetes.io/part-of: lifecycle-manager}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: klm-manager-role
  labels: {app.kubernetes.io/component: lifecycle-manager.kyma-project.io, app.kubernetes.io/part-of: lifecycle-manager}
rules:
- apiGroups: ["operator.kyma-project.io"]
  resources: ["kymas", "manifests", "moduletemplates"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["operator.kyma-project.io"]
  resources: ["kymas/status", "manifests/status", "kymas/finalizers", "manifests/finalizers"]
  verbs: ["get", "patch", "update"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch", "get", "list", "watch"]
- apiGroups: ["apiextensions.k8s.io"]
  resources: ["customresourcedefinitions"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: klm-manager-rolebinding
  labels: {app.kubernetes.io/component: lifecycle-manager.kyma-project.io, app.kubernetes.io/part-of: lifecycle-manager}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: klm-manager-role
subjects:
- kind: ServiceAccount
  name: klm-controller-manager
  namespace: kcp-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: klm-controller-manager
  namespace: kcp-system
  labels: {app.kubernetes.io/component: lifecycle-manager.kyma-project.io, app.kubernetes.io/part-of: lifecycle-manager, app.kubernetes.io/name: lifecycle-manager}
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/component: lifecycle-manager.kyma-project.io, app.kubernetes.io/name: lifecycle-manager}
  template:
    metadata:
      labels: {app.kubernetes.io/component: lifecycle-manager.kyma-project.io, app.kubernetes.io/part-of: lifecycle-manager, app.kubernetes.io/name: lifecycle-manager}
    spec:
      serviceAccountName: klm-controller-manager
      containers:
      - name: manager
        image: europe-docker.pkg.dev/kyma-project/prod/lifecycle-manager:1.1.3
        command: ["/manager"]
        args: ["--leader-elect", "--in-kcp-mode", "--kyma-requeue-success-interval=20s", "--skr-watcher-path=/skr-webhook"]
`,
		objects: `
apiVersion: operator.kyma-project.io/v1beta2
kind: Kyma
metadata:
  name: ` + kyma + `
  namespace: kcp-system
  labels:
    operator.kyma-project.io/kyma-name: ` + kyma + `
    kyma-project.io/runtime-id: ` + kyma + `
    kyma-project.io/instance-id: 7c1e4a2b-5d3f-4b8e-a9c6-1f2e3d4c5b6a
    kyma-project.io/global-account-id: 2f8d6c4a-1b3e-4f5a-9c7d-8e6f4a2b1c3d
    operator.kyma-project.io/managed-by: lifecycle-manager
  annotations:
    kyma-kcp-crd-generation: "6"
    kyma-skr-crd-generation: "1"
    moduletemplate-kcp-crd-generation: "4"
    moduletemplate-skr-crd-generation: "1"
  finalizers: [operator.kyma-project.io/Kyma]
spec:
  channel: regular
status:
  state: Error
  activeChannel: regular
  lastOperation:
    operation: 'secret with label operator.kyma-project.io/kyma-name=` + kyma + ` access secret not found'
    lastUpdateTime: "2023-08-14T16:05:12Z"
  conditions:
  - type: Ready
    status: "False"
    reason: Ready
    message: not all modules are in ready state
    observedGeneration: 2
    lastTransitionTime: "2023-08-14T16:02:48Z"
  - type: Modules
    status: Unknown
    reason: Ready
    message: modules state is unknown
    observedGeneration: 2
    lastTransitionTime: "2023-08-14T16:02:48Z"
`,
		deletes: []string{"Kyma/kcp-system/" + kyma},
	}.run(t)

	d := diagnoseAfter(t, 36*time.Hour, "kymas.operator.kyma-project.io", kyma, "-n", "kcp-system")
	d.exit(1, "STUCK")
	f := d.finalizer("kymas.operator.kyma-project.io/"+kyma+" -n kcp-system", "operator.kyma-project.io/Kyma")
	// lifecycle-manager runs and removes it, but not while the Secret it needs to reach the
	// runtime is missing; that Secret is named by its label, and the runtime it led to is gone.
	d.remover(f, "deployments.apps/klm-controller-manager -n kcp-system", true)
	d.explains(f, "operator.kyma-project.io/kyma-name="+kyma)
	// The thread's fix, by hand: drop the finalizer — the runtime is gone, nothing is left.
	d.firstFix(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
