package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/awslabs/aws-orbit-workbench/issues/665 ("Unable to delete
// trainingjob.sagemaker.aws.amazon.com"): destroying an Orbit team hangs on the TrainingJob
// xgboost-mnist-sm-operator-959r in namespace lake-user; a forced delete does nothing. The
// team's destroy had removed the Amazon SageMaker Operators for Kubernetes (its controller
// manager) before the TrainingJobs, and the operator's finalizer sagemaker-operator-finalizer,
// which only that controller removes (after stopping the job in SageMaker), stays. The reporter
// got moving by patching the finalizers away; the fix changed the destroy's order (training jobs
// first, then the operator). What the strip leaves: the training job in SageMaker that the
// object's status names.
//
// Modelled on the operator's install (amazon-sagemaker-operator-for-k8s, release/rolebased
// installer.yaml): its CRDs of sagemaker.aws.amazon.com remain (the destroy removed the
// operator's namespace sagemaker-k8s-operator-system with its controller manager, ServiceAccount
// and RBAC); the team namespace lake-user; the TrainingJob as the operator's samples show it
// (xgboost-mnist, spec.trainingJobName left to the operator, status with the SageMaker job name,
// its CloudWatch URL and the model path it wrote).
func TestCorpusSageMakerTrainingJobAfterItsOperatorWasDestroyed(t *testing.T) {
	replay{
		crds: []crd{
			{group: "sagemaker.aws.amazon.com", kind: "TrainingJob", plural: "trainingjobs", namespaced: true, versions: []string{"v1"}},
			{group: "sagemaker.aws.amazon.com", kind: "HyperparameterTuningJob", plural: "hyperparametertuningjobs", namespaced: true, versions: []string{"v1"}},
			{group: "sagemaker.aws.amazon.com", kind: "BatchTransformJob", plural: "batchtransformjobs", namespaced: true, versions: []string{"v1"}},
			{group: "sagemaker.aws.amazon.com", kind: "HostingDeployment", plural: "hostingdeployments", namespaced: true, versions: []string{"v1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: lake-user
  labels: {orbit/space: team, orbit/team: lake-user}
`,
		objects: `
apiVersion: sagemaker.aws.amazon.com/v1
kind: TrainingJob
metadata:
  name: xgboost-mnist-sm-operator-959r
  namespace: lake-user
  finalizers: [sagemaker-operator-finalizer]
spec:
  region: us-west-2
  roleArn: arn:aws:iam::123456789012:role/orbit-dev-lake-user-role
  algorithmSpecification:
    trainingImage: 433757028032.dkr.ecr.us-west-2.amazonaws.com/xgboost:1
    trainingInputMode: File
  hyperParameters:
  - {name: max_depth, value: "5"}
  - {name: num_round, value: "10"}
  - {name: objective, value: "multi:softmax"}
  - {name: num_class, value: "10"}
  outputDataConfig:
    s3OutputPath: s3://orbit-dev-lake-user/sagemaker/xgboost-mnist/models/
  inputDataConfig:
  - channelName: train
    dataSource:
      s3DataSource:
        s3DataType: S3Prefix
        s3Uri: s3://orbit-dev-lake-user/sagemaker/xgboost-mnist/train/
        s3DataDistributionType: FullyReplicated
    contentType: text/csv
    compressionType: None
  resourceConfig:
    instanceCount: 1
    instanceType: ml.m4.xlarge
    volumeSizeInGB: 5
  stoppingCondition:
    maxRuntimeInSeconds: 86400
status:
  trainingJobStatus: Completed
  secondaryStatus: Completed
  sageMakerTrainingJobName: xgboost-mnist-sm-operator-959r-7e1d1c3e0b8a11ebb4f40a
  cloudWatchLogUrl: https://us-west-2.console.aws.amazon.com/cloudwatch/home?region=us-west-2#logStream:group=/aws/sagemaker/TrainingJobs;prefix=xgboost-mnist-sm-operator-959r-7e1d1c3e0b8a11ebb4f40a;streamFilter=typeLogStreamPrefix
  modelPath: s3://orbit-dev-lake-user/sagemaker/xgboost-mnist/models/xgboost-mnist-sm-operator-959r-7e1d1c3e0b8a11ebb4f40a/output/model.tar.gz
  lastCheckTime: "2021-06-14T17:03:22Z"
`,
		deletes: []string{"TrainingJob/lake-user/xgboost-mnist-sm-operator-959r"},
	}.run(t)

	// The destroy's CodeBuild run timed out on it.
	d := diagnoseAfter(t, time.Hour, "trainingjobs.sagemaker.aws.amazon.com", "xgboost-mnist-sm-operator-959r", "-n", "lake-user")
	d.exit(1, "STUCK")
	f := d.finalizer("trainingjobs.sagemaker.aws.amazon.com/xgboost-mnist-sm-operator-959r -n lake-user", "sagemaker-operator-finalizer")
	// No controller of the finalizer's domain is installed any more.
	d.verdict(f, controllerAbsent)
	d.noRunningRemover(f)
	// Reinstalling the operator or removing the finalizer (what the thread did) are the ways out.
	d.offers(f, stripFinalizer)
	d.offers(f, reinstall, restoreController)
	// The strip leaves the remote job the status records under its own name, and the model the
	// job wrote to object storage.
	d.stripCosts(f, "xgboost-mnist-sm-operator-959r-7e1d1c3e0b8a11ebb4f40a (status.sageMakerTrainingJobName)",
		"s3://orbit-dev-lake-user/sagemaker/xgboost-mnist/models/xgboost-mnist-sm-operator-959r-7e1d1c3e0b8a11ebb4f40a/output/model.tar.gz (status.modelPath)")
	// The role it ran as is the team's, which existed before the job and outlives it.
	d.stripNeverCosts(f, "orbit-dev-lake-user-role")
}
