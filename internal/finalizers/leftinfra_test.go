package finalizers

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestRecordedInfraID(t *testing.T) {
	for _, tc := range []struct {
		name, path, value, want string
	}{
		{"infra id in the spec", "spec.clusterMetadata.infraID", "rosa-prod-1-x7k2p", "infrastructure tagged with ID"},
		{"infrastructure name in the status", "status.infrastructureName", "prod-7f9b8", "infrastructure tagged with ID"},
		{"infra id directly under status", "status.infraID", "edge-4qz2m", "infrastructure tagged with ID"},
		{"prose is no identifier", "status.infraID", "not yet assigned", ""},
		{"an infra ref is a reference", "spec.infraRef", "vsphere-1", ""},
		{"infra words mid-name are another thing", "spec.infraProviderName", "aws", ""},
		{"metadata is not recorded work", "metadata.infraID", "x-1", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := strings.Split(tc.path, ".")
			if got := recordedInfraID(path, strings.ToLower(path[len(path)-1]), tc.value); got != tc.want {
				t.Errorf("recordedInfraID(%s=%s) = %q, want %q", tc.path, tc.value, got, tc.want)
			}
		})
	}
}

func TestRecordedOwnKindID(t *testing.T) {
	const uuid = "5b1e0c4e-7c2a-4d8e-9f31-2a6b8c0d4e17"
	for _, tc := range []struct {
		name, kind, path, value, want string
	}{
		{"a word of the kind, an opaque id", "ClusterDeployment", "spec.clusterMetadata.clusterID", uuid, "external cluster"},
		{"the status, a hex token", "DatabaseInstance", "status.databaseId", "620b9d3c1bc5b8429d6d2d7a", "external database"},
		{"a cloud id", "VolumeClaimSet", "status.volumeID", "vol-0abc12345def67890", "external volume"},
		{"a name, not an opaque id", "ClusterDeployment", "spec.clusterID", "cluster-east", ""},
		{"another kind's id is a placement", "ClusterDeployment", "spec.networkID", uuid, ""},
		{"a relation names another one", "ClusterDeployment", "status.parentClusterID", uuid, ""},
		{"not a word of the kind", "NetworkConfig", "spec.clusterID", uuid, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := strings.Split(tc.path, ".")
			if got := recordedOwnKindID(path, strings.ToLower(path[len(path)-1]), tc.value, tc.kind); got != tc.want {
				t.Errorf("recordedOwnKindID(%s %s=%s) = %q, want %q", tc.kind, tc.path, tc.value, got, tc.want)
			}
		})
	}
}

// The identifiers an adopted cluster's object records are named in what a strip leaves, with
// their paths; the credentials it refers to and its base domain are not.
func TestRecordedResourcesInfrastructure(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "clusters.example.io/v1",
		"kind":       "ClusterDeployment",
		"metadata":   map[string]any{"name": "prod-1", "namespace": "clusters"},
		"spec": map[string]any{
			"baseDomain": "p3.example.org",
			"platform":   map[string]any{"aws": map[string]any{"region": "us-east-1", "credentialsSecretRef": map[string]any{"name": "prod-1-creds"}}},
			"clusterMetadata": map[string]any{
				"clusterID": "5b1e0c4e-7c2a-4d8e-9f31-2a6b8c0d4e17",
				"infraID":   "prod-1-x7k2p",
			},
		},
	}}
	got := recordedResources(obj)
	want := []string{
		"external cluster 5b1e0c4e-7c2a-4d8e-9f31-2a6b8c0d4e17 (spec.clusterMetadata.clusterID)",
		"infrastructure tagged with ID prod-1-x7k2p (spec.clusterMetadata.infraID)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("recordedResources = %q, want %q", got, want)
	}
}

func TestRecordedProviderID(t *testing.T) {
	for _, c := range []struct {
		path  []string
		value string
		want  string
	}{
		{[]string{"status", "portBindings", "loadbalancerId"}, "lb-2ztq8h1k", "load balancer"},
		{[]string{"status", "portBindings", "listenerid"}, "lbl-6w1c9r0e", "load balancer listener"},
		{[]string{"status", "instanceids"}, "ins-3k9x2m7q", "cloud instance"},
		// What the object asks to use, not what was made for it.
		{[]string{"spec", "loadbalancerid"}, "lb-2ztq8h1k", ""},
		// Not a cloud resource's name, or not a cloud's id.
		{[]string{"status", "requestid"}, "req-2ztq8h1k", ""},
		{[]string{"status", "loadbalancerid"}, "my load balancer", ""},
		{[]string{"status", "loadbalancerid"}, "lb-1", ""},
	} {
		key := strings.ToLower(c.path[len(c.path)-1])
		if got := recordedProviderID(c.path, key, c.value); got != c.want {
			t.Errorf("recordedProviderID(%v, %q) = %q, want %q", c.path, c.value, got, c.want)
		}
	}
}
