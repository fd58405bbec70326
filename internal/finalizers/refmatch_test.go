package finalizers

import (
	"encoding/json"
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func TestMatchRefs(t *testing.T) {
	class := refTarget{group: "gateway.networking.k8s.io", kind: "GatewayClass", plural: "gatewayclasses", name: "eg", uid: "u-1"}
	snap := refTarget{group: "snapshot.storage.k8s.io", kind: "VolumeSnapshot", plural: "volumesnapshots", namespace: "apps", name: "snap-1"}
	nodeClass := refTarget{group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default"}
	for _, tc := range []struct {
		name  string
		t     refTarget
		spec  string
		refNS string
		want  []string
	}{
		{"name field whose stem names the kind", class, `{"gatewayClassName":"eg"}`, "web", []string{"spec.gatewayClassName"}},
		{"same name, field of another kind", class, `{"secretName":"eg","serviceName":"eg"}`, "web", nil},
		{"typed dataSource in the namespace", snap, `{"dataSource":{"apiGroup":"snapshot.storage.k8s.io","kind":"VolumeSnapshot","name":"snap-1"}}`, "apps", []string{"spec.dataSource"}},
		{"typed dataSource in another namespace", snap, `{"dataSource":{"apiGroup":"snapshot.storage.k8s.io","kind":"VolumeSnapshot","name":"snap-1"}}`, "other", nil},
		{"typed ref of another group", snap, `{"dataSourceRef":{"apiGroup":"example.io","kind":"VolumeSnapshot","name":"snap-1"}}`, "apps", nil},
		{"ref object without kind, stem names the kind", nodeClass, `{"nodeClassRef":{"name":"default"}}`, "", []string{"spec.nodeClassRef"}},
		{"ref object with group and kind", nodeClass, `{"template":{"spec":{"nodeClassRef":{"group":"karpenter.k8s.aws","kind":"EC2NodeClass","name":"default"}}}}`, "", []string{"spec.template.spec.nodeClassRef"}},
		{"list of refs", class, `{"parentRefs":[{"kind":"GatewayClass","name":"other"},{"kind":"GatewayClass","name":"eg"}]}`, "", []string{"spec.parentRefs[1]"}},
		{"uid", class, `{"owner":{"uid":"u-1"}}`, "", []string{"spec.owner.uid"}},
		{"field named like the kind", refTarget{group: "kamaji.clastix.io", kind: "DataStore", name: "default"}, `{"dataStore":"default"}`, "tenants", []string{"spec.dataStore"}},
		{"list named by the kind's plural", refTarget{group: "kueue.x-k8s.io", kind: "ResourceFlavor", name: "default-flavor"}, `{"resourceGroups":[{"flavors":[{"name":"default-flavor"}]}]}`, "", []string{"spec.resourceGroups[0].flavors[0]"}},
		{"short stem says too little", refTarget{kind: "VirtualMachine", name: "vm1"}, `{"vmName":"vm1"}`, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var spec any
			if err := json.Unmarshal([]byte(tc.spec), &spec); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range matchRefs(spec, "spec", tc.t, tc.refNS) {
				got = append(got, m.path)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("matchRefs = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSchemaPointsTo(t *testing.T) {
	nodeClass := refTarget{group: "karpenter.k8s.aws", kind: "EC2NodeClass", plural: "ec2nodeclasses"}
	obj := func(props map[string]apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "object", Properties: props}
	}
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	withSpec := func(spec apiextensionsv1.JSONSchemaProps) *apiextensionsv1.JSONSchemaProps {
		s := obj(map[string]apiextensionsv1.JSONSchemaProps{"spec": spec})
		return &s
	}
	for _, tc := range []struct {
		name   string
		schema *apiextensionsv1.JSONSchemaProps
		want   string
	}{
		{"stem", withSpec(obj(map[string]apiextensionsv1.JSONSchemaProps{"nodeClassRef": obj(map[string]apiextensionsv1.JSONSchemaProps{"name": str})})), ".spec.nodeClassRef"},
		{"description", withSpec(obj(map[string]apiextensionsv1.JSONSchemaProps{"classRef": {Type: "object", Description: "the EC2NodeClass to launch from"}})), ".spec.classRef"},
		{"fixed group", withSpec(obj(map[string]apiextensionsv1.JSONSchemaProps{"infraRef": obj(map[string]apiextensionsv1.JSONSchemaProps{
			"group": {Type: "string", Enum: []apiextensionsv1.JSON{{Raw: []byte(`"karpenter.k8s.aws"`)}}}})})), ".spec.infraRef"},
		{"free ref to any kind", withSpec(obj(map[string]apiextensionsv1.JSONSchemaProps{"sourceRef": obj(map[string]apiextensionsv1.JSONSchemaProps{"kind": str, "name": str})})), ""},
		{"no spec", &apiextensionsv1.JSONSchemaProps{Type: "object"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := schemaPointsTo(tc.schema, nodeClass)
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("schemaPointsTo = %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
}

func TestNamesIn(t *testing.T) {
	isKind := func(k string) bool { return k == "NodeClaim" || k == "VirtualMachine" || k == "Pod" }
	for _, tc := range []struct {
		msg  string
		want []string
	}{
		{"Waiting on NodeClaim termination for default-4jf2r", []string{"NodeClaim default-4jf2r"}},
		{`The disk is attached to VirtualMachine "linux-vm"`, []string{"VirtualMachine linux-vm"}},
		{"Pods apps/web-0, apps/web-1 still exist", []string{"Pod apps/web-0", "Pod apps/web-1", "Pod exist"}},
		{"Pod/web-0 is blocking", []string{"Pod web-0"}},
		{"nothing named here", nil},
	} {
		var got []string
		for _, c := range namesIn(tc.msg, "condition X", isKind) {
			n := c.name
			if c.namespace != "" {
				n = c.namespace + "/" + n
			}
			got = append(got, c.kind+" "+n)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("namesIn(%q) = %v, want %v", tc.msg, got, tc.want)
		}
	}
}
