package whyterminating_test

import (
	"strings"
	"testing"
)

// Report: https://github.com/antrea-io/antrea/issues/3815 ("Can not delete namespaces"): with
// Antrea 1.6.1 on EKS every namespace deleted stays Terminating, its condition "Discovery failed
// for some groups, 3 failing: ... controlplane.antrea.io/v1beta2: the server is currently unable
// to handle the request, stats.antrea.io/v1alpha1 ..., system.antrea.io/v1beta1 ...". The
// maintainer: "This error means that the K8s control plane cannot communicate with the Antrea
// (Controller) API. This is independent of network policies given that the antrea-controller Pod
// is a hostNetwork Pod. Do you have any VPC security group rules denying such connections?" The
// controller runs and is Ready; the path from the EKS control plane to it (port 10349) is what
// fails. Deleting the three APIServices would free the namespaces and break Antrea's own agents
// (controlplane.antrea.io is how they get their policies): the last resort, not the fix.
//
// Modelled on antrea-eks.yml of v1.6.1: in kube-system the ServiceAccounts, the Deployment
// antrea-controller (hostNetwork, its labels and image) and DaemonSet antrea-agent, the Service
// antrea (443 → the controller's api port 10349), the ClusterRole antrea-controller
// (abbreviated) and binding, the three APIServices labelled app=antrea, and the CRDs of
// crd.antrea.io (abbreviated to the policy types). The replay's pods get addresses the control
// plane cannot reach, as the security group left them.
func TestCorpusAntreaAPIServicesUnreachableFromTheControlPlane(t *testing.T) {
	antrea := map[string]string{"app": "antrea"}
	replay{
		crds: []crd{
			{group: "crd.antrea.io", kind: "ClusterNetworkPolicy", plural: "clusternetworkpolicies", versions: []string{"v1alpha1"}, labels: antrea},
			{group: "crd.antrea.io", kind: "NetworkPolicy", plural: "networkpolicies", namespaced: true, versions: []string{"v1alpha1"}, labels: antrea},
			{group: "crd.antrea.io", kind: "Tier", plural: "tiers", versions: []string{"v1alpha1"}, labels: antrea},
			{group: "crd.antrea.io", kind: "ClusterGroup", plural: "clustergroups", versions: []string{"v1alpha3"}, labels: antrea},
		},
		install: `
apiVersion: v1
kind: ServiceAccount
metadata:
  name: antrea-controller
  namespace: kube-system
  labels:
    app: antrea
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: antrea-agent
  namespace: kube-system
  labels:
    app: antrea
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: antrea-controller
  labels:
    app: antrea
rules:
- apiGroups: [""]
  resources: ["nodes", "pods", "namespaces", "services"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["networking.k8s.io"]
  resources: ["networkpolicies"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["crd.antrea.io"]
  resources: ["clusternetworkpolicies", "networkpolicies", "tiers", "clustergroups"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["crd.antrea.io"]
  resources: ["clusternetworkpolicies/status", "networkpolicies/status", "clustergroups/status"]
  verbs: ["update"]
- apiGroups: ["apiregistration.k8s.io"]
  resources: ["apiservices"]
  resourceNames: ["v1beta2.controlplane.antrea.io", "v1alpha1.stats.antrea.io", "v1beta1.system.antrea.io"]
  verbs: ["get", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: antrea-controller
  labels:
    app: antrea
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: antrea-controller
subjects:
- kind: ServiceAccount
  name: antrea-controller
  namespace: kube-system
---
apiVersion: v1
kind: Service
metadata:
  name: antrea
  namespace: kube-system
  labels:
    app: antrea
spec:
  ports:
  - port: 443
    protocol: TCP
    targetPort: api
  selector:
    app: antrea
    component: antrea-controller
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: antrea-controller
  namespace: kube-system
  labels:
    app: antrea
    component: antrea-controller
spec:
  replicas: 1
  strategy:
    type: Recreate
  selector:
    matchLabels:
      app: antrea
      component: antrea-controller
  template:
    metadata:
      labels:
        app: antrea
        component: antrea-controller
    spec:
      hostNetwork: true
      priorityClassName: system-cluster-critical
      serviceAccountName: antrea-controller
      containers:
      - name: antrea-controller
        image: projects.registry.vmware.com/antrea/antrea-ubuntu:v1.6.1
        command: ["antrea-controller"]
        args: ["--config", "/etc/antrea/antrea-controller.conf", "--logtostderr=false", "--log_dir=/var/log/antrea"]
        ports:
        - containerPort: 10349
          name: api
          protocol: TCP
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: antrea-agent
  namespace: kube-system
  labels:
    app: antrea
    component: antrea-agent
spec:
  selector:
    matchLabels:
      app: antrea
      component: antrea-agent
  template:
    metadata:
      labels:
        app: antrea
        component: antrea-agent
    spec:
      hostNetwork: true
      priorityClassName: system-node-critical
      serviceAccountName: antrea-agent
      containers:
      - name: antrea-agent
        image: projects.registry.vmware.com/antrea/antrea-ubuntu:v1.6.1
        command: ["antrea-agent"]
        args: ["--config", "/etc/antrea/antrea-agent.conf", "--logtostderr=false", "--log_dir=/var/log/antrea"]
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1beta2.controlplane.antrea.io
  labels:
    app: antrea
spec:
  group: controlplane.antrea.io
  groupPriorityMinimum: 100
  version: v1beta2
  versionPriority: 100
  service:
    name: antrea
    namespace: kube-system
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1alpha1.stats.antrea.io
  labels:
    app: antrea
spec:
  group: stats.antrea.io
  groupPriorityMinimum: 100
  version: v1alpha1
  versionPriority: 100
  service:
    name: antrea
    namespace: kube-system
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1beta1.system.antrea.io
  labels:
    app: antrea
spec:
  group: system.antrea.io
  groupPriorityMinimum: 100
  version: v1beta1
  versionPriority: 100
  service:
    name: antrea
    namespace: kube-system
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: payments-staging
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: payments-config
  namespace: payments-staging
data:
  LOG_LEVEL: info
`,
		deletes: []string{"Namespace//payments-staging"},
	}.run(t)

	d := diagnose(t, "namespace", "payments-staging")
	d.exit(1, "STUCK")
	f := d.finalizer("namespaces/payments-staging", "kubernetes")
	d.blocker(f, "apiservices.apiregistration.k8s.io/v1beta2.controlplane.antrea.io", "apiservice-unavailable")
	// The controller runs and is Ready: the first step says so about its Service, with the
	// APIServices' failure, and deleting an APIService is only the last resort.
	d.notFirstFix(f, deleteAPIService)
	if len(f.Remedies) == 0 || !strings.Contains(f.Remedies[0].Summary, "services/antrea -n kube-system has ready endpoints") {
		t.Errorf("first step %q, want it to say that the Service the APIServices use has ready endpoints", remedySummaries(f))
	}
	for _, r := range f.Remedies {
		if r.Code == deleteAPIService && !r.LastResort {
			t.Errorf("deleting an APIService of a Ready backend is offered as a fix, want it only as the last resort")
		}
	}
}
