package finalizers

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A `<noun>Path` field holds an external resource when its value's second-to-last segment is
// the noun's plural; a route, a file, a relative path or another noun's path does not.
func TestResourcePath(t *testing.T) {
	for _, tc := range []struct {
		key, value string
		want       bool
	}{
		{"vpcpath", "/orgs/default/projects/p/vpcs/team-blue-d3e1a0b7", true},
		{"subnetpath", "/orgs/default/projects/p/vpcs/v/subnets/web", true},
		{"gatewaypath", "/infra/tier-1s/t1", false},
		{"gatewaypath", "/infra/tier-1s/t1/gateways/gw-1", true},
		{"vpcpath", "orgs/default/vpcs/x", false},
		{"urlpath", "/index.html", false},
		{"mountpath", "/var/lib/data", false},
		{"vpcpath", "/orgs/default/vpcs/", false},
		{"path", "/a/s/b", false},
	} {
		if got := resourcePath(tc.key, tc.value); got != tc.want {
			t.Errorf("resourcePath(%q, %q) = %v, want %v", tc.key, tc.value, got, tc.want)
		}
	}
}

// A type that keeps its record at the top level (neither spec nor status) has it named; a
// ConfigMap's or Secret's data never is read.
func TestRecordedResourcesTopLevel(t *testing.T) {
	info := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "net.example.io/v1", "kind": "NetworkInfo",
		"metadata": map[string]any{"name": "team-blue"},
		"vpcs":     []any{map[string]any{"name": "team-blue", "vpcPath": "/orgs/default/projects/p/vpcs/team-blue-d3e1a0b7"}}}}
	got := strings.Join(recordedResources(info), ", ")
	if got != "external resource /orgs/default/projects/p/vpcs/team-blue-d3e1a0b7 (vpcs.vpcPath)" {
		t.Errorf("recordedResources = %q", got)
	}
	secret := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "s"}, "stringData": map[string]any{"instanceId": "i-0123456789abcdef0"},
		"data": map[string]any{"volumeId": "vol-0123456789abcdef0"}}}
	if got := recordedResources(secret); len(got) != 0 {
		t.Errorf("a Secret's data was read: %q", got)
	}
}

// The networks a spec places the object's resources into are inputs, never left behind; the
// same ids in the status, and a spec's instance or volume id, still are.
func TestPlacementInSpec(t *testing.T) {
	for _, tc := range []struct {
		path  []string
		value string
		want  string
	}{
		{[]string{"spec", "platform", "aws", "subnet", "id"}, "subnet-0af15a69cd0658ba8", ""},
		{[]string{"spec", "platform", "aws", "securityGroups", "id"}, "sg-074e860253bf072e5", ""},
		{[]string{"spec", "network", "vpcId"}, "vpc-0a1b2c3d4e5f60718", ""},
		{[]string{"status", "network", "vpcId"}, "vpc-0a1b2c3d4e5f60718", "external resource"},
		{[]string{"status", "securityGroupIds"}, "sg-074e860253bf072e5", "external resource"},
		{[]string{"spec", "instanceID"}, "i-0123456789abcdef0", "cloud instance"},
	} {
		if got := recordedKind(tc.path, tc.value); got != tc.want {
			t.Errorf("recordedKind(%v, %q) = %q, want %q", tc.path, tc.value, got, tc.want)
		}
	}
}
