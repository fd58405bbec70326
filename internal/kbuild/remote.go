package kbuild

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fluxcd/pkg/kustomize"
	"sigs.k8s.io/kustomize/api/konfig"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// scanTree walks the kustomizations reachable from dir through resources, bases and
// components and returns the entries kustomize would fetch over the network (http(s) files
// and remote git bases, as the generator's IsLocalRelativePath tells them apart), and whether
// any of them declares its own OpenAPI schema (the `openapi` field).
//
// This check has to come before the build: kustomize fetches an http(s) resource with a
// plain HTTP client whatever file system it is given, so only not starting the build keeps
// an offline build offline. Files it cannot read or parse are skipped; the build reports them.
//
// local are the directories walked and the local files their kustomizations name (resources,
// patches, generators' sources): when the build does not run, everything it would have read
// lies in them, so a change under any of them is a change of the build's input.
func scanTree(fs filesys.FileSystem, dir string) (remote []string, customSchema bool, local []string) {
	seen := map[string]bool{}
	urls := map[string]bool{}
	queue := []string{dir}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if seen[d] {
			continue
		}
		seen[d] = true
		k, ok := readKustomization(fs, d)
		if !ok {
			continue
		}
		customSchema = customSchema || len(k.OpenAPI) > 0
		local = append(local, d)
		for _, entries := range [][]string{k.Resources, k.Bases, k.Components} {
			for _, e := range entries {
				if !kustomize.IsLocalRelativePath(e) && !filepath.IsAbs(e) {
					urls[e] = true
					continue
				}
				if p := filepath.Join(d, e); fs.IsDir(p) {
					queue = append(queue, p)
				} else {
					local = append(local, p)
				}
			}
		}
		for _, f := range namedFiles(k) {
			if kustomize.IsLocalRelativePath(f) {
				local = append(local, filepath.Join(d, f))
			}
		}
	}
	out := make([]string, 0, len(urls))
	for u := range urls {
		out = append(out, u)
	}
	sort.Strings(out)
	return out, customSchema, local
}

// namedFiles are the files a kustomization names besides its resources: patches, the sources
// of its generators, its replacements and configurations.
func namedFiles(k kustypes.Kustomization) []string {
	var out []string
	for _, p := range k.Patches {
		if p.Path != "" {
			out = append(out, p.Path)
		}
	}
	for _, p := range k.PatchesStrategicMerge {
		if !strings.ContainsAny(string(p), "\n:") { // a file name, not an inline patch
			out = append(out, string(p))
		}
	}
	for _, p := range k.PatchesJson6902 {
		if p.Path != "" {
			out = append(out, p.Path)
		}
	}
	for _, g := range k.ConfigMapGenerator {
		out = append(out, generatorFiles(g.GeneratorArgs)...)
	}
	for _, g := range k.SecretGenerator {
		out = append(out, generatorFiles(g.GeneratorArgs)...)
	}
	for _, r := range k.Replacements {
		if r.Path != "" {
			out = append(out, r.Path)
		}
	}
	out = append(out, k.Configurations...)
	out = append(out, k.Crds...)
	return out
}

// generatorFiles are a generator's file and env sources, without a "key=" prefix.
func generatorFiles(g kustypes.GeneratorArgs) []string {
	var out []string
	for _, f := range g.FileSources {
		if _, file, ok := strings.Cut(f, "="); ok {
			f = file
		}
		out = append(out, f)
	}
	out = append(out, g.EnvSources...)
	return out
}

// readKustomization reads the kustomization file of dir, under any of the names kustomize
// recognises.
func readKustomization(fs filesys.FileSystem, dir string) (kustypes.Kustomization, bool) {
	var k kustypes.Kustomization
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		p := filepath.Join(dir, name)
		if !fs.Exists(p) || fs.IsDir(p) {
			continue
		}
		data, err := fs.ReadFile(p)
		if err != nil {
			return k, false
		}
		return k, yaml.Unmarshal(data, &k) == nil
	}
	return k, false
}

// DefaultNetworkTimeout bounds every network read of a build allowed to fetch, when the
// context sets no other (WithNetworkTimeout).
const DefaultNetworkTimeout = 30 * time.Second

type timeoutKey struct{}

// WithNetworkTimeout returns ctx carrying d as the bound on each network read (one HTTP
// request with its body, or a git fetch that stops receiving) of the builds run with it.
func WithNetworkTimeout(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, timeoutKey{}, d)
}

func networkTimeout(ctx context.Context) time.Duration {
	if d, ok := ctx.Value(timeoutKey{}).(time.Duration); ok && d > 0 {
		return d
	}
	return DefaultNetworkTimeout
}

// network is the process's one gate to the network. kustomize fetches a URL named by any
// field (resources, patches, generators' files, openapi, crds, transformers, the
// kustomizations those point at…) with a plain http.Client on http.DefaultTransport, and
// clones remote bases with the git found on PATH and the process environment: both belong to
// the process, so the gate does too. Builds that may not fetch and builds that may never run
// at the same time: while any offline build runs, every request is refused before a
// connection is made and git allows no transport (GIT_ALLOW_PROTOCOL); while network builds
// run, each request and its body is bounded by their timeout and cancelled with their
// context, git gives up on a fetch that stalls that long, and nothing prompts for
// credentials.
type network struct {
	mu              sync.Mutex
	turn            *sync.Cond
	online, offline int
	timeout         time.Duration
	// epoch is cancelled when any online build's context is, or the last one ends.
	epoch  context.Context
	cancel context.CancelFunc
	saved  map[string]*string
}

// netGate is the gate; installing it replaces http.DefaultTransport once.
var (
	netGate     = newNetwork()
	installGate sync.Once
)

func newNetwork() *network {
	n := &network{saved: map[string]*string{}}
	n.turn = sync.NewCond(&n.mu)
	return n
}

// enter waits for the gate to be in the mode a build needs (allow: may fetch) and returns the
// function that leaves it.
func (n *network) enter(ctx context.Context, allow bool) (leave func()) {
	installGate.Do(func() { http.DefaultTransport = &gatedTransport{next: http.DefaultTransport, n: n} })
	n.mu.Lock()
	defer n.mu.Unlock()
	for (allow && n.offline > 0) || (!allow && n.online > 0) {
		n.turn.Wait()
	}
	if !allow {
		if n.offline++; n.offline == 1 {
			n.setenv(map[string]string{"GIT_ALLOW_PROTOCOL": "none"})
		}
		return func() { n.leave(false) }
	}
	if n.online++; n.online == 1 {
		n.epoch, n.cancel = context.WithCancel(context.Background())
		n.timeout = networkTimeout(ctx)
		secs := strconv.Itoa(int(max(n.timeout.Seconds(), 1)))
		n.setenv(map[string]string{"GIT_TERMINAL_PROMPT": "0", "GIT_HTTP_LOW_SPEED_LIMIT": "1", "GIT_HTTP_LOW_SPEED_TIME": secs})
	}
	stop := context.AfterFunc(ctx, n.cancel)
	return func() { stop(); n.leave(true) }
}

func (n *network) leave(allow bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	count := &n.offline
	if allow {
		count = &n.online
	}
	if *count--; *count == 0 {
		if allow {
			n.cancel()
		}
		n.restoreEnv()
		n.turn.Broadcast()
	}
}

// setenv sets the process environment kustomize's git runs with, remembering what it was.
func (n *network) setenv(vars map[string]string) {
	for k, v := range vars {
		if old, ok := os.LookupEnv(k); ok {
			n.saved[k] = &old
		} else {
			n.saved[k] = nil
		}
		_ = os.Setenv(k, v)
	}
}

func (n *network) restoreEnv() {
	for k, old := range n.saved {
		if old == nil {
			_ = os.Unsetenv(k)
		} else {
			_ = os.Setenv(k, *old)
		}
		delete(n.saved, k)
	}
}

// session is the context and timeout of a request, and false when no build may fetch.
func (n *network) session() (context.Context, time.Duration, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.epoch, n.timeout, n.online > 0
}

// gatedTransport is http.DefaultTransport behind the gate. It reads each answer whole, within
// the timeout, and applies the limits of a repository file to it.
type gatedTransport struct {
	next http.RoundTripper
	n    *network
}

// RoundTrip refuses the request offline; online it bounds it, its body included.
//
// client-go also sends through http.DefaultTransport when a connection needs no TLS
// settings of its own; its requests always carry a User-Agent header, kustomize's never do
// (a bare http.Client.Get), so requests with one pass untouched: a cluster is reached by
// flag, never by a repository's content.
func (t *gatedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("User-Agent") != "" {
		return t.next.RoundTrip(req)
	}
	epoch, timeout, ok := t.n.session()
	if !ok {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, fmt.Errorf("%w: refused %s <%s>", ErrNeedsNetwork, req.Method, req.URL)
	}
	ctx, cancel := context.WithTimeout(req.Context(), timeout)
	defer cancel()
	defer context.AfterFunc(epoch, cancel)()
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	var data []byte
	if err == nil {
		data, err = io.ReadAll(io.LimitReader(resp.Body, MaxFileSize+1))
		_ = resp.Body.Close()
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, fmt.Errorf("%s %s: no complete answer within %s (--network-timeout)", req.Method, req.URL, timeout)
	case err != nil:
		return nil, err
	}
	if err := CheckLoad(req.URL.String(), data); err != nil {
		return nil, err
	}
	resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(data)), int64(len(data))
	return resp, nil
}

// refusedURL finds, in the text of a build error (kustomize formats the errors it wraps
// into strings), what the gate refused: an HTTP request, or a git fetch git allowed no
// transport for.
var refusedURL = regexp.MustCompile(`refused [A-Z]+ <([^>]+)>|fetch --depth=1 (\S+) \S+'?: fatal: transport '[^']*' not allowed`)

func refusedURLs(err error) []string {
	if err == nil {
		return nil
	}
	set := map[string]bool{}
	for _, m := range refusedURL.FindAllStringSubmatch(err.Error(), -1) {
		set[m[1]+m[2]] = true
	}
	return slices.Sorted(maps.Keys(set))
}
