package finalizers

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Every piece of work submitted runs once, never more than max at a time, on no more
// goroutines than max, and wg counts it until it is done.
func TestWorkPool(t *testing.T) {
	var wg sync.WaitGroup
	p := newWorkPool(3, &wg)
	var running, peak, done atomic.Int64
	for range 50 {
		p.submit(func() {
			n := running.Add(1)
			for {
				m := peak.Load()
				if n <= m || peak.CompareAndSwap(m, n) {
					break
				}
			}
			time.Sleep(time.Millisecond)
			running.Add(-1)
			done.Add(1)
		})
	}
	wg.Wait()
	if done.Load() != 50 {
		t.Fatalf("%d pieces of work done, want 50", done.Load())
	}
	if peak.Load() > 3 {
		t.Errorf("%d ran at once, want at most 3", peak.Load())
	}
	if peak.Load() < 2 {
		t.Errorf("at most %d ran at once: the pool does not run work in parallel", peak.Load())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.running != 0 || len(p.queue) != 0 {
		t.Errorf("after the work: %d goroutines running, %d queued, want none", p.running, len(p.queue))
	}
}
