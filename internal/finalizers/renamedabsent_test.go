package finalizers

import (
	"context"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apitypes "k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

// A finalizer whose domain has no controller installed is orphaned, not waiting for a
// reinstall, when its product runs under a renamed finalizer: the same name after the slash
// under another domain is on the type's live objects (next to the old one), and a running
// workload tied to that domain may update the type, here only through rights that allow
// everything. Without the new domain's own types served (a name tie alone), with a live object
// carrying the old name alone, or with no renamed finalizer anywhere, it stays controller-absent.
func TestRenamedAbsentOrphansTheOldName(t *testing.T) {
	res := kinds.Resource{Group: "kubething.io", Version: "v1", Resource: "machines", Kind: "Machine", Namespaced: true}
	const old, renamed = "legacy.oldvendor.net/MachineController.Release", "shipperhq.io/MachineController.Release"
	obj := func(name string, deleting bool, fins ...string) *metav1.PartialObjectMetadata {
		m := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "kubething.io/v1", Kind: "Machine"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ops", UID: apitypes.UID("uid-" + name), Finalizers: fins}}
		if deleting {
			now := metav1.NewTime(time.Now().Add(-time.Hour))
			m.DeletionTimestamp = &now
		}
		return m
	}
	// The type's own controller, with narrow rights on it, and the renamed product's component,
	// bound to rights that allow everything.
	kube := controllerObjects("ops", "machine-controller", []rbacv1.PolicyRule{{APIGroups: []string{"kubething.io"}, Resources: []string{"*"}, Verbs: []string{"*"}}})
	kube = append(kube, controllerObjects("ops", "shipper", []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}})...)
	stuck := obj("stuck", true, old)
	both := obj("live", false, "kubething.io/machineFinalize", old, renamed)
	for _, tc := range []struct {
		name   string
		crds   []*apiextensionsv1.CustomResourceDefinition
		others []runtime.Object
		want   string
	}{
		{"the renamed product runs", []*apiextensionsv1.CustomResourceDefinition{crdObject("kubething.io", "machines"), crdObject("shipperhq.io", "settings")},
			[]runtime.Object{both}, "deployments.apps/shipper -n ops runs"},
		{"its own types are not served", []*apiextensionsv1.CustomResourceDefinition{crdObject("kubething.io", "machines")},
			[]runtime.Object{both}, ""},
		{"a live object carries the old name alone", []*apiextensionsv1.CustomResourceDefinition{crdObject("kubething.io", "machines"), crdObject("shipperhq.io", "settings")},
			[]runtime.Object{both, obj("older", false, old)}, ""},
		{"no renamed finalizer", []*apiextensionsv1.CustomResourceDefinition{crdObject("kubething.io", "machines"), crdObject("shipperhq.io", "settings")},
			[]runtime.Object{obj("plain", false, "kubething.io/machineFinalize")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scheme := metadatafake.NewTestScheme()
			if err := metav1.AddMetaToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			var ext []runtime.Object
			for _, c := range tc.crds {
				ext = append(ext, c)
			}
			lists := map[schema.GroupVersionResource]string{crdGVR: "CustomResourceDefinitionList", apiServiceGVR: "APIServiceList"}
			c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(kube...),
				APIExtensions: apiextensionsfake.NewSimpleClientset(ext...),
				Dynamic:       dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), lists),
				Metadata:      metadatafake.NewSimpleMetadataClient(scheme, append([]runtime.Object{stuck}, tc.others...)...)}
			x := New(c, kinds.NewCatalog([]kinds.Resource{res}, nil))
			f := x.knownOrCustom(context.Background(), subject{res: res, obj: stuck}, old)
			if tc.want == "" {
				if f.Orphaned {
					t.Fatalf("orphaned without the evidence: %+v", f.Remedies)
				}
				return
			}
			if !f.Orphaned || len(f.Remedies) != 1 || f.Remedies[0].Code != "strip-finalizer" {
				t.Fatalf("want orphaned with the strip alone, got orphaned=%v remedies=%+v controllers=%+v", f.Orphaned, f.Remedies, f.Controllers)
			}
			for _, w := range []string{tc.want, renamed} {
				if !strings.Contains(f.Remedies[0].Summary, w) {
					t.Errorf("strip summary %q does not name %q", f.Remedies[0].Summary, w)
				}
			}
			// The attribution says what was seen: a rename by a running product, with the live
			// object that carries both names, not a product that is not installed.
			for _, line := range []string{f.Attribution, f.Controllers[0].Note} {
				if strings.Contains(line, "is installed") || !strings.Contains(line, "the running product renamed this finalizer to "+renamed) ||
					!strings.Contains(line, "1 of its type's objects that are not being deleted carry both "+old+" and "+renamed) || !strings.Contains(line, tc.want) {
					t.Errorf("attribution %q, want the rename, the live object carrying both names and the running product", line)
				}
			}
		})
	}
}

// The prefix tie of a workload to a domain (`harvester` of `harvesterhci.io`) holds only for a
// word of six letters or more that two of the workload's names hold, and that the domain's word
// extends by a short tail that is no inflection.
func TestPrefixTies(t *testing.T) {
	wl := func(name, image string, labels map[string]string) workload {
		return workload{ref: ObjectRef{Group: "apps", Resource: "deployments", Name: name, Namespace: "ops"}, images: []string{image}, labels: labels}
	}
	for _, tc := range []struct {
		name, domain string
		w            workload
		want         bool
	}{
		{"name and image begin the domain's word", "harvesterhci.io", wl("harvester", "rancher/harvester:v1.1.2", nil), true},
		{"name and product label", "shipperhq.io", wl("shipper", "registry.example/other:v1", map[string]string{"app.kubernetes.io/name": "shipper"}), true},
		{"the name alone", "harvesterhci.io", wl("harvester", "rancher/hv-apiserver:v1", nil), false},
		{"a word shorter than six letters", "shiphq.io", wl("ship", "registry.example/ship:v1", nil), false},
		{"an inflection, not a product's suffix", "monitoring.example.io", wl("monitor", "registry.example/monitor:v1", nil), false},
		{"a tail that makes another word", "serverless.io", wl("server", "registry.example/server:v1", nil), false},
		{"the whole word is an exact tie, not a prefix one", "harvester.io", wl("harvester", "rancher/harvester:v1", nil), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := prefixTies(tc.domain, tc.w)
			if (len(got) > 0) != tc.want {
				t.Fatalf("prefixTies(%s, %s) = %+v, want a tie: %v", tc.domain, tc.w.ref.Name, got, tc.want)
			}
			if tc.want && got[0].conf != ConfidenceLow {
				t.Errorf("confidence %s, want low", got[0].conf)
			}
		})
	}
}
