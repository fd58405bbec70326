package flux

import (
	"fmt"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// layered returns n Kustomizations in layers of 50, each depending on two of the layer above,
// the shape of BenchmarkFluxChain.
func layered(n int) *Objects {
	objs := &Objects{KStatus: map[string]string{}, Sources: map[string]SourceObject{}}
	for i := 0; i < n; i++ {
		ks := kustomizev1.Kustomization{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: fmt.Sprintf("ks-%05d", i)}}
		if layer := i / 50; layer > 0 {
			for _, d := range []int{(layer-1)*50 + i%50, (layer-1)*50 + (i+1)%50} {
				ks.Spec.DependsOn = append(ks.Spec.DependsOn, kustomizev1.DependencyReference{Name: fmt.Sprintf("ks-%05d", d)})
			}
		}
		objs.Kustomizations = append(objs.Kustomizations, ks)
	}
	return objs
}

// BenchmarkBuild measures the analysis alone (graph, tiers, root causes, findings) so its growth
// with the number of Kustomizations can be read apart from the API reads.
func BenchmarkBuild(b *testing.B) {
	for _, n := range []int{100, 1000, 5000} {
		objs := layered(n)
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			for b.Loop() {
				Build(objs)
			}
		})
	}
}

// BenchmarkBuildWaitingLine measures the analysis of a line of waiters behind one cause: each
// waiter is walked once, so the time grows with the line, not with its square.
func BenchmarkBuildWaitingLine(b *testing.B) {
	for _, n := range []int{100, 1000, 5000} {
		objs := waitingLine(n)
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			for b.Loop() {
				Build(objs)
			}
		})
	}
}
