package finalizers

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestLeftBehind(t *testing.T) {
	obj := func(m map[string]any) *unstructured.Unstructured { return &unstructured.Unstructured{Object: m} }
	for _, tc := range []struct {
		name                   string
		obj                    *unstructured.Unstructured
		group, kind, finalizer string
		want                   string // "" when nothing is named
	}{
		{"nodeclaim instance", obj(map[string]any{"status": map[string]any{"providerID": "aws:///eu-central-1c/i-0bbed26474395ec00"}}), "karpenter.sh", "NodeClaim", "karpenter.sh/termination", "the cloud instance aws:///eu-central-1c/i-0bbed26474395ec00 keeps running"},
		{"nodeclaim not launched", obj(map[string]any{"status": map[string]any{}}), "karpenter.sh", "NodeClaim", "karpenter.sh/termination", ""},
		{"capi machine", obj(map[string]any{"spec": map[string]any{"providerID": "azure:///subscriptions/x/vm-0"}}), "cluster.x-k8s.io", "Machine", "machine.cluster.x-k8s.io", "the infrastructure machine azure:///subscriptions/x/vm-0"},
		{"crossplane external name", obj(map[string]any{"metadata": map[string]any{"annotations": map[string]any{"crossplane.io/external-name": "tenant-logs-7f2k"}}}), "s3.aws.upbound.io", "Bucket", "finalizer.managedresource.crossplane.io", "the external resource tenant-logs-7f2k stays in the provider's cloud"},
		{"crossplane other finalizer", obj(map[string]any{"metadata": map[string]any{"annotations": map[string]any{"crossplane.io/external-name": "x"}}}), "s3.aws.upbound.io", "Bucket", "example.com/hold", ""},
		{"ceph pool", obj(map[string]any{"metadata": map[string]any{"name": "replicapool"}}), "ceph.rook.io", "CephBlockPool", "cephblockpool.ceph.rook.io", "the Ceph pool replicapool and the RBD images in it"},
		{"unknown product", obj(map[string]any{"metadata": map[string]any{"name": "x"}}), "example.com", "Widget", "example.com/hold", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := leftBehind(tc.obj, tc.group, tc.kind, tc.finalizer)
			if ok != (tc.want != "") || !strings.HasPrefix(got, tc.want) {
				t.Errorf("leftBehind = %q, %v; want prefix %q", got, ok, tc.want)
			}
			if ok && !strings.Contains(got, "(from ") {
				t.Errorf("no source in %q", got)
			}
		})
	}
}

func TestRecordedResources(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{
			"hostPath":   "/var/lib/openebs/local/pvc-1",
			"image":      "registry.example/x:v1",
			"mountPath":  "/data",
			"bucketName": "logs",
		},
		"status": map[string]any{
			"providerID":   "aws:///eu-west-1a/i-0abc1234def567890",
			"volumeHandle": "vol-0123456789abcdef0",
			"loadBalancer": map[string]any{"ingress": []any{map[string]any{"hostname": "a1b2.elb.amazonaws.com"}}},
			"arn":          "arn:aws:rds:eu-west-1:123456789012:db:orders",
			"observedID":   "42",
		},
	}}
	got := strings.Join(recordedResources(obj), "; ")
	for _, want := range []string{
		"cloud instance aws:///eu-west-1a/i-0abc1234def567890 (status.providerID)",
		"volume vol-0123456789abcdef0 (status.volumeHandle)",
		"load balancer a1b2.elb.amazonaws.com (status.loadBalancer.ingress.hostname)",
		"external resource arn:aws:rds:eu-west-1:123456789012:db:orders (status.arn)",
		"node-local path /var/lib/openebs/local/pvc-1 (spec.hostPath)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("recordedResources lacks %q: %s", want, got)
		}
	}
	for _, unwanted := range []string{"/data", "registry.example", "42", "logs"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("recordedResources names %q: %s", unwanted, got)
		}
	}
}

// What a controller recorded in the status as made outside the cluster is named: where a backup
// put its files, the role and database it created in a server. A spec's storage location or URI
// (a model's storageUri, what it reads), a bare status role (a state) and free text are not.
func TestRecordedStorage(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{
			"s3":         map[string]any{"bucket": "in-bucket", "path": "s3://restore-source/full"},
			"source":     "gs://watched/prefix",
			"storageUri": "gs://models/income/classifier",
		},
		"status": map[string]any{
			"backupPath":    "s3://tidb-backups/demo1/2020-07-07/",
			"postgresRole":  "app-6xq2kd",
			"databaseName":  "app_db",
			"role":          "primary",
			"message":       "role app could not be dropped",
			"lastTopicName": "orders",
			"endpoint":      "https://s3.eu-west-1.amazonaws.com",
		},
	}}
	got := strings.Join(recordedResources(obj), "; ")
	for _, want := range []string{
		"object storage location s3://tidb-backups/demo1/2020-07-07/ (status.backupPath)",
		"server-side role app-6xq2kd (status.postgresRole)",
		"server-side database app_db (status.databaseName)",
		"server-side topic orders (status.lastTopicName)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("recordedResources lacks %q: %s", want, got)
		}
	}
	for _, unwanted := range []string{"in-bucket", "restore-source", "watched", "models/income", "primary", "could not", "https://"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("recordedResources names %q: %s", unwanted, got)
		}
	}
}
