package whyterminating_test

import (
	"testing"
	"time"
)

// Open (corpusopen) until the adder outside the cluster was read (docs "A remover outside the
// cluster"): "Reinstall the product of job-platform.acme.io" came first, where nothing of that
// domain was ever installed.
//
// Report: https://github.com/koordinator-sh/koordinator/issues/3154 ("scheduler: a terminating or
// replaced Reservation can still be scheduled and bound to Available"): "A Reservation held in
// Terminating by a finalizer keeps its reserve pod in the scheduling queue"; "the object stays
// until the finalizers clear, which can take arbitrarily long". Whose finalizer that is, the
// maintainers' PR #1354 says: "Users create reused Reservation with finalizer, when need to delete
// Reservation, users first mark Reservation deleting, and clean other resources, then finally
// remove the finalizer to release Reservation." The finalizer is the user's, not Koordinator's:
// koord-manager and koord-scheduler run and never remove it (the scheduler must only stop using
// the Reservation); the client that added it removes it once its own cleanup is done. Stripping
// it skips that cleanup.
//
// Modelled on Koordinator's Helm chart (koordinator-sh/charts, 1.4): namespace koordinator-system,
// the Deployments koord-manager, koord-scheduler and koord-descheduler and the DaemonSet koordlet
// with their ServiceAccounts, the ClusterRoles of koord-manager and koord-scheduler (reservations
// and their status among the rest; abbreviated) and bindings; the CRD
// reservations.scheduling.koordinator.sh. The Reservation gpu-train-reserve, reused
// (allocateOnce: false) for the pods of a training platform, Available on worker-1, with the
// platform's finalizer, which the platform's client (field manager job-platform, running outside
// the cluster) added — its name is not in the thread, which shows no finalizer: it is ours. Deleted
// since, the platform's cleanup not done.
func TestCorpusReservationHeldByItsUsersOwnFinalizer(t *testing.T) {
	chart := `{app.kubernetes.io/managed-by: Helm, app.kubernetes.io/instance: koordinator, helm.sh/chart: koordinator-1.4.1}`
	replay{
		crds: []crd{
			{group: "scheduling.koordinator.sh", kind: "Reservation", plural: "reservations", versions: []string{"v1alpha1"}},
			{group: "scheduling.koordinator.sh", kind: "PodMigrationJob", plural: "podmigrationjobs", versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: koordinator-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: koord-manager
  namespace: koordinator-system
  labels: ` + chart + `
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: koord-scheduler
  namespace: koordinator-system
  labels: ` + chart + `
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: koord-descheduler
  namespace: koordinator-system
  labels: ` + chart + `
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: koordlet
  namespace: koordinator-system
  labels: ` + chart + `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: koord-manager-role
  labels: ` + chart + `
rules:
- apiGroups: ["scheduling.koordinator.sh"]
  resources: ["reservations", "podmigrationjobs"]
  verbs: ["get", "list", "watch", "update", "patch"]
- apiGroups: ["scheduling.koordinator.sh"]
  resources: ["reservations/status", "podmigrationjobs/status"]
  verbs: ["get", "update", "patch"]
- apiGroups: [""]
  resources: ["nodes", "pods", "configmaps", "events"]
  verbs: ["get", "list", "watch", "update", "patch", "create"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: koord-manager-rolebinding
  labels: ` + chart + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: koord-manager-role
subjects:
- kind: ServiceAccount
  name: koord-manager
  namespace: koordinator-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: koord-scheduler-role
  labels: ` + chart + `
rules:
- apiGroups: ["scheduling.koordinator.sh"]
  resources: ["reservations"]
  verbs: ["get", "list", "watch", "update", "patch", "create", "delete"]
- apiGroups: ["scheduling.koordinator.sh"]
  resources: ["reservations/status"]
  verbs: ["get", "update", "patch"]
- apiGroups: [""]
  resources: ["pods", "pods/binding", "nodes", "events"]
  verbs: ["get", "list", "watch", "create", "update", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: koord-scheduler-rolebinding
  labels: ` + chart + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: koord-scheduler-role
subjects:
- kind: ServiceAccount
  name: koord-scheduler
  namespace: koordinator-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: koord-manager
  namespace: koordinator-system
  labels: {koord-app: koord-manager}
spec:
  replicas: 1
  selector:
    matchLabels: {koord-app: koord-manager}
  template:
    metadata:
      labels: {koord-app: koord-manager}
    spec:
      serviceAccountName: koord-manager
      containers:
      - name: manager
        image: registry.cn-beijing.aliyuncs.com/koordinator-sh/koord-manager:v1.4.1
        command: ["/koord-manager"]
        args: ["--enable-leader-election", "--metrics-addr=:8080", "--health-probe-addr=:8000", "--logtostderr=true"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: koord-scheduler
  namespace: koordinator-system
  labels: {koord-app: koord-scheduler}
spec:
  replicas: 1
  selector:
    matchLabels: {koord-app: koord-scheduler}
  template:
    metadata:
      labels: {koord-app: koord-scheduler}
    spec:
      serviceAccountName: koord-scheduler
      containers:
      - name: scheduler
        image: registry.cn-beijing.aliyuncs.com/koordinator-sh/koord-scheduler:v1.4.1
        command: ["/koord-scheduler"]
        args: ["--port=10251", "--authentication-skip-lookup=true", "--config=/config/koord-scheduler.config", "--v=4"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: koord-descheduler
  namespace: koordinator-system
  labels: {koord-app: koord-descheduler}
spec:
  replicas: 1
  selector:
    matchLabels: {koord-app: koord-descheduler}
  template:
    metadata:
      labels: {koord-app: koord-descheduler}
    spec:
      serviceAccountName: koord-descheduler
      containers:
      - name: descheduler
        image: registry.cn-beijing.aliyuncs.com/koordinator-sh/koord-descheduler:v1.4.1
        command: ["/koord-descheduler"]
        args: ["--config=/config-dir/koord-descheduler-config", "--v=4"]
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: koordlet
  namespace: koordinator-system
  labels: {koord-app: koordlet}
spec:
  selector:
    matchLabels: {koord-app: koordlet}
  template:
    metadata:
      labels: {koord-app: koordlet}
    spec:
      serviceAccountName: koordlet
      hostNetwork: true
      containers:
      - name: koordlet
        image: registry.cn-beijing.aliyuncs.com/koordinator-sh/koordlet:v1.4.1
        command: ["/koordlet"]
        args: ["-addr=:9316", "-cgroup-root-dir=/host-cgroup/", "-v=4"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: ml-train
---
apiVersion: scheduling.koordinator.sh/v1alpha1
kind: Reservation
metadata:
  name: gpu-train-reserve
  labels: {job-platform.acme.io/queue: llm-finetune}
  finalizers: [job-platform.acme.io/release-reserved]
spec:
  allocateOnce: false
  ttl: 24h
  owners:
  - labelSelector:
      matchLabels: {job-platform.acme.io/queue: llm-finetune}
  template:
    metadata:
      namespace: ml-train
    spec:
      schedulerName: koord-scheduler
      containers:
      - name: placeholder
        image: registry.k8s.io/pause:3.9
        resources:
          requests: {cpu: "8", memory: 32Gi}
status:
  phase: Available
  nodeName: worker-1
  allocatable: {cpu: "8", memory: 32Gi}
  conditions:
  - {type: Scheduled, status: "True", reason: Scheduled, lastProbeTime: "2026-07-27T08:02:11Z", lastTransitionTime: "2026-07-27T08:02:11Z"}
  - {type: Ready, status: "True", reason: Available, lastProbeTime: "2026-07-27T08:02:11Z", lastTransitionTime: "2026-07-27T08:02:11Z"}
`,
		deletes:      []string{"Reservation//gpu-train-reserve"},
		finalizersBy: map[string]string{"Reservation//gpu-train-reserve": "job-platform"},
	}.run(t)

	d := diagnoseAfter(t, 4*time.Hour, "reservations.scheduling.koordinator.sh", "gpu-train-reserve")
	d.exit(1, "STUCK")
	f := d.finalizer("reservations.scheduling.koordinator.sh/gpu-train-reserve", "job-platform.acme.io/release-reserved")
	// Koordinator runs and never removes this finalizer: it is the user's own.
	d.notRemover(f, "deployments.apps/koord-manager -n koordinator-system")
	d.notRemover(f, "deployments.apps/koord-scheduler -n koordinator-system")
	d.notRemover(f, "deployments.apps/koord-descheduler -n koordinator-system")
	// The client that added it (the field manager job-platform) is who removes it, after its
	// own cleanup: named, and Koordinator not "restored" or "reinstalled" for it.
	d.mentions(f, "job-platform")
	d.never(f, reinstall, restoreController)
}
