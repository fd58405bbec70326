package helmjudge

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// TestStateOnDelete: what a custom resource shows of its operator's state, one YAML each.
func TestStateOnDelete(t *testing.T) {
	for _, tc := range []struct {
		name, yaml             string
		deletes, keeps, unsure string
	}{
		{"a bucket's quota", "apiVersion: garage.rajsingh.info/v1beta1\nkind: GarageBucket\nspec:\n  clusterRef: {name: garage}\n  quotas: {maxSize: 100Gi}\n", "spec.quotas.maxSize: 100Gi", "", ""},
		{"Crossplane's default-style policy", "apiVersion: s3.aws.upbound.io/v1beta1\nkind: Bucket\nspec:\n  deletionPolicy: Delete\n  forProvider: {region: eu-west-1}\n", "spec.deletionPolicy: Delete", "", ""},
		{"CNPG's database retained", "apiVersion: postgresql.cnpg.io/v1\nkind: Database\nspec:\n  name: app\n  databaseReclaimPolicy: retain\n", "", "spec.databaseReclaimPolicy: retain", ""},
		{"an annotation that abandons", "apiVersion: storage.cnrm.cloud.google.com/v1beta1\nkind: StorageBucket\nmetadata:\n  annotations: {cnrm.cloud.google.com/deletion-policy: abandon}\nspec:\n  location: EU\n", "", "annotation cnrm.cloud.google.com/deletion-policy: abandon", ""},
		{"a retain wins over a size", "apiVersion: x.example.io/v1\nkind: Volume\nspec:\n  reclaimPolicy: Retain\n  capacity: 10Gi\n", "", "spec.reclaimPolicy: Retain", ""},
		{"a boolean by its name", "apiVersion: x.example.io/v1\nkind: User\nspec:\n  dropOnDelete: true\n", "spec.dropOnDelete: true", "", ""},
		{"a value neither", "apiVersion: x.example.io/v1\nkind: User\nspec:\n  deletionPolicy: Sometimes\n", "", "", "spec.deletionPolicy: Sometimes"},
		{"a key size in bits", "apiVersion: cert-manager.io/v1\nkind: Certificate\nspec:\n  privateKey: {algorithm: RSA, size: 4096}\n", "", "", ""},
		{"pod memory and shm", "apiVersion: x.example.io/v1\nkind: Cache\nspec:\n  resources: {limits: {memory: 1Gi}}\n  shmSize: 1Gi\n", "", "", ""},
		{"a backup retention", "apiVersion: x.example.io/v1\nkind: Backup\nspec:\n  retentionPolicy: 30d\n", "", "", ""},
		{"a built-in kind", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations: {x.io/deletion-policy: delete}\n", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m map[string]any
			if err := yaml.Unmarshal([]byte(tc.yaml), &m); err != nil {
				t.Fatal(err)
			}
			got := StateOnDelete(&unstructured.Unstructured{Object: m})
			for _, c := range []struct{ field, got, want string }{{"deletes", got.Deletes, tc.deletes}, {"keeps", got.Keeps, tc.keeps}, {"unsure", got.Unsure, tc.unsure}} {
				if (c.want == "") != (c.got == "") || !strings.Contains(c.got, c.want) {
					t.Errorf("%s %q, want %q", c.field, c.got, c.want)
				}
			}
		})
	}
}
