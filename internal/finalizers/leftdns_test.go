package finalizers

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A DNS record name in the status is named as left behind, in the zone its sibling field names;
// the same name asked for in the spec only, a list of names, a single-label name and free text
// are not.
func TestRecordedDNS(t *testing.T) {
	for _, tc := range []struct {
		name string
		obj  map[string]any
		want string
	}{
		{"published, with its zone", map[string]any{"spec": map[string]any{"dnsName": "shop.apps.example.org"},
			"status": map[string]any{"dnsName": "shop.apps.example.org", "zone": "Z0123456789", "state": "Stale"}},
			"DNS record shop.apps.example.org in zone Z0123456789 (status.dnsName)"},
		{"published, no zone", map[string]any{"status": map[string]any{"fqdn": "api.example.com."}}, "DNS record api.example.com. (status.fqdn)"},
		{"asked for only", map[string]any{"spec": map[string]any{"dnsName": "shop.apps.example.org"}}, ""},
		{"a list of names", map[string]any{"status": map[string]any{"dnsNames": []any{"a.example.org"}}}, ""},
		{"a single label", map[string]any{"status": map[string]any{"dnsName": "localhost"}}, ""},
		{"free text", map[string]any{"status": map[string]any{"dnsName": "not a name.example"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(recordedResources(&unstructured.Unstructured{Object: tc.obj}), "; ")
			if got != tc.want {
				t.Fatalf("recorded %q, want %q", got, tc.want)
			}
		})
	}
}
