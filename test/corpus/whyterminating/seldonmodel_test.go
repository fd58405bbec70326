package whyterminating_test

import (
	"strings"
	"testing"
	"time"
)

// Report: https://github.com/SeldonIO/seldon-core/pull/4583 ("Fix model delete hang when
// FailedSchedule", Seldon Core v2.0): "when the model fails scheduling (i.e. no server is
// assigned) then it gets stuck when deleting it afterwards. The reason being is that previously
// when we delete a model that has no server associated, we did not send an update status event.
// Therefore the controller never received a ModelTerminated status change and therefore got
// stuck in the finaliser" (#5043, open for months, gives the users' way out: "manually remove
// the finaliser"). The controller manager runs, the scheduler runs; the Model, whose own status
// says it was never scheduled (ModelReady False, "failed to schedule model"), is on no server:
// removing seldon.model.finalizer by hand leaves nothing loaded anywhere. Nothing is to be
// reinstalled or restarted.
//
// Modelled on the Helm charts seldon-core-v2-crds and seldon-core-v2-setup of v2.0.0 (Jan 2023),
// installed into seldon-mesh as the docs say: the ServiceAccounts seldon-controller-manager,
// seldon-scheduler and seldon-server, the namespaced Role seldon-manager-role (mlops.seldon.io
// models, servers, serverconfigs, pipelines, experiments, their finalizers and status; the
// StatefulSets and Services it makes) and its binding, the scheduler's and agent's Roles, the
// Deployment seldon-controller-manager and StatefulSet seldon-scheduler, the ServerConfig and
// Server mlserver with the StatefulSet the controller made for it; the finalizer and the
// ModelReady condition are the controller's own (operator/pkg/constants, operator/scheduler).
func TestCorpusSeldonModelThatFailedScheduling(t *testing.T) {
	crd2 := func(kind, plural string) crd {
		return crd{group: "mlops.seldon.io", kind: kind, plural: plural, namespaced: true, versions: []string{"v1alpha1"}}
	}
	replay{
		crds: []crd{crd2("Model", "models"), crd2("Server", "servers"), crd2("ServerConfig", "serverconfigs"), crd2("Pipeline", "pipelines"), crd2("Experiment", "experiments")},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: seldon-mesh
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: seldon-controller-manager
  namespace: seldon-mesh
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: seldon-scheduler
  namespace: seldon-mesh
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: seldon-server
  namespace: seldon-mesh
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: seldon-manager-role
  namespace: seldon-mesh
rules:
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: [""]
  resources: ["services"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["apps"]
  resources: ["statefulsets"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["apps"]
  resources: ["statefulsets/status"]
  verbs: ["get"]
- apiGroups: ["mlops.seldon.io"]
  resources: ["experiments", "models", "pipelines", "serverconfigs", "servers"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["mlops.seldon.io"]
  resources: ["experiments/finalizers", "models/finalizers", "pipelines/finalizers", "serverconfigs/finalizers", "servers/finalizers"]
  verbs: ["update"]
- apiGroups: ["mlops.seldon.io"]
  resources: ["experiments/status", "models/status", "pipelines/status", "serverconfigs/status", "servers/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: seldon-manager-rolebinding
  namespace: seldon-mesh
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: seldon-manager-role
subjects:
- kind: ServiceAccount
  name: seldon-controller-manager
  namespace: seldon-mesh
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: seldon-scheduler-role
  namespace: seldon-mesh
rules:
- apiGroups: [""]
  resources: ["secrets", "configmaps"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: seldon-scheduler-rolebinding
  namespace: seldon-mesh
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: seldon-scheduler-role
subjects:
- kind: ServiceAccount
  name: seldon-scheduler
  namespace: seldon-mesh
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: agent-role
  namespace: seldon-mesh
rules:
- apiGroups: [""]
  resources: ["configmaps", "secrets"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: agent-rolebinding
  namespace: seldon-mesh
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: agent-role
subjects:
- kind: ServiceAccount
  name: seldon-server
  namespace: seldon-mesh
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: seldon-controller-manager
  namespace: seldon-mesh
  labels:
    control-plane: controller-manager
spec:
  replicas: 1
  selector:
    matchLabels:
      control-plane: controller-manager
  template:
    metadata:
      labels:
        control-plane: controller-manager
    spec:
      serviceAccountName: seldon-controller-manager
      containers:
      - name: manager
        image: docker.io/seldonio/seldonv2-controller:2.0.0
        command: ["/manager"]
        args: ["--health-probe-bind-address=:8081", "--leader-elect", "--scheduler-host=$(SELDON_SCHEDULER_SVC)", "--scheduler-plaintxt-port=$(SELDON_SCHEDULER_PLAINTXT_PORT)", "--namespace=$(POD_NAMESPACE)"]
        env:
        - name: SELDON_SCHEDULER_SVC
          value: seldon-scheduler
        - name: SELDON_SCHEDULER_PLAINTXT_PORT
          value: "9004"
        - name: POD_NAMESPACE
          valueFrom:
            fieldRef:
              fieldPath: metadata.namespace
---
apiVersion: v1
kind: Service
metadata:
  name: seldon-scheduler
  namespace: seldon-mesh
spec:
  selector:
    control-plane: seldon-scheduler
  ports:
  - name: xds
    port: 9002
  - name: scheduler
    port: 9004
  - name: agent
    port: 9005
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: seldon-scheduler
  namespace: seldon-mesh
  labels:
    control-plane: seldon-scheduler
spec:
  replicas: 1
  serviceName: seldon-scheduler
  selector:
    matchLabels:
      control-plane: seldon-scheduler
  template:
    metadata:
      labels:
        control-plane: seldon-scheduler
    spec:
      serviceAccountName: seldon-scheduler
      containers:
      - name: scheduler
        image: docker.io/seldonio/seldon-scheduler:2.0.0
        command: ["/bin/scheduler"]
        args: ["--pipeline-gateway-host=seldon-pipelinegateway", "--db-path=/mnt/scheduler/db"]
---
apiVersion: mlops.seldon.io/v1alpha1
kind: ServerConfig
metadata:
  name: mlserver
  namespace: seldon-mesh
spec:
  podSpec:
    serviceAccountName: seldon-server
    containers:
    - name: mlserver
      image: docker.io/seldonio/mlserver:1.2.0
---
apiVersion: mlops.seldon.io/v1alpha1
kind: Server
metadata:
  name: mlserver
  namespace: seldon-mesh
  finalizers:
  - seldon.server.finalizer
spec:
  serverConfig: mlserver
  replicas: 1
status:
  replicas: 1
  loadedModels: 0
  conditions:
  - type: Ready
    status: "True"
    lastTransitionTime: "2023-01-12T08:30:12Z"
  - type: StatefulSetReady
    status: "True"
    reason: StatefulSet replicas matches desired replicas
    lastTransitionTime: "2023-01-12T08:30:12Z"
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: mlserver
  namespace: seldon-mesh
  labels:
    seldon-server-name: mlserver
  ownerReferences:
  - apiVersion: mlops.seldon.io/v1alpha1
    kind: Server
    name: mlserver
    controller: true
    blockOwnerDeletion: true
spec:
  replicas: 1
  serviceName: mlserver
  selector:
    matchLabels:
      seldon-server-name: mlserver
  template:
    metadata:
      labels:
        seldon-server-name: mlserver
    spec:
      serviceAccountName: seldon-server
      containers:
      - name: mlserver
        image: docker.io/seldonio/mlserver:1.2.0
      - name: agent
        image: docker.io/seldonio/seldon-agent:2.0.0
      - name: rclone
        image: docker.io/seldonio/seldon-rclone:2.0.0
`,
		objects: `
apiVersion: mlops.seldon.io/v1alpha1
kind: Model
metadata:
  name: income-classifier
  namespace: seldon-mesh
  finalizers:
  - seldon.model.finalizer
spec:
  storageUri: gs://seldon-models/scv2/examples/income/classifier
  requirements:
  - catboost
  memory: 100Ki
status:
  replicas: 1
  conditions:
  - type: ModelReady
    status: "False"
    reason: "failed to schedule model income-classifier. [failed replica filter RequirementsReplicaFilter for server replica mlserver:0 : model requirements [catboost] replica capabilities [sklearn xgboost lightgbm mlflow alibi-explain alibi-detect huggingface]]"
    lastTransitionTime: "2023-01-12T09:14:40Z"
  - type: Ready
    status: "False"
    reason: "failed to schedule model income-classifier. [failed replica filter RequirementsReplicaFilter for server replica mlserver:0 : model requirements [catboost] replica capabilities [sklearn xgboost lightgbm mlflow alibi-explain alibi-detect huggingface]]"
    lastTransitionTime: "2023-01-12T09:14:40Z"
`,
		deletes: []string{"Model/seldon-mesh/income-classifier"},
	}.run(t)

	d := diagnoseAfter(t, 30*time.Minute, "models.mlops.seldon.io", "income-classifier", "-n", "seldon-mesh")
	d.exit(1, "STUCK")
	ref := "models.mlops.seldon.io/income-classifier -n seldon-mesh"
	f := d.finalizer(ref, "seldon.model.finalizer")
	d.remover(f, "deployments.apps/seldon-controller-manager -n seldon-mesh", true)
	d.notRemover(f, "statefulsets.apps/mlserver -n seldon-mesh")
	d.never(f, reinstall, restoreController)
	d.notDeleting(ref, "a model unfinalized for half an hour")
	// Never scheduled, the model is on no server: removing the finalizer is the way out, and it
	// leaves nothing behind that the controller would have removed — the model's storageUri is
	// where it reads its artifacts from, which Seldon never deletes.
	d.offers(f, stripFinalizer)
	for _, r := range f.Remedies {
		if r.Code == stripFinalizer && strings.Contains(r.Summary+r.Cost, "gs://seldon-models") {
			t.Errorf("the strip's cost %q names the model's artifacts (spec.storageUri, what it reads) as left behind", r.Cost)
		}
	}
}
