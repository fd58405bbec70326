package whyterminating_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kubeforensics/suite/internal/finalizers"
)

// Report: https://github.com/KubeElasti/KubeElasti/issues/168 ("[BUG] Elasti fails if the
// deployment or service is deleted", closed as fixed): KubeElasti scales a workload to zero and
// puts its resolver in front of the workload's Service; the ElastiService's finalizer
// (elasti.truefoundry.com/finalizer) lets the operator take that routing down (the private Service
// it made, the EndpointSlice to the resolver) and drop the watch on the scale target. When "the
// service or deployment in the service is deleted without finalising the elastiservice", the
// ElastiService controller "goes in an error state" on the deleted objects: the ElastiService,
// deleted with them, stays. The running operator is the remover; the objects its spec names
// (spec.service, spec.scaleTargetRef) being gone is why it does not finish. With the Service and
// the workload gone there is nothing left to route: the way out by hand is to remove the
// finalizer.
//
// Modelled on KubeElasti's Helm chart (charts/elasti, 0.1.x, release elasti in namespace elasti):
// the Deployments elasti-operator-controller-manager and elasti-resolver with their
// ServiceAccounts, the operator's ClusterRole elasti-operator-manager-role (elastiservices,
// services, endpointslices, deployments and rollouts with their scale; abbreviated) and binding,
// the resolver's Service; the CRD elastiservices.elasti.truefoundry.com. In namespace ws-7a (as in
// the report's logs): the ElastiService deepseek-r1-distill-llama-8b-elasti-service, whose Service
// and Deployment deepseek-r1-distill-llama-8b were deleted first, deleted since.
func TestCorpusElastiServiceAfterItsServiceAndTargetWereDeleted(t *testing.T) {
	chart := `{app.kubernetes.io/instance: elasti, app.kubernetes.io/managed-by: Helm, app.kubernetes.io/part-of: elasti, helm.sh/chart: elasti-0.1.15}`
	replay{
		crds: []crd{
			{group: "elasti.truefoundry.com", kind: "ElastiService", plural: "elastiservices", namespaced: true, versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: elasti
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: elasti-operator-controller-manager
  namespace: elasti
  labels: ` + chart + `
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: elasti-resolver
  namespace: elasti
  labels: ` + chart + `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: elasti-operator-manager-role
  labels: ` + chart + `
rules:
- apiGroups: ["elasti.truefoundry.com"]
  resources: ["elastiservices"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["elasti.truefoundry.com"]
  resources: ["elastiservices/finalizers"]
  verbs: ["update"]
- apiGroups: ["elasti.truefoundry.com"]
  resources: ["elastiservices/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: [""]
  resources: ["services", "endpoints", "events"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["discovery.k8s.io"]
  resources: ["endpointslices"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["apps"]
  resources: ["deployments", "deployments/scale", "statefulsets", "statefulsets/scale"]
  verbs: ["get", "list", "patch", "update", "watch"]
- apiGroups: ["argoproj.io"]
  resources: ["rollouts", "rollouts/scale"]
  verbs: ["get", "list", "patch", "update", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: elasti-operator-manager-rolebinding
  labels: ` + chart + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: elasti-operator-manager-role
subjects:
- kind: ServiceAccount
  name: elasti-operator-controller-manager
  namespace: elasti
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: elasti-operator-controller-manager
  namespace: elasti
  labels: {control-plane: controller-manager, app.kubernetes.io/name: elasti-operator, app.kubernetes.io/instance: elasti, app.kubernetes.io/managed-by: Helm, app.kubernetes.io/part-of: elasti}
spec:
  replicas: 1
  selector:
    matchLabels: {control-plane: controller-manager, app.kubernetes.io/name: elasti, app.kubernetes.io/instance: elasti}
  template:
    metadata:
      labels: {control-plane: controller-manager, app.kubernetes.io/name: elasti, app.kubernetes.io/instance: elasti}
    spec:
      serviceAccountName: elasti-operator-controller-manager
      terminationGracePeriodSeconds: 10
      containers:
      - name: manager
        image: tfy.jfrog.io/tfy-images/elasti-operator:0.1.15
        command: ["/manager"]
        args: ["--leader-elect", "--health-probe-bind-address=:8081", "--metrics-bind-address=:8080"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: elasti-resolver
  namespace: elasti
  labels: {app.kubernetes.io/name: elasti-resolver, app.kubernetes.io/instance: elasti, app.kubernetes.io/managed-by: Helm, app.kubernetes.io/part-of: elasti}
spec:
  replicas: 1
  selector:
    matchLabels: {app: elasti-resolver, app.kubernetes.io/name: elasti, app.kubernetes.io/instance: elasti}
  template:
    metadata:
      labels: {app: elasti-resolver, app.kubernetes.io/name: elasti, app.kubernetes.io/instance: elasti}
    spec:
      serviceAccountName: elasti-resolver
      containers:
      - name: proxy
        image: tfy.jfrog.io/tfy-images/elasti-resolver:0.1.15
        command: ["/resolver"]
        ports:
        - containerPort: 8012
        - containerPort: 8013
---
apiVersion: v1
kind: Service
metadata:
  name: elasti-resolver-service
  namespace: elasti
  labels: {app: elasti-resolver}
spec:
  selector: {app: elasti-resolver}
  ports:
  - {name: http-resolver, port: 8012, targetPort: 8012}
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: ws-7a
---
apiVersion: elasti.truefoundry.com/v1alpha1
kind: ElastiService
metadata:
  name: deepseek-r1-distill-llama-8b-elasti-service
  namespace: ws-7a
  finalizers: [elasti.truefoundry.com/finalizer]
spec:
  service: deepseek-r1-distill-llama-8b
  minTargetReplicas: 1
  cooldownPeriod: 900
  scaleTargetRef: {apiVersion: apps/v1, kind: deployments, name: deepseek-r1-distill-llama-8b}
  triggers:
  - type: prometheus
    metadata:
      query: sum(rate(http_requests_total{namespace="ws-7a",service="deepseek-r1-distill-llama-8b"}[1m])) or vector(0)
      serverAddress: http://prometheus-operated.monitoring.svc.cluster.local:9090
      threshold: "0.5"
status:
  mode: serve
  lastReconciledTime: "2025-07-18T12:41:07Z"
`,
		deletes: []string{"ElastiService/ws-7a/deepseek-r1-distill-llama-8b-elasti-service"},
	}.run(t)

	d := diagnoseAfter(t, 3*time.Hour, "elastiservices.elasti.truefoundry.com", "deepseek-r1-distill-llama-8b-elasti-service", "-n", "ws-7a")
	d.exit(1, "STUCK")
	f := d.finalizer("elastiservices.elasti.truefoundry.com/deepseek-r1-distill-llama-8b-elasti-service -n ws-7a", "elasti.truefoundry.com/finalizer")
	// The operator runs and removes it; the Service and the workload its spec names are gone,
	// which its finalize step errors on.
	d.remover(f, "deployments.apps/elasti-operator-controller-manager -n elasti", true)
	d.namesOneOf(f, "services/deepseek-r1-distill-llama-8b -n ws-7a", "deployments.apps/deepseek-r1-distill-llama-8b -n ws-7a")
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}

// namesOneOf checks that the finalizer's explanation names at least one of refs, fully qualified,
// as a blocker or in a step: the report's thread names either as the cause.
func (d *diagnosis) namesOneOf(f *finalizers.Finalizer, refs ...string) {
	d.t.Helper()
	for _, ref := range refs {
		for _, b := range f.Blockers {
			if b.Object.String() == ref || strings.Contains(b.Reason, ref) {
				return
			}
		}
		for _, r := range f.Remedies {
			if strings.Contains(r.Summary, ref) || strings.Contains(r.Command, ref) {
				return
			}
		}
	}
	d.t.Errorf("finalizer %s: none of %q named as a blocker or in a step", f.Name, refs)
}
