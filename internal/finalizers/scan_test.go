package finalizers

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"

	"github.com/kubeforensics/suite/internal/kinds"
)

// pagedMetadata serves fixed pages of one LIST, the continue token being the next page's index.
type pagedMetadata struct {
	metadata.ResourceInterface
	pages []*metav1.PartialObjectMetadataList
}

func (p *pagedMetadata) Resource(schema.GroupVersionResource) metadata.Getter { return p }

func (p *pagedMetadata) Namespace(string) metadata.ResourceInterface { return p }

func (p *pagedMetadata) List(_ context.Context, opts metav1.ListOptions) (*metav1.PartialObjectMetadataList, error) {
	i := 0
	if opts.Continue != "" {
		i = int(opts.Continue[0] - '0')
	}
	return p.pages[i], nil
}

func pageOf(cont string, remaining int64, names ...string) *metav1.PartialObjectMetadataList {
	l := &metav1.PartialObjectMetadataList{}
	l.Continue = cont
	if remaining > 0 {
		l.RemainingItemCount = &remaining
	}
	for _, n := range names {
		l.Items = append(l.Items, metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: n, ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}}})
	}
	return l
}

// Pages are kept in order, filtered by Keep (which sees managedFields), without managedFields,
// whether the result is the first page compacted in place or grown over later pages.
func TestListPagesKeepsPagesInOrder(t *testing.T) {
	keep := func(_ kinds.Resource, m *metav1.PartialObjectMetadata) bool {
		if len(m.ManagedFields) == 0 {
			t.Errorf("Keep saw %s without its managedFields", m.Name)
		}
		return !strings.HasPrefix(m.Name, "drop")
	}
	for _, tc := range []struct {
		desc  string
		pages []*metav1.PartialObjectMetadataList
		want  string
	}{
		{"one page", []*metav1.PartialObjectMetadataList{pageOf("", 0, "a", "drop1", "b")}, "a,b"},
		{"pages with a remaining count", []*metav1.PartialObjectMetadataList{pageOf("1", 3, "a", "drop1"), pageOf("2", 1, "drop2", "b"), pageOf("", 0, "c")}, "a,b,c"},
		{"pages without one", []*metav1.PartialObjectMetadataList{pageOf("1", 0, "drop0", "a"), pageOf("", 0, "b", "drop1")}, "a,b"},
		{"nothing kept", []*metav1.PartialObjectMetadataList{pageOf("", 0, "drop0")}, ""},
	} {
		md := &pagedMetadata{pages: tc.pages}
		got, err := listPages(context.Background(), md, kinds.Resource{Version: "v1", Resource: "configmaps", Namespaced: true}, ScanOptions{Namespace: "ns", Keep: keep}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, it := range got {
			names = append(names, it.Name)
			if it.ManagedFields != nil {
				t.Errorf("%s: %s kept its managedFields", tc.desc, it.Name)
			}
		}
		if strings.Join(names, ",") != tc.want {
			t.Errorf("%s: got %q, want %q", tc.desc, strings.Join(names, ","), tc.want)
		}
		if tc.want == "" && got != nil {
			t.Errorf("%s: got %v, want nil", tc.desc, got)
		}
	}
}
