//go:build corpusopen

// Open (corpusopen): Cluster API's controller, which may update clusters too, is named the
// remover before the addons manager, and its logs come first; the ClusterBootstrap the Cluster
// owns, carrying the same finalizer, is not named, nor the addons manager's own fail-closed
// webhook on updates of clusterbootstraps that denies the remover (nothing records the denial:
// the update fails silently in the controller). Failure classes: a dependent that carries the
// stuck object's finalizer is not read as the step before it; a webhook that may deny the
// remover's update of that dependent is not named.

package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/vmware-tanzu/tanzu-framework/issues/2847 ("Stuck addons finalizer on
// deleted clusters"): on a vSphere with Tanzu supervisor, deleted Cluster API clusters stay in
// Deleting with tkg.tanzu.vmware.com/addon. The maintainers' cause: the addons manager removes its
// finalizer from the cluster's ClusterBootstrap by an update that "is silently failing" — "the
// remove fails because ClusterBootstrap object has a webhook which is triggered on removal of
// finalizer. The associated objects of ClusterBootstrap are gone because they have been deleted so
// update fails." — and only then from the Cluster, which it never reaches. The fix (#2848): remove
// finalizers by patch, and make the ClusterBootstrap webhook skip validation for objects being
// deleted; after upgrading, "all existing clusters stuck deleting are gone". The addons manager
// runs throughout; its own validating webhook (failure policy Fail, on create and update of
// clusterbootstraps) denies it.
//
// Modelled on tanzu-framework's addons manager (addons/config, the kubebuilder markers of
// addons/webhooks/clusterbootstrap_webhook.go: vclusterbootstrap.kb.io on
// /validate-run-tanzu-vmware-com-v1alpha3-clusterbootstrap, create and update, failurePolicy fail;
// the webhook configuration and Service names are the package's as we render them): namespace
// tkg-system, the ServiceAccount tanzu-addons-manager-sa, its ClusterRole (run.tanzu.vmware.com
// and cni.tanzu.vmware.com everything; cluster.x-k8s.io clusters update; secrets) and binding, the
// Deployment tanzu-addons-controller-manager and its webhook Service; the CRDs clusterbootstraps
// and clusterbootstraptemplates of run.tanzu.vmware.com, antreaconfigs of cni.tanzu.vmware.com,
// clusters of cluster.x-k8s.io with Cluster API's controller. The Cluster dev-ns/workload-1,
// deleted, with the addons finalizer left; its ClusterBootstrap still carrying the finalizer and
// naming the AntreaConfig workload-1-antrea-package, which went with the cluster.
func TestCorpusTanzuClusterWhoseBootstrapWebhookDeniesTheRemover(t *testing.T) {
	replay{
		crds: []crd{
			{group: "run.tanzu.vmware.com", kind: "ClusterBootstrap", plural: "clusterbootstraps", namespaced: true, versions: []string{"v1alpha3"}},
			{group: "run.tanzu.vmware.com", kind: "ClusterBootstrapTemplate", plural: "clusterbootstraptemplates", namespaced: true, versions: []string{"v1alpha3"}},
			{group: "cni.tanzu.vmware.com", kind: "AntreaConfig", plural: "antreaconfigs", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "cluster.x-k8s.io", kind: "Cluster", plural: "clusters", namespaced: true, versions: []string{"v1beta1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: tkg-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: tanzu-addons-manager-sa
  namespace: tkg-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: tanzu-addons-manager-clusterrole
rules:
- apiGroups: ["run.tanzu.vmware.com", "cni.tanzu.vmware.com", "csi.tanzu.vmware.com", "cpi.tanzu.vmware.com"]
  resources: ["*"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["cluster.x-k8s.io"]
  resources: ["clusters", "clusters/status"]
  verbs: ["get", "list", "watch", "update", "patch"]
- apiGroups: [""]
  resources: ["secrets", "configmaps", "events"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["packaging.carvel.dev", "data.packaging.carvel.dev"]
  resources: ["*"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: tanzu-addons-manager-clusterrolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: tanzu-addons-manager-clusterrole
subjects:
- kind: ServiceAccount
  name: tanzu-addons-manager-sa
  namespace: tkg-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: tanzu-addons-controller-manager
  namespace: tkg-system
  labels: {app: tanzu-addons-manager}
spec:
  replicas: 1
  selector:
    matchLabels: {app: tanzu-addons-manager}
  template:
    metadata:
      labels: {app: tanzu-addons-manager}
    spec:
      serviceAccountName: tanzu-addons-manager-sa
      containers:
      - name: tanzu-addons-controller
        image: projects.registry.vmware.com/tkg/tanzu_core/addons/addons-controller:v0.25.0
        args: ["--metrics-bind-addr=0", "--health-addr=:18316", "--enable-leader-election=true", "--feature-gate-cluster-bootstrap=true", "--webhook-server-port=9865"]
        ports:
        - {name: webhook-server, containerPort: 9865}
---
apiVersion: v1
kind: Service
metadata:
  name: tanzu-addons-manager-webhook-service
  namespace: tkg-system
spec:
  selector: {app: tanzu-addons-manager}
  ports:
  - {port: 443, targetPort: webhook-server}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: tanzu-addons-validating-webhook-configuration
webhooks:
- name: vclusterbootstrap.kb.io
  admissionReviewVersions: ["v1", "v1beta1"]
  sideEffects: None
  failurePolicy: Fail
  clientConfig:
    service: {name: tanzu-addons-manager-webhook-service, namespace: tkg-system, path: /validate-run-tanzu-vmware-com-v1alpha3-clusterbootstrap}
  rules:
  - apiGroups: ["run.tanzu.vmware.com"]
    apiVersions: ["v1alpha3"]
    operations: ["CREATE", "UPDATE"]
    resources: ["clusterbootstraps"]
---
apiVersion: v1
kind: Namespace
metadata:
  name: capi-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: capi-manager
  namespace: capi-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: capi-manager-role
rules:
- apiGroups: ["cluster.x-k8s.io"]
  resources: ["*"]
  verbs: ["*"]
- apiGroups: [""]
  resources: ["secrets", "configmaps", "events"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: capi-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: capi-manager-role
subjects:
- kind: ServiceAccount
  name: capi-manager
  namespace: capi-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: capi-controller-manager
  namespace: capi-system
  labels: {cluster.x-k8s.io/provider: cluster-api, control-plane: controller-manager}
spec:
  replicas: 1
  selector:
    matchLabels: {cluster.x-k8s.io/provider: cluster-api, control-plane: controller-manager}
  template:
    metadata:
      labels: {cluster.x-k8s.io/provider: cluster-api, control-plane: controller-manager}
    spec:
      serviceAccountName: capi-manager
      containers:
      - name: manager
        image: projects.registry.vmware.com/tkg/cluster-api/cluster-api-controller:v1.1.3_vmware.1
        command: ["/manager"]
        args: ["--leader-elect", "--metrics-bind-addr=localhost:8080"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: dev-ns
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata:
  name: workload-1
  namespace: dev-ns
  labels: {run.tanzu.vmware.com/tkr: v1.22.8---vmware.1-tkg.1}
  finalizers: [tkg.tanzu.vmware.com/addon]
spec:
  clusterNetwork:
    pods:
      cidrBlocks: [192.168.0.0/16]
    services:
      cidrBlocks: [10.96.0.0/12]
  topology:
    class: tanzukubernetescluster
    version: v1.22.8+vmware.1
status:
  phase: Deleting
---
apiVersion: run.tanzu.vmware.com/v1alpha3
kind: ClusterBootstrap
metadata:
  name: workload-1
  namespace: dev-ns
  annotations:
    tkg.tanzu.vmware.com/add-missing-fields-from-tkr: v1.22.8---vmware.1-tkg.1
  ownerReferences:
  - apiVersion: cluster.x-k8s.io/v1beta1
    kind: Cluster
    name: workload-1
  finalizers: [tkg.tanzu.vmware.com/addon]
spec:
  cni:
    refName: antrea.tanzu.vmware.com.1.5.3+tkg.2-zshippable
    valuesFrom:
      providerRef:
        apiGroup: cni.tanzu.vmware.com
        kind: AntreaConfig
        name: workload-1-antrea-package
  kapp:
    refName: kapp-controller.tanzu.vmware.com.0.38.4+vmware.1-tkg.2-zshippable
status:
  resolvedTKR: v1.22.8---vmware.1-tkg.1
`,
		deletes: []string{"Cluster/dev-ns/workload-1"},
	}.run(t)

	d := diagnoseAfter(t, 3*24*time.Hour, "clusters.cluster.x-k8s.io", "workload-1", "-n", "dev-ns")
	d.exit(1, "STUCK")
	f := d.finalizer("clusters.cluster.x-k8s.io/workload-1 -n dev-ns", "tkg.tanzu.vmware.com/addon")
	// The addons manager runs and removes it, after it has removed its finalizer from the
	// ClusterBootstrap — an update its own validating webhook denies, because the AntreaConfig the
	// ClusterBootstrap names is gone.
	d.remover(f, "deployments.apps/tanzu-addons-controller-manager -n tkg-system", true)
	d.names(f, "clusterbootstraps.run.tanzu.vmware.com/workload-1 -n dev-ns")
	d.explains(f, "vclusterbootstrap.kb.io")
	d.notFirstFix(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
