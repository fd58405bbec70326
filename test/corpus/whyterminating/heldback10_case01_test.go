package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/syntasso/kratix/issues/382 ("unable to remove misscheduled
// workplacement when destination deleted"): once a Destination is deleted, Kratix marks the
// WorkPlacements scheduled to it misscheduled (label kratix.io/misscheduled=true); deleting them
// (`kubectl -n kratix-platform-system delete workplacements --selector
// kratix.io/misscheduled=true`) hangs indefinitely. Their finalizer
// finalizers.workplacement.kratix.io/repo-cleanup is removed by the platform controller (running)
// once it has deleted the WorkPlacement's documents from the Destination's state store, and the
// controller looks the Destination up first: it no longer exists, so every pass fails ("not
// found") and the finalizer stays. The maintainers' fix removes the finalizer when the Destination
// does not exist (the files cannot be reached through it any more); until then the ways out are
// to create the Destination again (so the cleanup can run) or to remove the finalizer by hand,
// leaving the documents in the state store. What holds it is the Destination that
// spec.targetDestinationName names, which does not exist; the controller runs.
//
// Modelled on Kratix's distribution/kratix.yaml of the release of the report (v0.x, 2025-02): in
// namespace kratix-platform-system the ServiceAccount, the ClusterRole kratix-platform-manager-role
// (every platform.kratix.io resource with its finalizers and status; jobs, service accounts, RBAC
// it creates for pipelines) and its binding, the Deployment kratix-platform-controller-manager
// with its labels; the CRDs of platform.kratix.io, unlabelled. The admission webhooks are left
// out: the replay's pods answer no requests, and the report is not about them. The Work of a
// Redis request is still there; the BucketStateStore default the Destination wrote to remains.
func TestCorpusKratixWorkPlacementOfADeletedDestination(t *testing.T) {
	kx := func(kind, plural string, namespaced bool) crd {
		return crd{group: "platform.kratix.io", kind: kind, plural: plural, namespaced: namespaced, versions: []string{"v1alpha1"}}
	}
	replay{
		crds: []crd{
			kx("Promise", "promises", false),
			kx("Destination", "destinations", false),
			kx("BucketStateStore", "bucketstatestores", false),
			kx("GitStateStore", "gitstatestores", false),
			kx("PromiseRelease", "promisereleases", false),
			kx("Work", "works", true),
			kx("WorkPlacement", "workplacements", true),
			kx("HealthRecord", "healthrecords", true),
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: kratix-platform-system
  labels: {control-plane: controller-manager}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kratix-platform-controller-manager
  namespace: kratix-platform-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kratix-platform-manager-role
rules:
- apiGroups: [""]
  resources: ["configmaps", "secrets", "serviceaccounts", "namespaces"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: ["batch"]
  resources: ["jobs"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["clusterrolebindings", "clusterroles", "rolebindings", "roles"]
  verbs: ["create", "delete", "escalate", "bind", "get", "list", "patch", "update", "watch"]
- apiGroups: ["apiextensions.k8s.io"]
  resources: ["customresourcedefinitions"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["platform.kratix.io"]
  resources: ["promises", "destinations", "bucketstatestores", "gitstatestores", "promisereleases", "works", "workplacements", "healthrecords"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["platform.kratix.io"]
  resources: ["promises/finalizers", "destinations/finalizers", "bucketstatestores/finalizers", "gitstatestores/finalizers", "promisereleases/finalizers", "works/finalizers", "workplacements/finalizers", "healthrecords/finalizers"]
  verbs: ["update"]
- apiGroups: ["platform.kratix.io"]
  resources: ["promises/status", "destinations/status", "bucketstatestores/status", "gitstatestores/status", "promisereleases/status", "works/status", "workplacements/status", "healthrecords/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kratix-platform-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: kratix-platform-manager-role
subjects:
- kind: ServiceAccount
  name: kratix-platform-controller-manager
  namespace: kratix-platform-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kratix-platform-controller-manager
  namespace: kratix-platform-system
  labels: {control-plane: controller-manager}
spec:
  replicas: 1
  selector:
    matchLabels: {control-plane: controller-manager}
  template:
    metadata:
      labels: {control-plane: controller-manager}
    spec:
      serviceAccountName: kratix-platform-controller-manager
      containers:
      - name: manager
        image: docker.io/syntasso/kratix-platform:v0.117.0
        command: ["/manager"]
        args: ["--health-probe-bind-address=:8081", "--metrics-bind-address=127.0.0.1:8080", "--leader-elect"]
`,
		objects: `
apiVersion: platform.kratix.io/v1alpha1
kind: BucketStateStore
metadata:
  name: default
spec:
  bucketName: kratix
  endpoint: minio.kratix-platform-system.svc.cluster.local
  insecure: true
  authMethod: accessKey
  secretRef:
    name: minio-credentials
    namespace: default
---
apiVersion: platform.kratix.io/v1alpha1
kind: Work
metadata:
  name: redis-da034
  namespace: kratix-platform-system
  labels: {kratix.io/promise-name: redis, kratix.io/work-type: promise}
spec:
  promiseName: redis
  replicas: -1
  workloadGroups:
  - id: 5058f1af8388633f609cadb75a75dc9d
    directory: .
    destinationSelectors:
    - matchLabels: {environment: dev}
    workloads:
    - filepath: redis-operator.yaml
      content: H4sIAAAAAAAA/wAAAP//AQAA//8AAAAAAAAAAA==
---
apiVersion: platform.kratix.io/v1alpha1
kind: WorkPlacement
metadata:
  name: redis-da034.worker-1-5058f
  namespace: kratix-platform-system
  labels:
    kratix.io/misscheduled: "true"
    kratix.io/targetDestinationName: worker-1
    kratix.io/work: redis-da034
    kratix.io/workload-group-id: 5058f1af8388633f609cadb75a75dc9d
  finalizers: [finalizers.workplacement.kratix.io/repo-cleanup]
  ownerReferences:
  - {apiVersion: platform.kratix.io/v1alpha1, kind: Work, name: redis-da034, controller: true, blockOwnerDeletion: true}
spec:
  id: 5058f1af8388633f609cadb75a75dc9d
  promiseName: redis
  targetDestinationName: worker-1
  workloads:
  - filepath: redis-operator.yaml
    content: H4sIAAAAAAAA/wAAAP//AQAA//8AAAAAAAAAAA==
status:
  conditions:
  - type: Misscheduled
    status: "True"
    reason: DestinationNotFound
    message: Target destination no longer matches destinationSelectors
    lastTransitionTime: "2025-02-21T10:02:11Z"
`,
		deletes: []string{"WorkPlacement/kratix-platform-system/redis-da034.worker-1-5058f"},
	}.run(t)

	// "This call will hang indefinitely": well after the delete.
	d := diagnoseAfter(t, time.Hour, "workplacements.platform.kratix.io", "redis-da034.worker-1-5058f", "-n", "kratix-platform-system")
	d.exit(1, "STUCK")
	ref := "workplacements.platform.kratix.io/redis-da034.worker-1-5058f -n kratix-platform-system"
	f := d.finalizer(ref, "finalizers.workplacement.kratix.io/repo-cleanup")
	d.remover(f, "deployments.apps/kratix-platform-controller-manager -n kratix-platform-system", true)
	// What holds it: the Destination spec.targetDestinationName names, which is gone.
	d.blocker(f, "destinations.platform.kratix.io/worker-1", "missing-object")
	d.notFirstFix(f, readLogs)
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
	d.notDeleting(ref, "a placement unfinalized for an hour")
}
