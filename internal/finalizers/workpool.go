package finalizers

import "sync"

// workPool runs submitted work, first in first out, on at most max goroutines at once, each
// counted in wg until it is done. Its goroutines take the next piece of work as long as there
// is one, so that a sweep meeting a hundred stuck objects starts a few goroutines, not a hundred:
// each new goroutine grows its stack again to the depth of a client-go request, and that growth
// was a visible share of a sweep's CPU.
type workPool struct {
	max int
	wg  *sync.WaitGroup

	mu      sync.Mutex
	queue   []func()
	running int
}

// newWorkPool returns a pool of at most max goroutines whose work wg counts.
func newWorkPool(max int, wg *sync.WaitGroup) *workPool {
	return &workPool{max: max, wg: wg}
}

// submit queues fn and starts a goroutine for it when fewer than max run. It never blocks.
func (p *workPool) submit(fn func()) {
	p.wg.Add(1)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.queue = append(p.queue, fn)
	if p.running < p.max {
		p.running++
		go p.work()
	}
}

// work runs queued work until the queue is empty.
func (p *workPool) work() {
	for {
		p.mu.Lock()
		if len(p.queue) == 0 {
			p.running--
			p.mu.Unlock()
			return
		}
		fn := p.queue[0]
		p.queue[0] = nil
		p.queue = p.queue[1:]
		p.mu.Unlock()
		fn()
		p.wg.Done()
	}
}
