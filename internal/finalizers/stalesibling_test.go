package finalizers

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

func sibling(name string, finalizers ...string) metav1.PartialObjectMetadata {
	return metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name, Finalizers: finalizers}}
}

// A finalizer of the group that no sibling carries, while siblings carry another of the group
// the object lacks, is stale; any sibling carrying it, no sibling with a group finalizer, the
// object carrying theirs too, or a finalizer outside the group makes no claim.
func TestStaleAgainstSiblings(t *testing.T) {
	const group, old, cur = "multinic.example.io", "finalizers.cidr.multinic.example.io", "finalizers.ippool.multinic.example.io"
	stuck := &metav1.ObjectMeta{Name: "pool-a", Finalizers: []string{old}}
	gone := metav1.Now()
	deleting := sibling("pool-d", old)
	deleting.DeletionTimestamp = &gone
	for _, tc := range []struct {
		name     string
		obj      *metav1.ObjectMeta
		fin      string
		siblings []metav1.PartialObjectMetadata
		stale    bool
	}{
		{"siblings carry another", stuck, old, []metav1.PartialObjectMetadata{sibling("pool-a", old), sibling("pool-b", cur), sibling("pool-c", cur, "other.example.com/x")}, true},
		{"a sibling being deleted does not count", stuck, old, []metav1.PartialObjectMetadata{sibling("pool-b", cur), deleting}, true},
		{"a sibling carries it", stuck, old, []metav1.PartialObjectMetadata{sibling("pool-b", cur), sibling("pool-c", old)}, false},
		{"no sibling has a group finalizer", stuck, old, []metav1.PartialObjectMetadata{sibling("pool-b"), sibling("pool-c", "other.example.com/x")}, false},
		{"alone", stuck, old, []metav1.PartialObjectMetadata{sibling("pool-a", old)}, false},
		{"the object carries theirs too", &metav1.ObjectMeta{Name: "pool-a", Finalizers: []string{old, cur}}, old, []metav1.PartialObjectMetadata{sibling("pool-b", cur)}, false},
		{"a finalizer outside the group", &metav1.ObjectMeta{Name: "pool-a", Finalizers: []string{"other.example.com/x"}}, "other.example.com/x", []metav1.PartialObjectMetadata{sibling("pool-b", cur)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			why := staleAgainstSiblings(tc.obj, tc.fin, group, "ippools.multinic.example.io", tc.siblings)
			if (why != "") != tc.stale {
				t.Fatalf("staleAgainstSiblings = %q, want stale %v", why, tc.stale)
			}
			if tc.stale && !strings.Contains(why, cur) {
				t.Errorf("reason %q does not name the finalizer the siblings carry", why)
			}
		})
	}
}

// The siblings are read with one metadata list: a stale finalizer whose remover runs becomes
// orphaned with the strip of that one finalizer as its only step; a refused list is unchecked
// and changes nothing.
func TestApplyStaleSibling(t *testing.T) {
	pools := kinds.Resource{Group: "multinic.example.io", Version: "v1", Resource: "ippools", Kind: "IPPool"}
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	meta := func(name string, fins ...string) runtime.Object {
		return &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "multinic.example.io/v1", Kind: "IPPool"}, ObjectMeta: metav1.ObjectMeta{Name: name, Finalizers: fins}}
	}
	const old, cur = "finalizers.cidr.multinic.example.io", "finalizers.ippool.multinic.example.io"
	running := []Controller{{Found: true, Healthy: true, Object: ObjectRef{Group: "apps", Resource: "deployments", Namespace: "mn", Name: "manager"}}}
	for _, tc := range []struct {
		name     string
		refuse   bool
		orphaned bool
	}{
		{"read", false, true},
		{"list refused", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := metadatafake.NewSimpleMetadataClient(scheme, meta("pool-a", old), meta("pool-b", cur))
			if tc.refuse {
				m.PrependReactor("list", "ippools", func(clienttesting.Action) (bool, runtime.Object, error) {
					return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "multinic.example.io", Resource: "ippools"}, "", nil)
				})
			}
			x := New(&cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(), Metadata: m}, kinds.NewCatalog([]kinds.Resource{pools}, nil))
			o := subject{res: pools, obj: &metav1.ObjectMeta{Name: "pool-a", Finalizers: []string{old}}}
			f := Finalizer{Name: old, Controllers: running, Remedies: []Remediation{{Code: ReasonReadControllerLogs}}}
			x.applyStaleSibling(context.Background(), o, &f, known{lost: "whatever the controller would have cleaned up outside the cluster"})
			if f.Orphaned != tc.orphaned {
				t.Fatalf("orphaned = %v, want %v (steps %+v)", f.Orphaned, tc.orphaned, f.Remedies)
			}
			if tc.orphaned && (len(f.Remedies) != 1 || f.Remedies[0].Code != ReasonStripFinalizer || f.Remedies[0].LastResort || !strings.Contains(f.Remedies[0].Summary, cur)) {
				t.Errorf("steps %+v, want only the strip of %s, naming what the siblings carry", f.Remedies, old)
			}
			if tc.refuse && len(f.Unchecked) == 0 {
				t.Errorf("a refused list left no unchecked read")
			}
			if got := finalizerReason(f); tc.orphaned && got != ReasonFinalizerOrphaned {
				t.Errorf("verdict %s, want %s", got, ReasonFinalizerOrphaned)
			}
		})
	}
}
