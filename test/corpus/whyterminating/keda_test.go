package whyterminating_test

import (
	"strings"
	"testing"
)

// Report: https://github.com/kedacore/keda/issues/1231 ("Namespaces stuck in Terminating
// state"): right after KEDA 2.0.0-rc was installed on GKE, every review namespace deleted stayed
// Terminating. KEDA registers the APIService v1beta1.external.metrics.k8s.io, served by its
// metrics adapter on port 6443; on a VPC-native GKE cluster the control plane cannot reach that
// port, so the APIService is unavailable (FailedDiscoveryCheck) and the namespace controller,
// which must discover every group to empty a namespace, never finishes. The thread's fix: "add a
// firewall rule to allow the masters to talk with keda's apiservice (port 6443)"; the adapter
// itself runs and is Ready. Deleting the APIService would also free the namespaces, and break
// every HPA that scales on KEDA's external metrics: it is the last resort, not the fix.
//
// Modelled on KEDA's config/ (v2.0.0-rc): namespace keda, ServiceAccount keda-operator,
// ClusterRole keda-operator (its rules on keda.sh and the scale subresources, abbreviated) and
// binding, the Deployments keda-operator and keda-metrics-apiserver with their labels and
// images, the Service keda-metrics-apiserver (443 → 6443) and the APIService. The replay's pods
// get addresses the control plane cannot reach, as the firewall left them.
func TestCorpusKEDAMetricsAPIServiceUnreachable(t *testing.T) {
	keda := map[string]string{"app.kubernetes.io/part-of": "keda-operator", "app.kubernetes.io/version": "2.0.0-rc"}
	replay{
		crds: []crd{
			{group: "keda.sh", kind: "ScaledObject", plural: "scaledobjects", namespaced: true, versions: []string{"v1alpha1"}, labels: keda},
			{group: "keda.sh", kind: "ScaledJob", plural: "scaledjobs", namespaced: true, versions: []string{"v1alpha1"}, labels: keda},
			{group: "keda.sh", kind: "TriggerAuthentication", plural: "triggerauthentications", namespaced: true, versions: []string{"v1alpha1"}, labels: keda},
			{group: "keda.sh", kind: "ClusterTriggerAuthentication", plural: "clustertriggerauthentications", versions: []string{"v1alpha1"}, labels: keda},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: keda
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: keda-operator
  namespace: keda
  labels:
    app.kubernetes.io/name: keda-operator
    app.kubernetes.io/part-of: keda-operator
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: keda-operator
  labels:
    app.kubernetes.io/name: keda-operator
    app.kubernetes.io/part-of: keda-operator
rules:
- apiGroups: [""]
  resources: ["configmaps", "configmaps/status", "events"]
  verbs: ["*"]
- apiGroups: [""]
  resources: ["pods", "services", "secrets", "external"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["*"]
  resources: ["*/scale"]
  verbs: ["*"]
- apiGroups: ["apps"]
  resources: ["deployments", "statefulsets"]
  verbs: ["*"]
- apiGroups: ["batch"]
  resources: ["jobs"]
  verbs: ["*"]
- apiGroups: ["keda.sh"]
  resources: ["scaledobjects", "scaledobjects/finalizers", "scaledobjects/status", "scaledjobs", "scaledjobs/finalizers", "scaledjobs/status", "triggerauthentications", "triggerauthentications/status", "clustertriggerauthentications", "clustertriggerauthentications/status"]
  verbs: ["*"]
- apiGroups: ["autoscaling"]
  resources: ["horizontalpodautoscalers"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: keda-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: keda-operator
subjects:
- kind: ServiceAccount
  name: keda-operator
  namespace: keda
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: keda-operator
  namespace: keda
  labels:
    app: keda-operator
    app.kubernetes.io/name: keda-operator
    app.kubernetes.io/version: 2.0.0-rc
    app.kubernetes.io/part-of: keda-operator
spec:
  replicas: 1
  selector:
    matchLabels:
      app: keda-operator
  template:
    metadata:
      labels:
        app: keda-operator
        name: keda-operator
    spec:
      serviceAccountName: keda-operator
      containers:
      - name: keda-operator
        image: docker.io/kedacore/keda:2.0.0-rc
        command: ["keda"]
        args: ["--leader-elect", "--zap-log-level=info"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: keda-metrics-apiserver
  namespace: keda
  labels:
    app: keda-metrics-apiserver
    app.kubernetes.io/name: keda-metrics-apiserver
    app.kubernetes.io/version: 2.0.0-rc
    app.kubernetes.io/part-of: keda-operator
spec:
  replicas: 1
  selector:
    matchLabels:
      app: keda-metrics-apiserver
  template:
    metadata:
      labels:
        app: keda-metrics-apiserver
        name: keda-metrics-apiserver
    spec:
      serviceAccountName: keda-operator
      containers:
      - name: keda-metrics-apiserver
        image: docker.io/kedacore/keda-metrics-apiserver:2.0.0-rc
        args: ["/usr/local/bin/keda-adapter", "--secure-port=6443", "--logtostderr=true", "--v=0"]
        ports:
        - containerPort: 6443
          name: https
        - containerPort: 8080
          name: http
---
apiVersion: v1
kind: Service
metadata:
  name: keda-metrics-apiserver
  namespace: keda
  labels:
    app.kubernetes.io/name: keda-metrics-apiserver
    app.kubernetes.io/version: 2.0.0-rc
    app.kubernetes.io/part-of: keda-operator
spec:
  ports:
  - name: https
    port: 443
    targetPort: 6443
  - name: http
    port: 80
    targetPort: 8080
  selector:
    app: keda-metrics-apiserver
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1beta1.external.metrics.k8s.io
  labels:
    app.kubernetes.io/name: v1beta1.external.metrics.k8s.io
    app.kubernetes.io/version: 2.0.0-rc
    app.kubernetes.io/part-of: keda-operator
spec:
  service:
    name: keda-metrics-apiserver
    namespace: keda
  group: external.metrics.k8s.io
  version: v1beta1
  insecureSkipTLSVerify: true
  groupPriorityMinimum: 100
  versionPriority: 100
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: review-2709-storefront
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: storefront-config
  namespace: review-2709-storefront
data:
  LOG_LEVEL: info
---
apiVersion: v1
kind: Service
metadata:
  name: storefront
  namespace: review-2709-storefront
spec:
  ports:
  - port: 80
  selector:
    app: storefront
`,
		deletes: []string{"Namespace//review-2709-storefront"},
	}.run(t)

	d := diagnose(t, "namespace", "review-2709-storefront")
	d.exit(1, "STUCK")
	f := d.finalizer("namespaces/review-2709-storefront", "kubernetes")
	d.blocker(f, "apiservices.apiregistration.k8s.io/v1beta1.external.metrics.k8s.io", "apiservice-unavailable")
	// The adapter runs and is Ready: what fails is the path from the API server to it, and the
	// first step says so about its Service, with the APIService's own failure; deleting the
	// APIService is the last resort.
	d.notFirstFix(f, deleteAPIService)
	if len(f.Remedies) == 0 || !strings.Contains(f.Remedies[0].Summary, "services/keda-metrics-apiserver -n keda has ready endpoints") ||
		!strings.Contains(f.Remedies[0].Summary, "FailedDiscoveryCheck") {
		t.Errorf("first step %q, want it to say the adapter's Service has ready endpoints and name the APIService's FailedDiscoveryCheck", remedySummaries(f))
	}
	for _, r := range f.Remedies {
		if r.Code == deleteAPIService && !r.LastResort {
			t.Errorf("deleting the APIService of a Ready backend is offered as a fix, want it only as the last resort")
		}
	}
}
