package finalizers

import (
	"strings"
	"testing"
)

func TestOwnerAddressPath(t *testing.T) {
	pod := ObjectRef{Version: "v1", Resource: "pods", Kind: "Pod", Namespace: "rook-ceph", Name: "csi-rbdplugin-provisioner-57b556bb77-cq97r"}
	driver := func(endpoint string) map[string]any {
		return map[string]any{"driver": map[string]any{"name": "rook-ceph.rbd.csi.ceph.com", "endpoint": endpoint, "nodeID": "worker-1"}}
	}
	for _, tc := range []struct {
		name  string
		spec  map[string]any
		owner ObjectRef
		want  string
	}{
		{"scheme, name.namespace:port", driver("pod://csi-rbdplugin-provisioner-57b556bb77-cq97r.rook-ceph:9070"), pod, "spec.driver.endpoint"},
		{"service form", map[string]any{"url": "https://csi-rbdplugin-provisioner-57b556bb77-cq97r.rook-ceph.svc:9070/x"}, pod, "spec.url"},
		{"another pod", driver("pod://csi-rbdplugin-provisioner-57b556bb77-zz9x1.rook-ceph:9070"), pod, ""},
		{"same name, other namespace", driver("pod://csi-rbdplugin-provisioner-57b556bb77-cq97r.ceph:9070"), pod, ""},
		{"bare name without a port is no address", driver("csi-rbdplugin-provisioner-57b556bb77-cq97r.rook-ceph"), pod, ""},
		{"cluster-scoped owner", driver("pod://node-a.rook-ceph:9070"), ObjectRef{Version: "v1", Resource: "nodes", Kind: "Node", Name: "node-a"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ownerAddressPath(tc.spec, tc.owner); got != tc.want {
				t.Errorf("ownerAddressPath = %q, want %q", got, tc.want)
			}
		})
	}
}

// A gone owner the spec addresses is kept as what holds the finalizer, with the field in its
// reason: markOwnersInSpec marks it, where an owner the spec does not mention stays unmarked.
func TestMarkOwnersInSpecByAddress(t *testing.T) {
	pod := ObjectRef{Version: "v1", Resource: "pods", Kind: "Pod", Namespace: "rook-ceph", Name: "csi-rbdplugin-provisioner-57b556bb77-cq97r"}
	spec := map[string]any{"driver": map[string]any{"endpoint": "pod://csi-rbdplugin-provisioner-57b556bb77-cq97r.rook-ceph:9070"}}
	found := []dangling{{ref: pod, owner: true}, {ref: ObjectRef{Version: "v1", Resource: "pods", Kind: "Pod", Namespace: "rook-ceph", Name: "other"}, owner: true}}
	markOwnersInSpec(found, spec)
	if !found[0].inSpec || found[0].path != "spec.driver.endpoint" || !strings.Contains(found[0].reason, "spec.driver.endpoint names too") {
		t.Errorf("addressed owner = %+v", found[0])
	}
	if found[1].inSpec {
		t.Errorf("owner the spec does not address marked: %+v", found[1])
	}
}
