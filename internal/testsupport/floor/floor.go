// Package floor is the reference the repository benchmarks compare with: building paths with
// the kustomize API alone, nothing else — no Flux generator, no confinement, no conversion.
// It runs the builds one after another (the issues' target) or spread over a number of
// goroutines (the fair comparison for a tool that builds concurrently), and panics on a
// failed build: a benchmark repository always builds.
package floor

import (
	"fmt"
	"sync"
	"time"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Build builds every path with krusty on the plain on-disk file system, parallel at a time,
// and returns the wall time.
func Build(paths []string, parallel int) time.Duration {
	if parallel < 1 {
		parallel = 1
	}
	start := time.Now()
	work := make(chan string)
	var wg sync.WaitGroup
	for range parallel {
		wg.Go(func() {
			k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
			for p := range work {
				if _, err := k.Run(filesys.MakeFsOnDisk(), p); err != nil {
					panic(fmt.Sprintf("kustomize build %s: %v", p, err))
				}
			}
		})
	}
	for _, p := range paths {
		work <- p
	}
	close(work)
	wg.Wait()
	return time.Since(start)
}
