package finalizers

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func nsTestItems(namespaces ...string) []metav1.PartialObjectMetadata {
	out := make([]metav1.PartialObjectMetadata, len(namespaces))
	for i, ns := range namespaces {
		out[i].Namespace, out[i].Name = ns, string(rune('a'+i))
	}
	return out
}

func nsTestNames(items []metav1.PartialObjectMetadata) string {
	s := ""
	for _, it := range items {
		s += it.Name
	}
	return s
}

// A namespace's objects cut out of a cluster-wide LIST: its run shared when the LIST kept them
// together (as storage order does), copied when it did not, nil when there are none.
func TestInNamespace(t *testing.T) {
	sorted := nsTestItems("a", "b", "b", "b", "c")
	got := inNamespace(sorted, "b")
	if nsTestNames(got) != "bcd" || &got[0] != &sorted[1] || cap(got) != 3 {
		t.Errorf("contiguous run: got %q (shared %v, cap %d), want bcd shared with cap 3", nsTestNames(got), len(got) > 0 && &got[0] == &sorted[1], cap(got))
	}
	mixed := nsTestItems("b", "a", "b", "c", "b")
	got = inNamespace(mixed, "b")
	if nsTestNames(got) != "ace" || &got[0] == &mixed[0] {
		t.Errorf("scattered: got %q, want a copy of ace", nsTestNames(got))
	}
	if got := inNamespace(sorted, "z"); got != nil {
		t.Errorf("absent namespace: got %v, want nil", got)
	}
}
