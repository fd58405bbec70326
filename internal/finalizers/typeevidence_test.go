package finalizers

import (
	"reflect"
	"testing"

	"github.com/kubeforensics/suite/internal/kinds"
)

// An installer's labels on a CRD are recognised by their key's prefix being a served API group,
// whatever the product: no product's group is named by the rule.
func TestServedGroupLabels(t *testing.T) {
	served := []kinds.Resource{
		{Group: "pkg.example.io", Version: "v1", Resource: "providerrevisions", Kind: "ProviderRevision"},
		{Group: "", Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true},
	}
	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   []string
	}{
		{"a served group's labels", map[string]string{"pkg.example.io/package": "provider-s3", "pkg.example.io/revision": "r1"}, []string{"pkg.example.io/package=provider-s3", "pkg.example.io/revision=r1"}},
		{"a group no longer served", map[string]string{"pkg.crossplane.io/package": "provider-aws-s3"}, nil},
		{"no prefix", map[string]string{"package": "x"}, nil},
		{"a served group only as a suffix", map[string]string{"sub.pkg.example.io/package": "x", "example.io/package": "y"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := servedGroupLabels(tc.labels, served); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
