package whyterminating_test

import (
	"testing"
	"time"
)

// Held back in batch 20, run once by the lead (2026-12-03, main 2603bf9): wrong in part at first
// sight (the strip's cost did not name lb-2ztq8h1k, which the status records); fixed after the
// count by a status id of a cloud's own shape (docs "What a finalizer strip leaves behind").
//
// Report: https://github.com/tkestack/tke-extend-network-controller/issues/9 ("Permanent stuck
// finalizer in CLBBinding cleanup() - resources can become unkillable"): the TKE extend network
// controller maps game-server pods to ports of Tencent Cloud CLB load balancers; a CLBPodBinding
// records each mapping in status.portBindings (load balancer, listener, port), and its finalizer
// networking.cloud.tencent.com/finalizer is removed only once the cleanup of every entry succeeds.
// The reporter: if one entry fails to clean up (a stale load balancer, a listener that cannot be
// reached), the finalizer is never removed and the object stays Terminating for good. The
// maintainer agrees: the cleanup aggregates the errors of every port binding and only removes the
// finalizer when none failed; controller-runtime retries with an unbounded backoff, which recovers
// transient failures, "the real problem is the absence of an escape hatch for permanent failures
// (e.g. invalid credentials, externally deleted ...)". The controller runs and keeps retrying; by
// hand only removing the finalizer ends it, and what it leaves is whatever the status still
// records at Tencent Cloud.
//
// Modelled on the chart charts/tke-extend-network-controller (v2.5), installed as its docs say
// with `helm upgrade --install --namespace kube-system`: the Deployment tke-extend-network-controller
// with its ServiceAccount, ClusterRole (clbpodbindings, their finalizers and status; pods, nodes,
// secrets), the leader-election Role, the Secret tke-extend-network-controller-env with the cloud
// credentials, the webhook Service and the CLBPortPool webhooks; the CRDs of
// networking.cloud.tencent.com. The port pool pool-sh (a CLB of ap-shanghai), and the CLBPodBinding
// of the game-server pod room-7f9c2-0 in game, deleted (its pod is gone), its status still holding
// the two mappings on lb-2ztq8h1k, the load balancer deleted outside the controller.
func TestCorpusTKECLBPodBindingOfALoadBalancerDeletedOutside(t *testing.T) {
	replay{
		crds: []crd{
			{group: "networking.cloud.tencent.com", kind: "CLBPodBinding", plural: "clbpodbindings", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "networking.cloud.tencent.com", kind: "CLBNodeBinding", plural: "clbnodebindings", versions: []string{"v1alpha1"}},
			{group: "networking.cloud.tencent.com", kind: "CLBPortPool", plural: "clbportpools", versions: []string{"v1alpha1"}},
			{group: "networking.cloud.tencent.com", kind: "DedicatedCLBService", plural: "dedicatedclbservices", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "networking.cloud.tencent.com", kind: "DedicatedCLBListener", plural: "dedicatedclblisteners", namespaced: true, versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: ServiceAccount
metadata:
  name: tke-extend-network-controller
  namespace: kube-system
  labels: {app.kubernetes.io/name: tke-extend-network-controller, app.kubernetes.io/instance: tke-extend-network-controller, app.kubernetes.io/managed-by: Helm, helm.sh/chart: tke-extend-network-controller-2.5.2}
---
apiVersion: v1
kind: Secret
metadata:
  name: tke-extend-network-controller-env
  namespace: kube-system
  labels: {app.kubernetes.io/name: tke-extend-network-controller, app.kubernetes.io/instance: tke-extend-network-controller, app.kubernetes.io/managed-by: Helm}
type: Opaque
stringData:
  REGION: ap-shanghai
  SECRET_ID: AKIDexample0000000000000000000000000
  SECRET_KEY: example000000000000000000000000000
  VPCID: vpc-5k3m1x9q
  CLUSTER_ID: cls-8f2h6d4w
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: tke-extend-network-controller-leader-election-role
  namespace: kube-system
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: tke-extend-network-controller-leader-election-rolebinding
  namespace: kube-system
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: tke-extend-network-controller-leader-election-role
subjects:
- kind: ServiceAccount
  name: tke-extend-network-controller
  namespace: kube-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: tke-extend-network-controller-role
rules:
- apiGroups: ["agones.dev"]
  resources: ["gameservers"]
  verbs: ["get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: [""]
  resources: ["nodes", "pods"]
  verbs: ["get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["nodes/finalizers", "pods/finalizers"]
  verbs: ["update"]
- apiGroups: [""]
  resources: ["nodes/status", "pods/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["game.kruise.io"]
  resources: ["gameserversets"]
  verbs: ["get", "list", "patch", "update", "watch"]
- apiGroups: ["networking.cloud.tencent.com"]
  resources: ["clbnodebindings", "clbpodbindings", "clbportpools"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["networking.cloud.tencent.com"]
  resources: ["clbnodebindings/finalizers", "clbpodbindings/finalizers", "clbportpools/finalizers"]
  verbs: ["update"]
- apiGroups: ["networking.cloud.tencent.com"]
  resources: ["clbnodebindings/status", "clbpodbindings/status", "clbportpools/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["node.tke.cloud.tencent.com"]
  resources: ["machines"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: tke-extend-network-controller-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: tke-extend-network-controller-role
subjects:
- kind: ServiceAccount
  name: tke-extend-network-controller
  namespace: kube-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: tke-extend-network-controller
  namespace: kube-system
  labels: {app.kubernetes.io/name: tke-extend-network-controller, app.kubernetes.io/instance: tke-extend-network-controller, app.kubernetes.io/version: "2.5.2", app.kubernetes.io/managed-by: Helm, helm.sh/chart: tke-extend-network-controller-2.5.2}
spec:
  replicas: 2
  selector:
    matchLabels: {app.kubernetes.io/name: tke-extend-network-controller, app.kubernetes.io/instance: tke-extend-network-controller}
  template:
    metadata:
      labels: {app.kubernetes.io/name: tke-extend-network-controller, app.kubernetes.io/instance: tke-extend-network-controller}
    spec:
      serviceAccountName: tke-extend-network-controller
      terminationGracePeriodSeconds: 10
      containers:
      - name: controller
        image: imroc/tke-extend-network-controller:2.5.2
        command: ["/tke-extend-network-controller"]
        args: ["--metrics-bind-address=:8443", "--leader-elect", "--health-probe-bind-address=:8081", "--zap-log-level=info", "--zap-encoder=json"]
        envFrom:
        - secretRef: {name: tke-extend-network-controller-env}
        ports:
        - {containerPort: 9443, name: webhook-server, protocol: TCP}
---
apiVersion: v1
kind: Service
metadata:
  name: tke-extend-network-controller-webhook-service
  namespace: kube-system
  labels: {app.kubernetes.io/name: tke-extend-network-controller}
spec:
  ports:
  - {port: 443, protocol: TCP, targetPort: 9443}
  selector: {app.kubernetes.io/name: tke-extend-network-controller, app.kubernetes.io/instance: tke-extend-network-controller}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: tke-extend-network-controller-mutating-webhook-configuration
  annotations: {cert-manager.io/inject-ca-from: kube-system/tke-extend-network-controller-serving-cert}
webhooks:
- name: mclbportpool-v1alpha1.kb.io
  admissionReviewVersions: ["v1"]
  clientConfig:
    service: {name: tke-extend-network-controller-webhook-service, namespace: kube-system, path: /mutate-networking-cloud-tencent-com-v1alpha1-clbportpool}
  failurePolicy: Fail
  sideEffects: None
  rules:
  - apiGroups: ["networking.cloud.tencent.com"]
    apiVersions: ["v1alpha1"]
    operations: ["CREATE", "UPDATE"]
    resources: ["clbportpools"]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: tke-extend-network-controller-validating-webhook-configuration
  annotations: {cert-manager.io/inject-ca-from: kube-system/tke-extend-network-controller-serving-cert}
webhooks:
- name: vclbportpool-v1alpha1.kb.io
  admissionReviewVersions: ["v1"]
  clientConfig:
    service: {name: tke-extend-network-controller-webhook-service, namespace: kube-system, path: /validate-networking-cloud-tencent-com-v1alpha1-clbportpool}
  failurePolicy: Fail
  sideEffects: None
  rules:
  - apiGroups: ["networking.cloud.tencent.com"]
    apiVersions: ["v1alpha1"]
    operations: ["CREATE", "UPDATE"]
    resources: ["clbportpools"]
---
apiVersion: v1
kind: Namespace
metadata:
  name: game
`,
		objects: `
apiVersion: networking.cloud.tencent.com/v1alpha1
kind: CLBPortPool
metadata:
  name: pool-sh
spec:
  startPort: 30000
  endPort: 65000
  region: ap-shanghai
  exsistedLoadBalancerIDs: [lb-2ztq8h1k]
---
apiVersion: networking.cloud.tencent.com/v1alpha1
kind: CLBPodBinding
metadata:
  name: room-7f9c2-0
  namespace: game
  finalizers: [networking.cloud.tencent.com/finalizer]
spec:
  ports:
  - {port: 7777, protocol: UDP, pools: [pool-sh]}
  - {port: 7778, protocol: TCP, pools: [pool-sh]}
status:
  state: Deleting
  portBindings:
  - {port: 7777, protocol: UDP, pool: pool-sh, region: ap-shanghai, loadbalancerId: lb-2ztq8h1k, loadbalancerPort: 30412, listenerId: lbl-6w1c9r0e}
  - {port: 7778, protocol: TCP, pool: pool-sh, region: ap-shanghai, loadbalancerId: lb-2ztq8h1k, loadbalancerPort: 30413, listenerId: lbl-3p8v5t2n}
`,
		deletes: []string{"CLBPodBinding/game/room-7f9c2-0"},
	}.run(t)

	d := diagnoseAfter(t, 3*time.Hour, "clbpodbindings.networking.cloud.tencent.com", "room-7f9c2-0", "-n", "game")
	d.exit(1, "STUCK")
	f := d.finalizer("clbpodbindings.networking.cloud.tencent.com/room-7f9c2-0 -n game", "networking.cloud.tencent.com/finalizer")
	// The controller runs and retries without end: it is the remover, stalled, not absent.
	d.remover(f, "deployments.apps/tke-extend-network-controller -n kube-system", true)
	d.verdict(f, removerStalled)
	d.never(f, reinstall, restoreController)
	// Only removing the finalizer ends it; what it leaves is what the status records at Tencent
	// Cloud: the load balancer and its listeners.
	d.offers(f, stripFinalizer)
	d.leaves(f, "lb-2ztq8h1k")
}
