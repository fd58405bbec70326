package finalizers

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// firstNames gives what sorting every name and keeping the first n gives, for any order of
// the items, with repeated names, fewer items than n, and n of zero.
func TestFirstNames(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{0, 1, 3, 5, 6, 50, 1000} {
		for _, n := range []int{0, 1, 5, 7} {
			items := make([]metav1.PartialObjectMetadata, size)
			var names []string
			for i := range items {
				items[i].Name = fmt.Sprintf("obj-%d", rng.IntN(size*2+1))
				names = append(names, items[i].Name)
			}
			slices.Sort(names)
			want := names[:min(n, len(names))]
			if got := firstNames(items, n); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Errorf("%d items, n %d: got %q, want %q", size, n, got, want)
			}
		}
	}
}
