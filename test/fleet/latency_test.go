package fleet_test

import (
	"net"
	"sync"
	"testing"
	"time"
)

// latencyProxy forwards TCP connections from a 127.0.0.1 port to upstream, delivering every
// chunk in each direction oneWay after it was read, in order: the round trip of a cluster in
// another region, in front of a real API server. TLS passes through untouched (the server's
// certificate names 127.0.0.1, which the proxy's address is too).
type latencyProxy struct {
	l      net.Listener
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  []net.Conn
	closed bool
}

func startLatencyProxy(tb testing.TB, upstream string, oneWay time.Duration) *latencyProxy {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &latencyProxy{l: l}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			down, err := l.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", upstream)
			if err != nil {
				down.Close()
				continue
			}
			if !p.track(down, up) {
				return
			}
			p.wg.Add(2)
			go func() { defer p.wg.Done(); delayCopy(up, down, oneWay) }()
			go func() { defer p.wg.Done(); delayCopy(down, up, oneWay) }()
		}
	}()
	tb.Cleanup(p.close)
	return p
}

// Addr is the proxy's host:port.
func (p *latencyProxy) Addr() string { return p.l.Addr().String() }

func (p *latencyProxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		for _, c := range cs {
			c.Close()
		}
		return false
	}
	p.conns = append(p.conns, cs...)
	return true
}

func (p *latencyProxy) close() {
	p.mu.Lock()
	p.closed = true
	p.l.Close()
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// delayCopy copies src to dst, each chunk written oneWay after it was read.
func delayCopy(dst, src net.Conn, oneWay time.Duration) {
	type chunk struct {
		b  []byte
		at time.Time
	}
	line := make(chan chunk, 1024)
	go func() {
		defer close(line)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				line <- chunk{buf[:n], time.Now().Add(oneWay)}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range line {
		time.Sleep(time.Until(c.at))
		if _, err := dst.Write(c.b); err != nil {
			break
		}
	}
	// Closing both ends stops the reader above and the other direction.
	dst.Close()
	src.Close()
	for range line {
	}
}
