package finalizers

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Which values are in-cluster Service addresses: `svc.ns` with a port, `svc.ns.svc…` with or
// without, behind a scheme, several in one value; a public host, a bare name, free text and a
// two-label host without a port are not.
func TestParseServiceAddress(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"zookeeper-client.zookeeper:2181", "zookeeper-client -n zookeeper"},
		{"http://api.team.svc.cluster.local/v1", "api -n team"},
		{"redis.cache.svc:6379", "redis -n cache"},
		{"pg.db.svc", "pg -n db"},
		{"example.com", ""},
		{"zookeeper", ""},
		{"not an address", ""},
		{"a.b:port", ""},
		{"s3.eu-west-1.amazonaws.com", ""},
	} {
		a, ok := parseServiceAddress(tc.in)
		got := ""
		if ok {
			got = a.name + " -n " + a.namespace
		}
		if got != tc.want {
			t.Errorf("parseServiceAddress(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	spec := map[string]any{"zkAddresses": []any{"zk-0.zookeeper:2181,zk-1.zookeeper:2181"}, "image": "kafka:2.3"}
	if got := serviceAddresses(spec); len(got) != 2 || got[0].path != "spec.zkAddresses" {
		t.Errorf("serviceAddresses = %+v, want two from spec.zkAddresses", got)
	}
}

// A referent's address whose Service is gone, in a namespace that exists, is named; one whose
// Service exists, or whose namespace does not exist (a host outside the cluster has the same
// shape), is not.
func TestMissingServices(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "streams.example.io", Version: "v1", Resource: "brokerclusters"}
	cluster := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "streams.example.io/v1", "kind": "BrokerCluster",
		"metadata": map[string]any{"name": "c1", "namespace": "kafka"},
		"spec":     map[string]any{"zkAddresses": []any{"zk-client.zookeeper:2181", "registry.schemas:8081", "broker.example.com:9092"}}}}
	kube := []runtime.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "zookeeper"}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "schemas"}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "registry", Namespace: "schemas"}},
	}
	x := fakeExplainerWith(kube, nil, map[schema.GroupVersionResource]string{gvr: "BrokerClusterList"}, cluster)
	got := x.missingServices(context.Background(), ObjectRef{Group: gvr.Group, Resource: gvr.Resource, Namespace: "kafka", Name: "c1"}, gvr)
	if len(got) != 1 || !strings.Contains(got[0], "services/zk-client -n zookeeper") || !strings.Contains(got[0], "spec.zkAddresses") {
		t.Errorf("missingServices = %q, want only services/zk-client -n zookeeper from spec.zkAddresses", got)
	}
}
