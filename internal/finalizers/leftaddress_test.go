package finalizers

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestRecordedAddress(t *testing.T) {
	for _, c := range []struct {
		path, value, want string
	}{
		{"spec.vip", "192.168.1.45", "virtual IP"},
		{"status.vips.ip", "192.168.1.45", "virtual IP"},
		{"spec.floatingIP", "203.0.113.7", "virtual IP"},
		{"spec.virtualIPAddress", "2001:db8::1", "virtual IP"},
		{"spec.vip", "not-an-ip", ""},
		{"status.podIP", "10.244.0.7", ""},
		{"spec.nodeIP", "192.168.0.10", ""},
	} {
		p := strings.Split(c.path, ".")
		if got := recordedAddress(p, strings.ToLower(p[len(p)-1]), c.value); got != c.want {
			t.Errorf("recordedAddress(%s, %q) = %q, want %q", c.path, c.value, got, c.want)
		}
	}
}

// An external load balancer's configuration object records its VIP in spec and status; its
// health monitor's HTTP path is no place on a node (lbconfig-operator#5).
func TestRecordedResourcesNamesTheVIPNotTheMonitorPath(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"spec":   map[string]any{"vip": "192.168.1.45", "monitor": map[string]any{"path": "/healthz", "port": int64(1936)}},
		"status": map[string]any{"vips": []any{map[string]any{"name": "infra-vip-80", "ip": "192.168.1.45", "port": int64(80)}}},
	}}
	got := strings.Join(recordedResources(obj), "\n")
	if !strings.Contains(got, "virtual IP 192.168.1.45 (spec.vip)") || !strings.Contains(got, "virtual IP 192.168.1.45 (status.vips.ip)") {
		t.Errorf("recorded %q, want the VIP from spec and status", got)
	}
	if strings.Contains(got, "/healthz") {
		t.Errorf("recorded %q, want no health-check path", got)
	}
}
