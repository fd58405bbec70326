package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/kubeflow/katib/issues/1016 ("Why the trials can t be deleted?",
// Katib v1alpha3 in Kubeflow, Jan 2020): the Experiments are gone ("kubectl -n kubeflow get
// experiment: No resources found", their Jobs too), but six Trials stay, listed Running; their
// description shows a deletion timestamp and the finalizer clean-metrics-in-db. The reporter's
// way out: "Maybe deleting the Finalizers desc can make it", and the issue was closed. The trial
// controller removes that finalizer only after deleting the trial's observation logs through
// katib-db-manager (pkg/controller.v1alpha3/trial: updateFinalizers, DeleteTrialObservationLog);
// it runs and acts on the trials. Nothing is to be reinstalled; removing the finalizer by hand
// leaves the trial's metrics in Katib's database. Kubeflow's profile controller, bound to
// cluster-admin and serving a CRD of the same group kubeflow.org, runs too: it is not the remover.
//
// Modelled on manifests/v1alpha3 of kubeflow/katib at the report's date (namespace kubeflow: the
// ServiceAccount, ClusterRole and binding katib-controller, the Deployment katib-controller, the
// Deployments and Services katib-db-manager and katib-mysql; the CRDs experiments, trials,
// suggestions of kubeflow.org, v1alpha3) and on Kubeflow 1.0's profiles component (the CRD
// profiles.kubeflow.org, the ServiceAccount profiles-controller-service-account bound to
// cluster-admin, the Deployment profiles-deployment). The Trial is one of the report's, owned by
// its Experiment (gone), with the Created and Running conditions the report lists.
func TestCorpusKatibTrialsOfADeletedExperiment(t *testing.T) {
	katib := func(kind, plural string) crd {
		return crd{group: "kubeflow.org", kind: kind, plural: plural, namespaced: true, versions: []string{"v1alpha3"}}
	}
	replay{
		crds: []crd{katib("Experiment", "experiments"), katib("Trial", "trials"), katib("Suggestion", "suggestions"),
			{group: "kubeflow.org", kind: "Profile", plural: "profiles", versions: []string{"v1beta1"}, labels: map[string]string{"kustomize.component": "profiles"}}},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: kubeflow
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: katib-controller
  namespace: kubeflow
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: katib-controller
rules:
- apiGroups: [""]
  resources: ["configmaps", "serviceaccounts", "services", "secrets", "events", "namespaces"]
  verbs: ["*"]
- apiGroups: [""]
  resources: ["pods", "pods/log", "pods/status"]
  verbs: ["*"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["*"]
- apiGroups: ["batch"]
  resources: ["jobs", "cronjobs"]
  verbs: ["*"]
- apiGroups: ["apiextensions.k8s.io"]
  resources: ["customresourcedefinitions"]
  verbs: ["create", "get"]
- apiGroups: ["admissionregistration.k8s.io"]
  resources: ["validatingwebhookconfigurations", "mutatingwebhookconfigurations"]
  verbs: ["*"]
- apiGroups: ["kubeflow.org"]
  resources: ["experiments", "experiments/status", "trials", "trials/status", "suggestions", "suggestions/status"]
  verbs: ["*"]
- apiGroups: ["kubeflow.org"]
  resources: ["tfjobs", "pytorchjobs"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: katib-controller
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: katib-controller
subjects:
- kind: ServiceAccount
  name: katib-controller
  namespace: kubeflow
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: katib-controller
  namespace: kubeflow
  labels:
    app: katib-controller
spec:
  replicas: 1
  selector:
    matchLabels:
      app: katib-controller
  template:
    metadata:
      labels:
        app: katib-controller
    spec:
      serviceAccountName: katib-controller
      containers:
      - name: katib-controller
        image: gcr.io/kubeflow-images-public/katib/v1alpha3/katib-controller:v0.8.0
        command: ["./katib-controller"]
        args: ["--webhook-port=8443"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: katib-db-manager
  namespace: kubeflow
  labels:
    app: katib
    component: db-manager
spec:
  replicas: 1
  selector:
    matchLabels:
      app: katib
      component: db-manager
  template:
    metadata:
      labels:
        app: katib
        component: db-manager
    spec:
      containers:
      - name: katib-db-manager
        image: gcr.io/kubeflow-images-public/katib/v1alpha3/katib-db-manager:v0.8.0
        command: ["./katib-db-manager"]
        env:
        - name: DB_NAME
          value: mysql
---
apiVersion: v1
kind: Service
metadata:
  name: katib-db-manager
  namespace: kubeflow
  labels:
    app: katib
    component: db-manager
spec:
  selector:
    app: katib
    component: db-manager
  ports:
  - name: api
    port: 6789
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: katib-mysql
  namespace: kubeflow
  labels:
    app: katib
    component: mysql
spec:
  replicas: 1
  selector:
    matchLabels:
      app: katib
      component: mysql
  template:
    metadata:
      labels:
        app: katib
        component: mysql
    spec:
      containers:
      - name: katib-mysql
        image: mysql:8
---
apiVersion: v1
kind: Service
metadata:
  name: katib-mysql
  namespace: kubeflow
  labels:
    app: katib
    component: mysql
spec:
  selector:
    app: katib
    component: mysql
  ports:
  - name: dbapi
    port: 3306
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: profiles-controller-service-account
  namespace: kubeflow
  labels:
    kustomize.component: profiles
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: profiles-cluster-role-binding
  labels:
    kustomize.component: profiles
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-admin
subjects:
- kind: ServiceAccount
  name: profiles-controller-service-account
  namespace: kubeflow
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: profiles-deployment
  namespace: kubeflow
  labels:
    kustomize.component: profiles
spec:
  replicas: 1
  selector:
    matchLabels:
      kustomize.component: profiles
  template:
    metadata:
      labels:
        kustomize.component: profiles
    spec:
      serviceAccountName: profiles-controller-service-account
      containers:
      - name: manager
        image: gcr.io/kubeflow-images-public/profile-controller:v1.0.0
        command: ["/manager"]
        args: ["-userid-header", "kubeflow-userid", "-userid-prefix", ""]
`,
		objects: `
apiVersion: kubeflow.org/v1alpha3
kind: Trial
metadata:
  name: tfjob-example-6ljt9czh
  namespace: kubeflow
  labels:
    experiment: tfjob-example
  finalizers:
  - clean-metrics-in-db
  ownerReferences:
  - apiVersion: kubeflow.org/v1alpha3
    kind: Experiment
    name: tfjob-example
    uid: 5d0b7c2e-3771-11ea-8c4f-fa163e2ab1c0
    controller: true
    blockOwnerDeletion: true
spec:
  objective:
    type: maximize
    goal: 0.99
    objectiveMetricName: accuracy_1
  parameterAssignments:
  - name: --learning_rate
    value: "0.0279"
  - name: --batch_size
    value: "112"
  metricsCollector:
    collector:
      kind: TensorFlowEvent
  runSpec: |-
    apiVersion: "kubeflow.org/v1"
    kind: TFJob
    metadata:
      name: tfjob-example-6ljt9czh
      namespace: kubeflow
status:
  startTime: "2020-01-15T06:22:47Z"
  conditions:
  - type: Created
    status: "True"
    reason: TrialCreated
    message: Trial is created
    lastUpdateTime: "2020-01-15T06:22:47Z"
    lastTransitionTime: "2020-01-15T06:22:47Z"
  - type: Running
    status: "True"
    reason: TrialRunning
    message: Trial is running
    lastUpdateTime: "2020-01-15T06:23:02Z"
    lastTransitionTime: "2020-01-15T06:23:02Z"
`,
		deletes: []string{"Trial/kubeflow/tfjob-example-6ljt9czh"},
	}.run(t)

	d := diagnoseAfter(t, 30*time.Minute, "trials.kubeflow.org", "tfjob-example-6ljt9czh", "-n", "kubeflow")
	d.exit(1, "STUCK")
	ref := "trials.kubeflow.org/tfjob-example-6ljt9czh -n kubeflow"
	f := d.finalizer(ref, "clean-metrics-in-db")
	// Katib's controller is the remover, not Kubeflow's cluster-admin profile controller.
	d.remover(f, "deployments.apps/katib-controller -n kubeflow", true)
	d.notRemover(f, "deployments.apps/profiles-deployment -n kubeflow")
	d.never(f, reinstall, restoreController)
	d.notDeleting(ref, "a trial unfinalized for half an hour")
	d.offers(f, stripFinalizer)
	// The Experiment's deletion is what cascaded to its Trials, and katib-controller reconciles
	// Trials as its own type: the gone owner is not what holds the finalizer.
	for _, b := range f.Blockers {
		if b.Object.Resource == "experiments" {
			t.Errorf("the deleted Experiment %s named as the blocker (%s)", b.Object, b.Reason)
		}
	}
}
