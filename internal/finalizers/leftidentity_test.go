package finalizers

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestRecordedIdentity(t *testing.T) {
	for _, c := range []struct {
		path, value, want string
	}{
		{"spec.name", "persistent://public/default/order-events", "external resource"},
		{"status.id", "kafka://cluster-1/topics/orders", "external resource"},
		{"spec.externalName", "https://app.example.com/saml", "external resource"},
		// A plain name is the object's name in its own system, not shaped as an address.
		{"spec.name", "order-events", ""},
		// Nested: a part of the spec names something the object uses.
		{"spec.source.name", "oci://registry.example.com/charts/app", ""},
		// A location the object reads from or calls, not its identity.
		{"spec.storageUri", "gs://seldon-models/sklearn/iris", ""},
		{"spec.adminServiceURL", "http://pulsar-broker.pulsar.svc:8080", ""},
		{"metadata.name", "x://y", ""},
	} {
		p := strings.Split(c.path, ".")
		if got := recordedIdentity(p, strings.ToLower(p[len(p)-1]), c.value); got != c.want {
			t.Errorf("recordedIdentity(%s, %q) = %q, want %q", c.path, c.value, got, c.want)
		}
	}
}

// A topic object records the topic it stands for as its spec.name; the connection it uses and
// the broker URL it calls are configuration (pulsar-resources-operator#114).
func TestRecordedResourcesNamesTheObjectsOwnRemoteName(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{
			"name":          "persistent://public/default/order-events",
			"connectionRef": map[string]any{"name": "pulsar-connection"},
			"sinkURI":       "pulsar://pulsar-broker.pulsar.svc:6650",
			"partitions":    int64(3),
		},
	}}
	got := strings.Join(recordedResources(obj), "\n")
	if got != "external resource persistent://public/default/order-events (spec.name)" {
		t.Errorf("recorded %q, want only the topic the object stands for", got)
	}
}
