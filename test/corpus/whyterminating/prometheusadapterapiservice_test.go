package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/prometheus-operator/kube-prometheus/issues/741 ("unable to delete
// namespace into which kube-prometheus is deployed"): kube-prometheus installs prometheus-adapter
// into its own namespace, monitoring, and registers for it the cluster-scoped APIService
// v1beta1.metrics.k8s.io; deleting the namespace deletes the adapter, the APIService it backs
// becomes unavailable, and "the namespace can't be finalized on deletion because the APIServices
// reference a deployment that was just removed and are needed to finalize the namespace deletion".
// The namespace controller must list every served API to empty a namespace; the API's backend can
// never come back in a namespace being deleted (new content is refused), so the namespace waits
// for itself. The way out is deleting the APIService nothing can serve any more; the fix (#740)
// lets the adapter live in another namespace. Removing the namespace's own finalizer instead is
// what Kubernetes' maintainers warn against (kubernetes/kubernetes#60807: it skips the wait and
// strands whatever the unlisted API still holds).
//
// Modelled on kube-prometheus v0.6.0's manifests: namespace monitoring, prometheus-adapter's
// ServiceAccount, ClusterRoles (prometheus-adapter, resource-metrics-server-resources,
// system:aggregated-metrics-reader) and bindings (to the auth delegator and, in kube-system, the
// authentication reader), its ConfigMap adapter-config, Deployment and Service, and the APIService;
// the prometheus-operator Deployment beside it. The namespace is deleted; the node's kubelet stops
// its pods as a healthy node does.
func TestCorpusPrometheusAdapterAPIServiceBackedByTheNamespaceBeingDeleted(t *testing.T) {
	replay{
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: monitoring
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: prometheus-operator
  namespace: monitoring
  labels: {app.kubernetes.io/component: controller, app.kubernetes.io/name: prometheus-operator, app.kubernetes.io/version: v0.40.0}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: prometheus-operator
  namespace: monitoring
  labels: {app.kubernetes.io/component: controller, app.kubernetes.io/name: prometheus-operator, app.kubernetes.io/version: v0.40.0}
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/component: controller, app.kubernetes.io/name: prometheus-operator}
  template:
    metadata:
      labels: {app.kubernetes.io/component: controller, app.kubernetes.io/name: prometheus-operator, app.kubernetes.io/version: v0.40.0}
    spec:
      serviceAccountName: prometheus-operator
      containers:
      - name: prometheus-operator
        image: quay.io/coreos/prometheus-operator:v0.40.0
        args: ["--kubelet-service=kube-system/kubelet", "--prometheus-config-reloader=quay.io/coreos/prometheus-config-reloader:v0.40.0"]
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: prometheus-adapter
  namespace: monitoring
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: prometheus-adapter
rules:
- apiGroups: [""]
  resources: ["nodes", "namespaces", "pods", "services"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: prometheus-adapter
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: prometheus-adapter
subjects:
- kind: ServiceAccount
  name: prometheus-adapter
  namespace: monitoring
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: resource-metrics-server-resources
rules:
- apiGroups: ["metrics.k8s.io"]
  resources: ["*"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: system:aggregated-metrics-reader
  labels:
    rbac.authorization.k8s.io/aggregate-to-admin: "true"
    rbac.authorization.k8s.io/aggregate-to-edit: "true"
    rbac.authorization.k8s.io/aggregate-to-view: "true"
rules:
- apiGroups: ["metrics.k8s.io"]
  resources: ["pods", "nodes"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: resource-metrics:system:auth-delegator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: system:auth-delegator
subjects:
- kind: ServiceAccount
  name: prometheus-adapter
  namespace: monitoring
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: resource-metrics-auth-reader
  namespace: kube-system
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: extension-apiserver-authentication-reader
subjects:
- kind: ServiceAccount
  name: prometheus-adapter
  namespace: monitoring
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: adapter-config
  namespace: monitoring
data:
  config.yaml: |
    resourceRules:
      cpu:
        containerQuery: sum(irate(container_cpu_usage_seconds_total{<<.LabelMatchers>>,container!="POD",container!="",pod!=""}[5m])) by (<<.GroupBy>>)
        resources:
          overrides:
            namespace: {resource: namespace}
            pod: {resource: pod}
        containerLabel: container
      window: 5m
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: prometheus-adapter
  namespace: monitoring
spec:
  replicas: 1
  selector:
    matchLabels: {name: prometheus-adapter}
  template:
    metadata:
      labels: {name: prometheus-adapter}
    spec:
      serviceAccountName: prometheus-adapter
      nodeSelector: {kubernetes.io/os: linux}
      containers:
      - name: prometheus-adapter
        image: directxman12/k8s-prometheus-adapter:v0.7.0
        args: ["--cert-dir=/var/run/serving-cert", "--config=/etc/adapter/config.yaml", "--logtostderr=true", "--metrics-relist-interval=1m", "--prometheus-url=http://prometheus-k8s.monitoring.svc.cluster.local:9090/", "--secure-port=6443"]
        ports:
        - containerPort: 6443
        volumeMounts:
        - {mountPath: /etc/adapter, name: config}
      volumes:
      - name: config
        configMap: {name: adapter-config}
---
apiVersion: v1
kind: Service
metadata:
  name: prometheus-adapter
  namespace: monitoring
  labels: {name: prometheus-adapter}
spec:
  ports:
  - {name: https, port: 443, targetPort: 6443}
  selector: {name: prometheus-adapter}
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1beta1.metrics.k8s.io
spec:
  group: metrics.k8s.io
  groupPriorityMinimum: 100
  insecureSkipTLSVerify: true
  service:
    name: prometheus-adapter
    namespace: monitoring
  version: v1beta1
  versionPriority: 100
`,
		deletes:        []string{"Namespace//monitoring"},
		kubeletStopsIn: []string{"monitoring"},
	}.run(t)

	d := diagnoseAfter(t, 20*time.Minute, "namespace", "monitoring")
	d.exit(1, "STUCK")
	f := d.finalizer("namespaces/monitoring", "kubernetes")
	d.blocker(f, "apiservices.apiregistration.k8s.io/v1beta1.metrics.k8s.io", "apiservice-unavailable")
	// Its backend was in this very namespace, which refuses it back: deleting the APIService is
	// the way out, not restoring the backend, and never the namespace's own finalizer.
	d.firstFix(f, deleteAPIService)
	for _, r := range f.Remedies {
		if r.Code == deleteAPIService && r.LastResort {
			t.Errorf("deleting the APIService whose backend went with the namespace is marked a last resort, want it the fix")
		}
	}
}
