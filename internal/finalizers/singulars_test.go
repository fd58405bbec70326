package finalizers

import (
	"slices"
	"testing"
)

// One function makes plurals singular for the status links, the spoken names and the switched-
// off features. The words the two rules it replaced agreed on keep their singular; `statuses`,
// where they differed (the links' rule made it `statuse`, the features' rule matched `status`),
// is decided: `status`, with `statuse` kept as the other reading of an -es plural.
func TestSingulars(t *testing.T) {
	for _, tc := range []struct {
		plural string
		want   []string
		// feature is a feature's dashed words that name the plural.
		feature string
	}{
		{"policies", []string{"policy"}, "policy"},
		{"networkpolicies", []string{"networkpolicy"}, "network-policy"},
		{"classes", []string{"class"}, "class"},
		{"ingresses", []string{"ingress"}, "ingress"},
		{"addresses", []string{"address"}, "address"},
		{"apps", []string{"app"}, "app"},
		{"nodes", []string{"node"}, "node"},
		{"gateways", []string{"gateway"}, "gateway"},
		{"boxes", []string{"box", "boxe"}, "box"},
		{"statuses", []string{"status", "statuse"}, "status"},
		{"licenses", []string{"licens", "license"}, "license"},
		{"caches", []string{"cach", "cache"}, "cache"},
		{"patches", []string{"patch", "patche"}, "patch"},
		{"meshes", []string{"mesh", "meshe"}, "mesh"},
		{"status", []string{"statu"}, "status"},
		{"glass", []string{"glass"}, "glass"},
		{"data", []string{"data"}, "data"},
	} {
		t.Run(tc.plural, func(t *testing.T) {
			if got := singulars(tc.plural); !slices.Equal(got, tc.want) {
				t.Errorf("singulars(%q) = %q, want %q", tc.plural, got, tc.want)
			}
			if !namesResource(tc.feature, tc.plural) {
				t.Errorf("namesResource(%q, %q) = false", tc.feature, tc.plural)
			}
		})
	}
	for _, tc := range []struct{ feature, resource string }{
		{"policie", "policies"}, {"classe", "classes"}, {"network", "networkpolicies"}, {"", "s"}, {"pod", "podstatuses"},
	} {
		if namesResource(tc.feature, tc.resource) {
			t.Errorf("namesResource(%q, %q) = true", tc.feature, tc.resource)
		}
	}
}
