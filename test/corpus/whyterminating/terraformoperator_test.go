package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/GalleyBytes/terraform-operator/issues/104 ("Stuck deleting"): a
// Terraform object (tf.isaaguilar.com, operator v0.8) whose custom backend could not be written
// errored out; deleting it hangs. "It seems whenever a TF is deleted, it tries spinning up an
// init-delete container - however that container errors out. Is this why it's stuck?" The
// maintainer: the finalizer is added unless spec.ignoreDelete is true, so that the operator
// cleans up what it created; "since TFO is failing to finish the cleanup for whatever reason",
// remove the finalizer by hand (kubectl patch tf <name> -p '{"metadata":{"finalizers":null}}').
// Nothing was created (the backend was never written), so nothing is lost.
//
// Modelled on the operator's deploy/ of July 2022 (namespace tf-system; the Deployment
// terraform-operator, its ServiceAccount and the ClusterRole terraform-operator with '*' on
// tf.isaaguilar.com and core, RBAC and batch resources, and its binding) and on what the
// operator made for the object in its namespace: the runner's ServiceAccount and the
// init-delete pod it started for the deletion, owned by the object, which failed.
func TestCorpusTerraformOperatorDeletePodFails(t *testing.T) {
	replay{
		crds: []crd{
			{group: "tf.isaaguilar.com", kind: "Terraform", plural: "terraforms", namespaced: true, versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: tf-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: terraform-operator
  namespace: tf-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: terraform-operator
rules:
- apiGroups: [""]
  resources: ["pods", "services", "services/finalizers", "endpoints", "persistentvolumeclaims", "events", "configmaps", "secrets", "serviceaccounts", "nodes"]
  verbs: ["*"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["roles", "rolebindings", "clusterroles", "clusterrolebindings"]
  verbs: ["*"]
- apiGroups: ["apps"]
  resources: ["deployments", "daemonsets", "replicasets", "statefulsets"]
  verbs: ["*"]
- apiGroups: ["batch"]
  resources: ["jobs"]
  verbs: ["*"]
- apiGroups: ["apps"]
  resourceNames: ["terraform-operator"]
  resources: ["deployments/finalizers"]
  verbs: ["update"]
- apiGroups: ["tf.isaaguilar.com"]
  resources: ["*"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: terraform-operator
subjects:
- kind: ServiceAccount
  name: terraform-operator
  namespace: tf-system
roleRef:
  kind: ClusterRole
  name: terraform-operator
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: terraform-operator
  namespace: tf-system
spec:
  replicas: 1
  selector:
    matchLabels:
      name: terraform-operator
  template:
    metadata:
      labels:
        name: terraform-operator
    spec:
      serviceAccountName: terraform-operator
      containers:
      - name: terraform-operator
        image: ghcr.io/isaaguilar/terraform-operator:v0.8.2
        command: ["terraform-operator"]
        env:
        - name: WATCH_NAMESPACE
          value: ""
        - name: OPERATOR_NAME
          value: terraform-operator
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: infra
---
apiVersion: tf.isaaguilar.com/v1alpha1
kind: Terraform
metadata:
  name: bucket
  namespace: infra
  finalizers:
  - finalizer.tf.isaaguilar.com
spec:
  terraformVersion: 1.1.7
  terraformModule: https://github.com/example-org/tf-modules.git//s3-bucket?ref=v1.2.0
  customBackend: |-
    terraform {
      backend "s3" {
        bucket = "tfstate-team-a"
        key    = "bucket.tfstate"
        region = "us-east-1"
      }
    }
  ignoreDelete: false
status:
  podNamePrefix: bucket-q7x2kd9m
  phase: deleting
  lastCompletedGeneration: 0
  stages:
  - generation: 1
    state: failed
    podType: init
    interruptible: false
    reason: ""
    startTime: "2022-07-26T13:02:10Z"
    stopTime: "2022-07-26T13:02:41Z"
  - generation: 1
    state: failed
    podType: init-delete
    interruptible: false
    reason: TF_RESOURCE_DELETED
    startTime: "2022-07-26T13:20:05Z"
    stopTime: "2022-07-26T13:20:39Z"
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: tf-bucket-q7x2kd9m-v1
  namespace: infra
  labels:
    terraforms.tf.isaaguilar.com/generation: "1"
    terraforms.tf.isaaguilar.com/resourceName: bucket
    terraforms.tf.isaaguilar.com/podPrefix: bucket-q7x2kd9m
    app.kubernetes.io/name: terraform-operator
    app.kubernetes.io/component: terraform-operator-runner
    app.kubernetes.io/created-by: controller
  ownerReferences:
  - apiVersion: tf.isaaguilar.com/v1alpha1
    kind: Terraform
    name: bucket
    controller: true
---
apiVersion: v1
kind: Pod
metadata:
  name: bucket-q7x2kd9m-v1-init-delete-8wz4n
  namespace: infra
  labels:
    terraforms.tf.isaaguilar.com/generation: "1"
    terraforms.tf.isaaguilar.com/resourceName: bucket
    terraforms.tf.isaaguilar.com/podPrefix: bucket-q7x2kd9m
    terraforms.tf.isaaguilar.com/terraformVersion: 1.1.7
    app.kubernetes.io/name: terraform-operator
    app.kubernetes.io/component: terraform-operator-runner
    app.kubernetes.io/created-by: controller
    app.kubernetes.io/instance: init-delete
  ownerReferences:
  - apiVersion: tf.isaaguilar.com/v1alpha1
    kind: Terraform
    name: bucket
    controller: true
spec:
  nodeName: worker-1
  serviceAccountName: tf-bucket-q7x2kd9m-v1
  restartPolicy: Never
  containers:
  - name: tf
    image: ghcr.io/galleybytes/terraform-operator-tftaskv1.1.0:1.1.7
    args: ["init"]
status:
  phase: Failed
  startTime: "2022-07-26T13:20:05Z"
  containerStatuses:
  - name: tf
    image: ghcr.io/galleybytes/terraform-operator-tftaskv1.1.0:1.1.7
    imageID: ""
    ready: false
    restartCount: 0
    state:
      terminated:
        exitCode: 1
        reason: Error
        startedAt: "2022-07-26T13:20:07Z"
        finishedAt: "2022-07-26T13:20:39Z"
`,
		deletes: []string{"Terraform/infra/bucket"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "terraforms.tf.isaaguilar.com", "bucket", "-n", "infra")
	d.exit(1, "STUCK")
	f := d.finalizer("terraforms.tf.isaaguilar.com/bucket -n infra", "finalizer.tf.isaaguilar.com")
	// The operator runs and is the remover; its cleanup ran as a pod it owns, which failed: that
	// pod is what an operator looks at first, and removing the finalizer by hand is the way out
	// the maintainer gave, never a reinstall.
	d.remover(f, "deployments.apps/terraform-operator -n tf-system", true)
	d.explains(f, "bucket-q7x2kd9m-v1-init-delete-8wz4n")
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
