//go:build corpusopen

package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/kubesphere/kubesphere/issues/2306 ("when a member cluster was down, it
// cannot be deleted against the host"; the same in #6154 and #6072): a member cluster registered
// with a KubeSphere host was shut down for good, then deleted from the host; its Cluster
// (clusters.cluster.kubesphere.io, cluster-scoped) stays Terminating with the finalizer
// finalizer.cluster.kubesphere.io. ks-controller-manager (running) removes the finalizer after
// cleaning up the member's records, and every update of a Cluster goes through KubeSphere's own
// validating webhook validating-cluster.kubesphere.io, which first connects to the member's API
// server: it is gone, so the webhook denies the update ("admission webhook
// \"validating-cluster.kubesphere.io\" denied the request: Get
// \"https://172.31.248.105:6443/api/v1/namespaces/kube-system\": dial tcp 172.31.248.105:6443:
// connect: connection refused"), the controller's as well as a person's removing the finalizer
// by hand. The maintainer's way out: save the ValidatingWebhookConfiguration cluster.kubesphere.io,
// delete it, remove the finalizer from the Cluster, apply the webhook configuration again.
//
// Modelled on the ks-core chart of KubeSphere v3.4 in the host cluster: namespace
// kubesphere-system, the ServiceAccount kubesphere bound to cluster-admin, the Deployments
// ks-apiserver and ks-controller-manager running as it and ks-console, the Service
// ks-controller-manager that serves the webhooks, the ValidatingWebhookConfiguration
// cluster.kubesphere.io (clusters CREATE and UPDATE, failurePolicy Fail); the CRDs of
// cluster.kubesphere.io, unlabelled. The Cluster as the report's threads show it: direct
// connection to the gone member's API server, its Ready condition False with the connection
// refused. Its kubeconfig is a placeholder: the replay keeps no credential.
// Open (tag corpusopen): the strip is only marked as judged by KubeSphere's own validating webhook
// (served by the stalled remover itself, intercepting every UPDATE of Clusters); nothing the
// cluster shows says that webhook will deny the update (it contacts the gone member's API server
// on every update), so the thread's way out — set the webhook configuration aside, remove the
// finalizer, apply it again — is not offered. ks-apiserver (the same cluster-admin account) is
// named as a second remover.
func TestCorpusKubeSphereMemberClusterWhoseWebhookDeniesEveryUpdate(t *testing.T) {
	ks := `{app.kubernetes.io/managed-by: Helm, app.kubernetes.io/instance: ks-core, helm.sh/chart: ks-core-0.4.0}`
	replay{
		crds: []crd{
			{group: "cluster.kubesphere.io", kind: "Cluster", plural: "clusters", namespaced: false, versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: kubesphere-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kubesphere
  namespace: kubesphere-system
  labels: ` + ks + `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kubesphere
  labels: ` + ks + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-admin
subjects:
- kind: ServiceAccount
  name: kubesphere
  namespace: kubesphere-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ks-apiserver
  namespace: kubesphere-system
  labels: {app: ks-apiserver, tier: backend, version: v3.4.1, app.kubernetes.io/managed-by: Helm}
spec:
  replicas: 1
  selector:
    matchLabels: {app: ks-apiserver, tier: backend}
  template:
    metadata:
      labels: {app: ks-apiserver, tier: backend}
    spec:
      serviceAccountName: kubesphere
      containers:
      - name: ks-apiserver
        image: kubesphere/ks-apiserver:v3.4.1
        command: ["ks-apiserver", "--logtostderr=true"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ks-controller-manager
  namespace: kubesphere-system
  labels: {app: ks-controller-manager, tier: backend, version: v3.4.1, app.kubernetes.io/managed-by: Helm}
spec:
  replicas: 1
  selector:
    matchLabels: {app: ks-controller-manager, tier: backend}
  template:
    metadata:
      labels: {app: ks-controller-manager, tier: backend}
    spec:
      serviceAccountName: kubesphere
      containers:
      - name: ks-controller-manager
        image: kubesphere/ks-controller-manager:v3.4.1
        command: ["controller-manager", "--logtostderr=true", "--leader-elect=true"]
        ports:
        - {containerPort: 8443, protocol: TCP}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ks-console
  namespace: kubesphere-system
  labels: {app: ks-console, tier: frontend, version: v3.4.1, app.kubernetes.io/managed-by: Helm}
spec:
  replicas: 1
  selector:
    matchLabels: {app: ks-console, tier: frontend}
  template:
    metadata:
      labels: {app: ks-console, tier: frontend}
    spec:
      serviceAccountName: kubesphere
      containers:
      - name: ks-console
        image: kubesphere/ks-console:v3.4.1
---
apiVersion: v1
kind: Service
metadata:
  name: ks-controller-manager
  namespace: kubesphere-system
  labels: {app: ks-controller-manager, tier: backend}
spec:
  selector: {app: ks-controller-manager, tier: backend}
  ports:
  - {port: 443, protocol: TCP, targetPort: 8443}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: cluster.kubesphere.io
  labels: ` + ks + `
webhooks:
- name: validating-cluster.kubesphere.io
  admissionReviewVersions: ["v1beta1"]
  clientConfig:
    service:
      name: ks-controller-manager
      namespace: kubesphere-system
      path: /validate-cluster-kubesphere-io-v1alpha1
      port: 443
  failurePolicy: Fail
  matchPolicy: Exact
  rules:
  - apiGroups: ["cluster.kubesphere.io"]
    apiVersions: ["v1alpha1"]
    operations: ["CREATE", "UPDATE"]
    resources: ["clusters"]
  sideEffects: None
  timeoutSeconds: 30
`,
		objects: `
apiVersion: cluster.kubesphere.io/v1alpha1
kind: Cluster
metadata:
  name: dev-member
  labels: {cluster-role.kubesphere.io/member: "", kubesphere.io/managed: "true", cluster.kubesphere.io/group: development}
  annotations: {kubesphere.io/creator: admin, kubesphere.io/description: development member cluster}
  finalizers: [finalizer.cluster.kubesphere.io]
spec:
  provider: kubesphere
  enable: true
  joinFederation: true
  connection:
    type: direct
    kubernetesAPIEndpoint: https://172.31.248.105:6443
    kubeconfig: YXBpVmVyc2lvbjogdjEKa2luZDogQ29uZmlnCg==
status:
  kubernetesVersion: v1.26.5
  kubeSphereVersion: v3.4.1
  nodeCount: 3
  uid: 0c4b8f35-7a8e-4a55-9d3e-2f1c0b6e7a91
  conditions:
  - type: Ready
    status: "False"
    reason: ""
    message: 'Get "https://172.31.248.105:6443/api/v1/namespaces/kube-system": dial tcp 172.31.248.105:6443: connect: connection refused'
    lastTransitionTime: "2024-10-28T13:52:07Z"
    lastUpdateTime: "2024-10-28T22:06:26Z"
`,
		deletes: []string{"Cluster//dev-member"},
	}.run(t)

	// Deleted from the console long before anyone looked.
	d := diagnoseAfter(t, 24*time.Hour, "clusters.cluster.kubesphere.io", "dev-member")
	d.exit(1, "STUCK")
	ref := "clusters.cluster.kubesphere.io/dev-member"
	f := d.finalizer(ref, "finalizer.cluster.kubesphere.io")
	d.remover(f, "deployments.apps/ks-controller-manager -n kubesphere-system", true)
	d.notRemover(f, "deployments.apps/ks-console -n kubesphere-system")
	// The product's own webhook refuses every update of the Cluster while the member cannot be
	// reached, the finalizer's removal included: set it aside, remove the finalizer, restore it.
	d.offers(f, deleteWebhookConfig)
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
