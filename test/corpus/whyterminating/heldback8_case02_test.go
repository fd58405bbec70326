package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/lyft/flinkk8soperator/issues/13 ("Flink cluster got into a bad
// state", operator v0.1): the quick start's FlinkApplication wordcount-operator-example was
// deleted; `oc delete` returned, the object stayed, and so did its job cluster's pods. A second
// user: "The operator is unable to delete the underlying deployments if they're in a bad state. A
// workaround is to run kubectl patch flinkapplications/{APPLICATION_NAME} -p
// '{"metadata":{"finalizers":[]}}' --type=merge". The maintainers: the example's job completes
// (FINISHED), and "the resource is stuck in Deletion as we cannot savepoint as there is no flink
// job running in the cluster. Hence the finalizer is not getting cleared" (fixed by #30; #58
// adds that spec.deleteMode None makes the operator let go without a savepoint). The operator
// runs and acts on the object; nothing it could still do would remove the finalizer. The way out
// is to remove job.finalizers.flink.k8s.io by hand (or set deleteMode None), after which the job
// cluster's Deployments, which the application owns, go with it.
//
// Modelled on deploy/ of lyft/flinkk8soperator at v0.1.1 (the report's era): namespace
// flink-operator, the ConfigMap flink-operator-config, ServiceAccount, ClusterRole and
// ClusterRoleBinding flinkoperator (flinkapplications and their finalizers, the Deployments,
// Services and Ingresses it makes), the Deployment flinkoperator; the CRD
// flinkapplications.flink.k8s.io (v1alpha1). The application is the quick start's example as
// the operator leaves it once deletion began: phase Deleting, its job FINISHED, its job manager
// and task manager Deployments (<name>-<hash>-jm, -tm, controller-owned by the application,
// label flink-app) and the job manager Service still there.
func TestCorpusFlinkApplicationWithNoJobToSavepoint(t *testing.T) {
	replay{
		crds: []crd{{group: "flink.k8s.io", kind: "FlinkApplication", plural: "flinkapplications", namespaced: true, versions: []string{"v1alpha1"}, annotations: map[string]string{"api-approved.kubernetes.io": "unapproved, a group the project chose before the policy"}}},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: flink-operator
---
apiVersion: v1
kind: Namespace
metadata:
  name: streaming
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: flink-operator-config
  namespace: flink-operator
data:
  config: |-
    operator:
      ingressUrlFormat: "{{$jobCluster}}.{ingress_suffix}"
    logger:
      level: 4
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: flinkoperator
  namespace: flink-operator
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: flinkoperator
rules:
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["services"]
  verbs: ["create", "get", "list", "watch", "update", "delete"]
- apiGroups: ["extensions", "apps"]
  resources: ["deployments", "deployments/status", "ingresses", "ingresses/status"]
  verbs: ["get", "list", "watch", "create", "update", "delete"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "update", "patch"]
- apiGroups: ["apiextensions.k8s.io"]
  resources: ["customresourcedefinitions"]
  verbs: ["get", "list", "watch", "create", "update"]
- apiGroups: ["flink.k8s.io"]
  resources: ["flinkapplications", "flinkapplications/finalizers"]
  verbs: ["get", "list", "watch", "create", "update", "delete", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: flinkoperator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: flinkoperator
subjects:
- kind: ServiceAccount
  name: flinkoperator
  namespace: flink-operator
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: flinkoperator
  namespace: flink-operator
  labels:
    app: flinkoperator
spec:
  replicas: 1
  selector:
    matchLabels:
      app: flinkoperator
  template:
    metadata:
      labels:
        app: flinkoperator
        app.kubernetes.io/version: 0.1.1
    spec:
      serviceAccountName: flinkoperator
      volumes:
      - name: config-volume
        configMap:
          name: flink-operator-config
          items:
          - key: config
            path: config.yaml
      containers:
      - name: flinkoperator-gojson
        image: docker.io/lyft/flinkk8soperator:v0.1.1
        command: ["flinkoperator"]
        args: ["--logtostderr", "--config", "/etc/flinkoperator/config*/config.yaml"]
        env:
        - name: OPERATOR_NAME
          value: flinkk8soperator
        volumeMounts:
        - name: config-volume
          mountPath: /etc/flinkoperator/config
`,
		objects: `
apiVersion: flink.k8s.io/v1alpha1
kind: FlinkApplication
metadata:
  name: wordcount-operator-example
  namespace: streaming
  labels:
    environment: development
  finalizers:
  - job.finalizers.flink.k8s.io
spec:
  image: docker.io/lyft/wordcount-operator-example:latest
  flinkConfig:
    taskmanager.heap.size: 200
    state.backend.fs.checkpointdir: file:///checkpoints/flink/checkpoints
    state.checkpoints.dir: file:///checkpoints/flink/externalized-checkpoints
    state.savepoints.dir: file:///checkpoints/flink/savepoints
  jobManagerConfig:
    replicas: 1
  taskManagerConfig:
    taskSlots: 2
  flinkVersion: "1.8"
  jarName: wordcount-operator-example-1.0.0-SNAPSHOT.jar
  parallelism: 3
  entryClass: org.apache.flink.WordCount
  deploymentMode: ""
  restartNonce: ""
  deleteMode: ""
status:
  phase: Deleting
  deployHash: 4e1a2b7c
  clusterStatus:
    health: Green
    numberOfTaskManagers: 2
    healthyTaskManagers: 2
    numberOfTaskSlots: 4
    availableTaskSlots: 4
  jobStatus:
    jobID: 7fa3c1d09be24a4f8a2e58c06d1b9e55
    health: Green
    state: FINISHED
    jarName: wordcount-operator-example-1.0.0-SNAPSHOT.jar
    parallelism: 3
    entryClass: org.apache.flink.WordCount
---
apiVersion: v1
kind: Service
metadata:
  name: wordcount-operator-example-4e1a2b7c
  namespace: streaming
  labels:
    flink-app: wordcount-operator-example
    flink-app-hash: 4e1a2b7c
    flink-deployment-type: jobmanager
  ownerReferences:
  - apiVersion: flink.k8s.io/v1alpha1
    kind: FlinkApplication
    name: wordcount-operator-example
    controller: true
    blockOwnerDeletion: true
spec:
  selector:
    flink-app: wordcount-operator-example
    flink-app-hash: 4e1a2b7c
    flink-deployment-type: jobmanager
  ports:
  - name: rpc
    port: 6123
  - name: blob
    port: 6124
  - name: query
    port: 6125
  - name: ui
    port: 8081
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: wordcount-operator-example-4e1a2b7c-jm
  namespace: streaming
  labels:
    flink-app: wordcount-operator-example
    flink-app-hash: 4e1a2b7c
    flink-deployment-type: jobmanager
    environment: development
  ownerReferences:
  - apiVersion: flink.k8s.io/v1alpha1
    kind: FlinkApplication
    name: wordcount-operator-example
    controller: true
    blockOwnerDeletion: true
spec:
  replicas: 1
  strategy:
    type: Recreate
  selector:
    matchLabels:
      flink-app: wordcount-operator-example
      flink-app-hash: 4e1a2b7c
      flink-deployment-type: jobmanager
  template:
    metadata:
      labels:
        flink-app: wordcount-operator-example
        flink-app-hash: 4e1a2b7c
        flink-deployment-type: jobmanager
        environment: development
    spec:
      containers:
      - name: jobmanager
        image: docker.io/lyft/wordcount-operator-example:latest
        args: ["jobmanager"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: wordcount-operator-example-4e1a2b7c-tm
  namespace: streaming
  labels:
    flink-app: wordcount-operator-example
    flink-app-hash: 4e1a2b7c
    flink-deployment-type: taskmanager
    environment: development
  ownerReferences:
  - apiVersion: flink.k8s.io/v1alpha1
    kind: FlinkApplication
    name: wordcount-operator-example
    controller: true
    blockOwnerDeletion: true
spec:
  replicas: 2
  strategy:
    type: Recreate
  selector:
    matchLabels:
      flink-app: wordcount-operator-example
      flink-app-hash: 4e1a2b7c
      flink-deployment-type: taskmanager
  template:
    metadata:
      labels:
        flink-app: wordcount-operator-example
        flink-app-hash: 4e1a2b7c
        flink-deployment-type: taskmanager
        environment: development
    spec:
      containers:
      - name: taskmanager
        image: docker.io/lyft/wordcount-operator-example:latest
        args: ["taskmanager"]
`,
		deletes: []string{"FlinkApplication/streaming/wordcount-operator-example"},
	}.run(t)

	// The report: still there 28 minutes after its creation, minutes after the delete.
	d := diagnoseAfter(t, 20*time.Minute, "flinkapplications.flink.k8s.io", "wordcount-operator-example", "-n", "streaming")
	d.exit(1, "STUCK")
	ref := "flinkapplications.flink.k8s.io/wordcount-operator-example -n streaming"
	f := d.finalizer(ref, "job.finalizers.flink.k8s.io")
	// The operator runs and is the remover; the job cluster it made is not.
	d.remover(f, "deployments.apps/flinkoperator -n flink-operator", true)
	d.notRemover(f, "deployments.apps/wordcount-operator-example-4e1a2b7c-jm -n streaming")
	d.notRemover(f, "deployments.apps/wordcount-operator-example-4e1a2b7c-tm -n streaming")
	d.never(f, reinstall, restoreController)
	d.notDeleting(ref, "an application unfinalized for 20 minutes")
	// Nothing the operator could still do removes the finalizer: removing it by hand is the way
	// out the thread gives.
	d.offers(f, stripFinalizer)
}
