package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/kubeflow/trainer/issues/3715 ("Remove Finalizer from Runtimes"), with
// KEP-2599's motivation (#3428): Kubeflow Trainer puts trainer.kubeflow.org/resource-in-use on a
// ClusterTrainingRuntime while TrainJobs refer to it (spec.runtimeRef) and removes it once none
// does. "If a user uninstalls the trainer whilst they have TrainJobs running then any finalizers
// on the runtimes are never removed. This means that these runtimes are never actually deleted,
// preventing users from re-installing the trainer without manually removing the finalizers." The
// way out by hand is removing that finalizer (the maintainers then dropped the mechanism, #3716,
// and strip it on upgrade); the TrainJob that still refers to the runtime is not what holds it:
// no controller is left to notice that it went.
//
// Modelled on the trainer's manifests (manifests/base, v2.0): the CRDs clustertrainingruntimes,
// trainingruntimes and trainjobs of trainer.kubeflow.org remain after the uninstall removed the
// namespace kubeflow-system with the controller manager, its ServiceAccount and RBAC (and the
// JobSet controller it ships). The runtime torch-distributed as the manifests' runtimes install
// it, deleted with the rest of the uninstall; the TrainJob of a user in team-a that still refers
// to it.
func TestCorpusTrainerRuntimeInUseAfterTheTrainerWasUninstalled(t *testing.T) {
	replay{
		crds: []crd{
			{group: "trainer.kubeflow.org", kind: "ClusterTrainingRuntime", plural: "clustertrainingruntimes", versions: []string{"v1alpha1"}},
			{group: "trainer.kubeflow.org", kind: "TrainingRuntime", plural: "trainingruntimes", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "trainer.kubeflow.org", kind: "TrainJob", plural: "trainjobs", namespaced: true, versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: team-a
`,
		objects: `
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: torch-distributed
  labels: {trainer.kubeflow.org/framework: torch}
  finalizers: [trainer.kubeflow.org/resource-in-use]
spec:
  mlPolicy:
    numNodes: 1
    torch:
      numProcPerNode: auto
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata:
            labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
          spec:
            template:
              spec:
                containers:
                - name: node
                  image: pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime
                  command: ["/bin/bash", "-c", "echo 'Torch Distributed Runtime'"]
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: fine-tune-llama
  namespace: team-a
spec:
  runtimeRef:
    apiGroup: trainer.kubeflow.org
    kind: ClusterTrainingRuntime
    name: torch-distributed
  trainer:
    numNodes: 2
    resourcesPerNode:
      limits: {nvidia.com/gpu: "4"}
status:
  conditions:
  - type: Created
    status: "True"
    reason: JobSetCreated
    message: Succeeded to create JobSet
    lastTransitionTime: "2026-07-09T11:02:31Z"
`,
		deletes: []string{"ClusterTrainingRuntime//torch-distributed"},
	}.run(t)

	d := diagnoseAfter(t, 2*time.Hour, "clustertrainingruntimes.trainer.kubeflow.org", "torch-distributed")
	d.exit(1, "STUCK")
	f := d.finalizer("clustertrainingruntimes.trainer.kubeflow.org/torch-distributed", "trainer.kubeflow.org/resource-in-use")
	// The trainer is uninstalled: no controller of the finalizer's domain runs.
	d.noRunningRemover(f)
	d.verdict(f, controllerAbsent)
	// Removing the finalizer by hand (or reinstalling the trainer) is the way out; the logs of a
	// controller that is gone are not.
	d.offers(f, stripFinalizer)
	d.never(f, readLogs)
}
