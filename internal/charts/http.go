package charts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
	"unicode"

	repo "helm.sh/helm/v4/pkg/repo/v1"
)

// maxIndexBytes bounds a repository's index.yaml (large public repositories' are tens of MiB).
const maxIndexBytes = 64 << 20

// client is the HTTP client of downloads: its own transport (never http.DefaultTransport,
// which the kustomize builds' network gate owns), no redirect to another scheme, and every
// answer read whole within the timeout and the size bound by get.
func (g *Getter) client() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: g.timeout()}).DialContext,
			TLSHandshakeTimeout:   g.timeout(),
			ResponseHeaderTimeout: g.timeout(),
			MaxIdleConns:          4,
			IdleConnTimeout:       30 * time.Second,
		},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("more than 5 redirects")
			}
			if via[0].URL.Scheme == "https" && req.URL.Scheme != "https" {
				return fmt.Errorf("redirect from https to %s refused", req.URL.Scheme)
			}
			return nil
		},
	}
}

// get reads url whole, at most limit bytes, within the getter's timeout.
func (g *Getter) get(ctx context.Context, u string, header http.Header, limit int64) ([]byte, http.Header, int, error) {
	if !g.AllowNetwork {
		return nil, nil, 0, fmt.Errorf("refused GET <%s>: the network is not allowed", u)
	}
	ctx, cancel := context.WithTimeout(ctx, g.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, 0, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("User-Agent", "kubeforensics")
	resp, err := g.client().Do(req)
	if err != nil {
		return nil, nil, 0, err
	}
	return readBody(resp, u, limit)
}

// pullHTTP reads the repository's index, resolves the version with Helm's own index
// (resolveVersion) and downloads the archive, checking the index's digest.
func (g *Getter) pullHTTP(ctx context.Context, ref Ref) ([]byte, string, error) {
	base := strings.TrimSuffix(ref.URL, "/") + "/"
	data, _, code, err := g.get(ctx, base+"index.yaml", nil, maxIndexBytes)
	if err != nil {
		return nil, "", err
	}
	if code != http.StatusOK {
		return nil, "", fmt.Errorf("GET <%sindex.yaml>: HTTP %d", base, code)
	}
	cv, err := resolveVersion(data, ref.Chart, ref.Version)
	if err != nil {
		return nil, "", err
	}
	if len(cv.URLs) == 0 {
		return nil, "", fmt.Errorf("index.yaml lists %s %s without a URL", ref.Chart, cv.Version)
	}
	u, err := resolveURL(base, cv.URLs[0])
	if err != nil {
		return nil, "", err
	}
	archive, _, code, err := g.get(ctx, u, nil, MaxChartBytes)
	if err != nil {
		return nil, "", err
	}
	if code != http.StatusOK {
		return nil, "", fmt.Errorf("GET <%s>: HTTP %d", u, code)
	}
	if cv.Digest != "" && Digest(archive) != "sha256:"+strings.TrimPrefix(cv.Digest, "sha256:") {
		return nil, "", fmt.Errorf("GET <%s>: the archive's digest is %s, the index says %s", u, Digest(archive), cv.Digest)
	}
	return archive, cv.Version, nil
}

// resolveURL makes a chart URL of the index absolute against the repository's.
func resolveURL(base, ref string) (string, error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", err
	}
	out := b.ResolveReference(r)
	if out.Scheme != "http" && out.Scheme != "https" {
		return "", fmt.Errorf("chart URL %q is not http(s)", ref)
	}
	return out.String(), nil
}

// resolveVersion loads an index.yaml with Helm's own loader (repo.LoadIndexFile: entries that
// are empty or invalid dropped, versions sorted newest first) and resolves chart's version
// with IndexFile.Get, as Helm and source-controller resolve it: the exact version if listed,
// else the newest version the constraint allows (pre-releases only when it names one). The
// loader reads a file: the index is written to a temporary one, removed at once.
func resolveVersion(index []byte, chart, version string) (*repo.ChartVersion, error) {
	if strings.ContainsFunc(chart+version, unicode.IsControl) {
		return nil, fmt.Errorf("chart %q version %q: control characters", chart, version)
	}
	f, err := os.CreateTemp("", "kubeforensics-index-*.yaml")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(index)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	idx, err := repo.LoadIndexFile(f.Name())
	if err != nil {
		return nil, fmt.Errorf("index.yaml: %w", err)
	}
	cv, err := idx.Get(chart, version)
	switch {
	case errors.Is(err, repo.ErrNoChartName), errors.Is(err, repo.ErrNoChartVersion):
		return nil, errors.New("the index lists no such chart")
	case err != nil:
		return nil, fmt.Errorf("version %q: %w", version, err)
	}
	return cv, nil
}

// bounded is the transport of Helm's registry client: no request without the network allowed,
// each bound to the context of the Get that made it (Helm's client takes none), and each
// answer's body cut at limit bytes.
type bounded struct {
	next  http.RoundTripper
	allow bool
	limit int64
	ctx   context.Context
}

func (b *bounded) RoundTrip(req *http.Request) (*http.Response, error) {
	if !b.allow {
		return nil, fmt.Errorf("refused %s <%s>: the network is not allowed", req.Method, req.URL.Redacted())
	}
	ctx, cancel := context.WithCancel(req.Context())
	stop := context.AfterFunc(b.ctx, cancel)
	done := func() { stop(); cancel() }
	resp, err := b.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		done()
		return nil, err
	}
	resp.Body = &limitedBody{rc: resp.Body, left: b.limit, url: req.URL.Redacted(), done: done}
	return resp, nil
}

// limitedBody fails a read past its bound.
type limitedBody struct {
	rc   io.ReadCloser
	left int64
	url  string
	done func()
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.rc.Read(p)
	if l.left -= int64(n); l.left < 0 {
		return 0, fmt.Errorf("GET <%s>: more than a chart may hold", l.url)
	}
	return n, err
}

func (l *limitedBody) Close() error {
	err := l.rc.Close()
	l.done()
	return err
}

// readBody reads resp's body whole, at most limit bytes, and closes it.
func readBody(resp *http.Response, u string, limit int64) ([]byte, http.Header, int, error) {
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, nil, 0, fmt.Errorf("GET <%s>: %w", u, err)
	}
	if int64(len(data)) > limit {
		return nil, nil, 0, fmt.Errorf("GET <%s>: more than %d bytes", u, limit)
	}
	return data, resp.Header, resp.StatusCode, nil
}
