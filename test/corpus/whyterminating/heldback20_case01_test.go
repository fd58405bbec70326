package whyterminating_test

import (
	"testing"
	"time"

	"github.com/kubeforensics/suite/internal/finalizers"
)

// Held back in batch 20, run once by the lead (2026-12-03, main 2603bf9): right at first sight.
//
// Report: https://github.com/kubernetes/kubernetes/issues/75788 ("Deleting a namespace depends on
// kubernetes ApiService, causing namespaces to be stuck in terminating state"): after the
// Custom Metrics - Stackdriver Adapter was installed from its production manifest, which
// registers the APIServices v1beta1.custom.metrics.k8s.io and v1beta1.external.metrics.k8s.io on
// the adapter's Service, `kubectl api-resources` failed with "unable to retrieve the complete list
// of server APIs: custom.metrics.k8s.io/v1beta1: the server is currently unable to handle the
// request, external.metrics.k8s.io/v1beta1: ..." and any namespace deleted, though nothing in it
// uses the adapter, stayed Terminating. The namespace controller must list every API to empty a
// namespace; an aggregated API nobody answers for stops every namespace deletion. Kubernetes'
// maintainers on the same failure (kubernetes/kubernetes#84109, #60807): a namespace left
// Terminating is an unavailable aggregated API or content with a finalizer; make the API available
// or delete the APIService nothing serves; removing the namespace's own finalizer skips the wait
// and strands what the unlisted API holds.
//
// Modelled on the adapter's deploy/production/adapter.yaml of that time (v0.10): namespace
// custom-metrics, the ServiceAccount custom-metrics-stackdriver-adapter bound to
// system:auth-delegator, extension-apiserver-authentication-reader and view, the Deployment and
// its Service, and the two APIServices. The adapter's pod runs and never becomes ready (the
// request fails with 503, no endpoint answers). The namespace deleted is an unrelated one, test.
func TestCorpusStackdriverAdapterAPIServicesNotServedBlockAnUnrelatedNamespace(t *testing.T) {
	replay{
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: custom-metrics
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: custom-metrics-stackdriver-adapter
  namespace: custom-metrics
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: custom-metrics:system:auth-delegator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: system:auth-delegator
subjects:
- kind: ServiceAccount
  name: custom-metrics-stackdriver-adapter
  namespace: custom-metrics
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: custom-metrics-auth-reader
  namespace: kube-system
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: extension-apiserver-authentication-reader
subjects:
- kind: ServiceAccount
  name: custom-metrics-stackdriver-adapter
  namespace: custom-metrics
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: custom-metrics-resource-reader
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: view
subjects:
- kind: ServiceAccount
  name: custom-metrics-stackdriver-adapter
  namespace: custom-metrics
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: custom-metrics-stackdriver-adapter
  namespace: custom-metrics
  labels:
    run: custom-metrics-stackdriver-adapter
    k8s-app: custom-metrics-stackdriver-adapter
spec:
  replicas: 1
  selector:
    matchLabels:
      run: custom-metrics-stackdriver-adapter
      k8s-app: custom-metrics-stackdriver-adapter
  template:
    metadata:
      labels:
        run: custom-metrics-stackdriver-adapter
        k8s-app: custom-metrics-stackdriver-adapter
        kubernetes.io/cluster-service: "true"
    spec:
      serviceAccountName: custom-metrics-stackdriver-adapter
      containers:
      - name: pod-custom-metrics-stackdriver-adapter
        image: gcr.io/google-containers/custom-metrics-stackdriver-adapter:v0.10.0
        command: ["/adapter", "--use-new-resource-model=false"]
        resources:
          limits: {cpu: 250m, memory: 200Mi}
          requests: {cpu: 250m, memory: 200Mi}
---
apiVersion: v1
kind: Service
metadata:
  name: custom-metrics-stackdriver-adapter
  namespace: custom-metrics
  labels:
    run: custom-metrics-stackdriver-adapter
    k8s-app: custom-metrics-stackdriver-adapter
    kubernetes.io/cluster-service: "true"
    kubernetes.io/name: Adapter
spec:
  type: ClusterIP
  ports:
  - {port: 443, protocol: TCP, targetPort: 443}
  selector:
    run: custom-metrics-stackdriver-adapter
    k8s-app: custom-metrics-stackdriver-adapter
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1beta1.custom.metrics.k8s.io
spec:
  insecureSkipTLSVerify: true
  group: custom.metrics.k8s.io
  groupPriorityMinimum: 100
  versionPriority: 100
  service:
    name: custom-metrics-stackdriver-adapter
    namespace: custom-metrics
  version: v1beta1
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1beta1.external.metrics.k8s.io
spec:
  insecureSkipTLSVerify: true
  group: external.metrics.k8s.io
  groupPriorityMinimum: 100
  versionPriority: 100
  service:
    name: custom-metrics-stackdriver-adapter
    namespace: custom-metrics
  version: v1beta1
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: external-metrics-reader
rules:
- apiGroups: ["external.metrics.k8s.io"]
  resources: ["*"]
  verbs: ["list", "get", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: external-metrics-reader
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: external-metrics-reader
subjects:
- kind: ServiceAccount
  name: horizontal-pod-autoscaler
  namespace: kube-system
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: test
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: test
data:
  mode: staging
`,
		unready: []string{"custom-metrics/custom-metrics-stackdriver-adapter"},
		deletes: []string{"Namespace//test"},
	}.run(t)

	d := diagnoseAfter(t, 30*time.Minute, "namespace", "test")
	d.exit(1, "STUCK")
	f := d.finalizer("namespaces/test", "kubernetes")
	// Both APIServices the adapter registers are unavailable; each stops the namespace.
	d.blocker(f, "apiservices.apiregistration.k8s.io/v1beta1.custom.metrics.k8s.io", "apiservice-unavailable")
	d.blocker(f, "apiservices.apiregistration.k8s.io/v1beta1.external.metrics.k8s.io", "apiservice-unavailable")
	// The concrete thing that does not answer: the adapter's Service, whose one pod is not ready.
	d.names(f, "services/custom-metrics-stackdriver-adapter -n custom-metrics")
	// Removing the namespace's own finalizer is never the fix.
	d.notFirstFix(f, stripFinalizer, finalizers.ReasonFinalizeNamespace)
}
