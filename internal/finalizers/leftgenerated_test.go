package finalizers

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	metadatafake "k8s.io/client-go/metadata/fake"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

func partialMeta(apiVersion, kind, ns, name string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: apiVersion, Kind: kind},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
}

// The strip's cost names the object of the stuck object's name in the namespace its
// spec.…Namespace names (what its controller generated there), and nothing for a field of
// another name, the object's own namespace, a differently named object or the object's own type
// elsewhere. A strip whose cost is already specific, or no strip, is left as it was.
func TestLeftGenerated(t *testing.T) {
	nad := kinds.Resource{Group: "cni.example.io", Version: "v1", Resource: "netattachdefs", Kind: "NetAttachDef", Namespaced: true, Verbs: []string{"get", "list"}}
	own := kinds.Resource{Group: "net.example.io", Version: "v1", Resource: "networks", Kind: "Network", Namespaced: true, Verbs: []string{"get", "list"}}
	cm := kinds.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true, Verbs: []string{"get", "list"}}
	ev := kinds.Resource{Version: "v1", Resource: "events", Kind: "Event", Namespaced: true, Verbs: []string{"get", "list"}}
	objs := []runtime.Object{
		partialMeta("cni.example.io/v1", "NetAttachDef", "app-ns", "net-a"),
		partialMeta("cni.example.io/v1", "NetAttachDef", "app-ns", "net-b"),
		partialMeta("v1", "ConfigMap", "net-system", "net-a"),
		partialMeta("v1", "Event", "app-ns", "net-a"),
		partialMeta("net.example.io/v1", "Network", "app-ns", "net-a"),
	}
	generic := "left behind: whatever the controller would have cleaned up outside the cluster"
	for _, tc := range []struct {
		name string
		spec map[string]any
		cost string
		want []string
		not  []string
	}{
		{"the named namespace", map[string]any{"networkNamespace": "app-ns", "vlan": int64(100)}, generic,
			[]string{"namespaces/app-ns, which the object's spec.networkNamespace names", "netattachdefs.cni.example.io/net-a -n app-ns"},
			[]string{"net-b", "events", "networks.net.example.io", "configmaps"}},
		{"its own namespace", map[string]any{"networkNamespace": "net-system"}, generic, nil, []string{"configmaps"}},
		{"a field of another name", map[string]any{"network": "app-ns"}, generic, nil, []string{"netattachdefs"}},
		{"a specific cost stays", map[string]any{"networkNamespace": "app-ns"}, "the volume stays", nil, []string{"netattachdefs"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scheme := metadatafake.NewTestScheme()
			if err := metav1.AddMetaToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			x := fakeExplainer(nil)
			x.c.Metadata = metadatafake.NewSimpleMetadataClient(scheme, objs...)
			x.catalog = kinds.NewCatalog([]kinds.Resource{nad, own, cm, ev}, nil)
			obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "net.example.io/v1", "kind": "Network",
				"metadata": map[string]any{"name": "net-a", "namespace": "net-system"}, "spec": tc.spec}}
			e := &Explanation{Finalizers: []Finalizer{{Name: "netdef.finalizers.net.example.io",
				Remedies: []Remediation{{Code: ReasonStripFinalizer, Cost: tc.cost, LastResort: true}}}}}
			x.leftGenerated(context.Background(), e, subject{res: own, obj: obj}, obj)
			cost := e.Finalizers[0].Remedies[0].Cost
			if len(tc.want) == 0 && cost != tc.cost {
				t.Errorf("cost changed to %q, want it as it was", cost)
			}
			for _, w := range tc.want {
				if !strings.Contains(cost, w) {
					t.Errorf("cost %q does not name %q", cost, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(cost, n) {
					t.Errorf("cost %q names %q", cost, n)
				}
			}
		})
	}
}

// A failed GET is recorded as unchecked, never taken for "nothing left"; types beyond the bound
// are a gap too.
func TestGeneratedInRecordsWhatItCouldNotRead(t *testing.T) {
	x := fakeExplainer(nil)
	var types []kinds.Resource
	for i := 0; i < maxGeneratedTypes+3; i++ {
		types = append(types, kinds.Resource{Group: "g.example.io", Version: "v1", Resource: "t" + strings.Repeat("x", i%5) + string(rune('a'+i%26)), Namespaced: true, Verbs: []string{"get"}})
	}
	_, gaps := x.generatedIn(context.Background(), types, "app-ns", "net-a")
	bound := 0
	for _, g := range gaps {
		if g.Reason == report.GapTooLarge {
			bound++
		}
	}
	if bound != 1 {
		t.Errorf("gaps = %+v, want one bound gap", gaps)
	}
}
