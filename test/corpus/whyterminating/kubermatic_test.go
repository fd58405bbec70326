package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/kubermatic/kubermatic/pull/4619 ("Remove addon finalizers"): "When
// the cluster CR is gone, addons could not be reconciled anymore, so their finalizer would never
// be removed. This then makes the cluster namespaces be stuck in Terminating state forever." Each
// user cluster of Kubermatic has a namespace cluster-<id> in the seed, holding its Addons
// (kubermatic.k8s.io), each with the finalizer cleanup-manifests that the seed controller manager
// (running) removes after deleting the addon's manifests from the user cluster. Once the Cluster
// is deleted, the controller finds no Cluster for the Addon, does nothing, and the finalizer stays:
// the namespace keeps its Addons for ever. The fix drops the finalizer (and has the controller
// remove it when the Cluster is gone); by hand, removing it from the Addons is the way out, with
// nothing left to clean up (the user cluster is gone). Neither the API server nor the dashboard
// of Kubermatic removes it.
//
// Modelled on the kubermatic chart of the v2.12 releases: namespace kubermatic, the ServiceAccount
// kubermatic bound to cluster-admin, the Deployments kubermatic-api and controller-manager (the
// seed controller manager, image quay.io/kubermatic/api with the kubermatic-controller-manager
// command) and master-controller-manager running as it, and the dashboard kubermatic-ui; the CRDs
// of kubermatic.k8s.io, unlabelled (kubermatic.k8s.io is a protected group: the API server takes
// its CRDs only with an api-approved.kubernetes.io annotation, which the real ones carry too). The cluster's namespace as the report leaves it: its control
// plane gone, three Addons with the finalizer and owner references to the deleted Cluster (whose
// uid they keep), spec.cluster naming it.
func TestCorpusKubermaticAddonsOfADeletedCluster(t *testing.T) {
	km := func(kind, plural string, namespaced bool) crd {
		return crd{group: "kubermatic.k8s.io", kind: kind, plural: plural, namespaced: namespaced, versions: []string{"v1"},
			annotations: map[string]string{"api-approved.kubernetes.io": "unapproved, legacy API"}}
	}
	addon := func(name string) string {
		return `
apiVersion: kubermatic.k8s.io/v1
kind: Addon
metadata:
  name: ` + name + `
  namespace: cluster-bfxz9tk4jh
  labels: {kubermatic-addon: ` + name + `}
  finalizers: [cleanup-manifests]
  ownerReferences:
  - {apiVersion: kubermatic.k8s.io/v1, kind: Cluster, name: bfxz9tk4jh, uid: 6f1e2d3c-8b7a-4c5d-9e0f-1a2b3c4d5e6f, controller: true}
spec:
  name: ` + name + `
  cluster: {apiVersion: kubermatic.k8s.io/v1, kind: Cluster, name: bfxz9tk4jh, uid: 6f1e2d3c-8b7a-4c5d-9e0f-1a2b3c4d5e6f}
`
	}
	kmt := `{app.kubernetes.io/managed-by: Helm}`
	replay{
		crds: []crd{
			km("Cluster", "clusters", false),
			km("Addon", "addons", true),
			km("Project", "projects", false),
			km("User", "users", false),
			km("UserSSHKey", "usersshkeys", false),
			km("UserProjectBinding", "userprojectbindings", false),
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: kubermatic
---
apiVersion: v1
kind: Namespace
metadata:
  name: cluster-bfxz9tk4jh
  labels: {kubermatic.io/cluster: bfxz9tk4jh}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kubermatic
  namespace: kubermatic
  labels: ` + kmt + `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kubermatic
  labels: ` + kmt + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-admin
subjects:
- kind: ServiceAccount
  name: kubermatic
  namespace: kubermatic
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kubermatic-api
  namespace: kubermatic
  labels: {role: kubermatic-api, version: v1, app.kubernetes.io/managed-by: Helm}
spec:
  replicas: 1
  selector:
    matchLabels: {role: kubermatic-api, version: v1}
  template:
    metadata:
      labels: {role: kubermatic-api, version: v1}
    spec:
      serviceAccountName: kubermatic
      containers:
      - name: api
        image: quay.io/kubermatic/api:v2.12.0
        command: [kubermatic-api]
        args: ["-address=0.0.0.0:8080", "-internal-address=0.0.0.0:8085", "-oidc-url=https://kubermatic.example.com/dex"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: controller-manager
  namespace: kubermatic
  labels: {role: controller-manager, app.kubernetes.io/managed-by: Helm}
spec:
  replicas: 1
  selector:
    matchLabels: {role: controller-manager}
  template:
    metadata:
      labels: {role: controller-manager}
    spec:
      serviceAccountName: kubermatic
      containers:
      - name: controller-manager
        image: quay.io/kubermatic/api:v2.12.0
        command: [kubermatic-controller-manager]
        args: ["-worker-count=4", "-internal-address=0.0.0.0:8085", "-kubernetes-addons-path=/opt/addons/kubernetes", "-kubernetes-addons-list=canal,dns,kube-proxy,openvpn,rbac,kubelet-configmap,default-storage-class,node-exporter"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: master-controller-manager
  namespace: kubermatic
  labels: {role: master-controller-manager, app.kubernetes.io/managed-by: Helm}
spec:
  replicas: 1
  selector:
    matchLabels: {role: master-controller-manager}
  template:
    metadata:
      labels: {role: master-controller-manager}
    spec:
      serviceAccountName: kubermatic
      containers:
      - name: master-controller-manager
        image: quay.io/kubermatic/api:v2.12.0
        command: [master-controller-manager]
        args: ["-internal-address=0.0.0.0:8085", "-worker-count=20"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kubermatic-ui
  namespace: kubermatic
  labels: {role: kubermatic-ui, app.kubernetes.io/managed-by: Helm}
spec:
  replicas: 1
  selector:
    matchLabels: {role: kubermatic-ui}
  template:
    metadata:
      labels: {role: kubermatic-ui}
    spec:
      containers:
      - name: webserver
        image: quay.io/kubermatic/ui-v2:v1.3.0
`,
		objects: addon("canal") + "---" + addon("dns") + "---" + addon("kube-proxy"),
		deletes: []string{"Namespace//cluster-bfxz9tk4jh"},
	}.run(t)

	// "stuck in Terminating state forever": long after the cluster's deletion.
	d := diagnoseAfter(t, 6*time.Hour, "namespace", "cluster-bfxz9tk4jh")
	d.exit(1, "STUCK")
	for _, name := range []string{"canal", "dns", "kube-proxy"} {
		ref := "addons.kubermatic.k8s.io/" + name + " -n cluster-bfxz9tk4jh"
		f := d.finalizer(ref, "cleanup-manifests")
		// The seed controller manager runs, but the Cluster its cleanup needs is gone: nothing
		// will remove the finalizer, and there is nothing left to clean up.
		d.notRemover(f, "deployments.apps/kubermatic-ui -n kubermatic")
		d.names(f, "clusters.kubermatic.k8s.io/bfxz9tk4jh")
		d.offers(f, stripFinalizer)
		d.never(f, reinstall)
	}
}
