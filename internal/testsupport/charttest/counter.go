package charttest

import (
	"net/http"
	"sync"
)

// counter counts the requests a handler serves.
type counter struct {
	mu         sync.Mutex
	n          int
	authorized int // requests that carried an Authorization header
}

func (c *counter) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.n++
		if r.Header.Get("Authorization") != "" {
			c.authorized++
		}
		c.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (c *counter) get() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func (c *counter) getAuthorized() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.authorized
}
