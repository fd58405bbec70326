package finalizers

import (
	"fmt"
	"testing"

	"github.com/kubeforensics/suite/internal/kinds"
)

func TestTypesNamedBy(t *testing.T) {
	oauth := kinds.Resource{Group: "oauth.example.io", Version: "v1", Resource: "oauthclients", Kind: "OAuthClient"}
	own := kinds.Resource{Group: "example.org", Version: "v1", Resource: "clusters", Kind: "Cluster", Namespaced: true}
	served := []kinds.Resource{oauth, own, {Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true}}
	checkAll(t, "typesNamedBy", func(f string) string {
		return fmt.Sprint(len(typesNamedBy(served, f, own)))
	}, []expect[string, string]{
		{"oauthclients.finalizers.example.org", "1"},
		{"secrets.example.org/cleanup", "1"},
		{"clusters.example.org", "0"},           // the object's own type
		{"example.org/oauthclients", "0"},       // a path, not the first label
		{"oauthclients", "0"},                   // no domain after it
		{"widgets.finalizers.example.org", "0"}, // not served
	})
}

func TestSpecNames(t *testing.T) {
	spec := map[string]any{"auth": map[string]any{"clientName": "idp-x1", "secret": "8F3B_not_a_name", "enabled": true},
		"hosts": []any{"a.example.com"}}
	got := fmt.Sprint(specNames(spec, "spec"))
	if want := "[{spec.auth.clientName idp-x1} {spec.hosts[0] a.example.com}]"; got != want {
		t.Errorf("specNames = %s, want %s", got, want)
	}
}
