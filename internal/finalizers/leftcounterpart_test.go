package finalizers

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A status field that names a thing of the object's own kind by another name is its
// counterpart elsewhere, named; the object's own name, a relation (`parent…`), another kind's
// name and the spec's choice are not. A spec's role or key the object acts under is not left
// behind; a spec ARN of anything else still is.
func TestRecordedCounterpart(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "jobs.example.io/v1",
		"kind":       "TrainingJob",
		"metadata":   map[string]any{"name": "train-1", "namespace": "ml"},
		"spec": map[string]any{
			"trainingJobName": "chosen-by-user",
			"roleArn":         "arn:aws:iam::123456789012:role/trainer",
			"kmsKeyId":        "arn:aws:kms:us-west-2:123456789012:key/1234abcd",
			"bucketArn":       "arn:aws:s3:::made-for-it",
		},
		"status": map[string]any{
			"remoteTrainingJobName": "train-1-7e1d1c3e0b8a11eb",
			"trainingJobName":       "train-1",
			"parentTrainingJobName": "train-0",
			"podName":               "train-1-worker-0",
			"cloudWatchLogUrl":      "https://console.example/logs?prefix=train-1",
		},
	}}
	got := strings.Join(recordedResources(obj), "; ")
	for _, want := range []string{
		"external TrainingJob train-1-7e1d1c3e0b8a11eb (status.remoteTrainingJobName)",
		"external resource arn:aws:s3:::made-for-it (spec.bucketArn)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("recordedResources lacks %q: %s", want, got)
		}
	}
	for _, unwanted := range []string{"chosen-by-user", "(status.trainingJobName)", "train-0", "train-1-worker-0", "role/trainer", "key/1234abcd", "console.example"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("recordedResources names %q: %s", unwanted, got)
		}
	}
}

// The generic cost of a finalizer without a domain (whose controller is unknown, perhaps
// uninstalled) is replaced by what the object records, as the generic cost of a domain's
// unknown controller is; a known finalizer's own description stays.
func TestNameLeftoversDomainlessCost(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"kind":     "TrainingJob",
		"metadata": map[string]any{"name": "train-1"},
		"status":   map[string]any{"modelPath": "s3://models/train-1/output/model.tar.gz"},
	}}
	for _, tc := range []struct{ cost, want string }{
		{"left behind: whatever that controller would have cleaned up", "s3://models/train-1/output/model.tar.gz (status.modelPath)"},
		{"left behind: whatever the controller would have cleaned up outside the cluster", "s3://models/train-1/output/model.tar.gz (status.modelPath)"},
		{"left behind: the volume stays attached", "left behind: the volume stays attached"},
	} {
		e := &Explanation{Object: ObjectRef{Group: "jobs.example.io", Kind: "TrainingJob", Name: "train-1"}, Finalizers: []Finalizer{{Name: "hold", Remedies: []Remediation{{Code: ReasonStripFinalizer, LastResort: true, Cost: tc.cost}}}}}
		nameLeftovers(e, obj)
		if got := e.Finalizers[0].Remedies[0].Cost; !strings.Contains(got, tc.want) {
			t.Errorf("cost %q: became %q, want it to contain %q", tc.cost, got, tc.want)
		}
	}
}
