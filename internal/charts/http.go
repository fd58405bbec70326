package charts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	repo "helm.sh/helm/v4/pkg/repo/v1"
	"sigs.k8s.io/yaml"
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

// pullHTTP reads the repository's index, resolves the version as source-controller does (the
// exact version if listed, else the newest version the constraint allows, pre-releases only
// when it names one) and downloads the archive, checking the index's digest.
func (g *Getter) pullHTTP(ctx context.Context, ref Ref) ([]byte, string, error) {
	base := strings.TrimSuffix(ref.URL, "/") + "/"
	data, _, code, err := g.get(ctx, base+"index.yaml", nil, maxIndexBytes)
	if err != nil {
		return nil, "", err
	}
	if code != http.StatusOK {
		return nil, "", fmt.Errorf("GET <%sindex.yaml>: HTTP %d", base, code)
	}
	var idx repo.IndexFile
	if err := yaml.Unmarshal(data, &idx); err != nil {
		return nil, "", fmt.Errorf("index.yaml: %w", err)
	}
	idx.SortEntries()
	cv, err := pick(idx.Entries[ref.Chart], ref.Version)
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

// pick chooses among versions sorted newest first.
func pick(vs repo.ChartVersions, constraint string) (*repo.ChartVersion, error) {
	if len(vs) == 0 {
		return nil, errors.New("the index lists no such chart")
	}
	for _, v := range vs {
		if constraint != "" && v.Version == constraint {
			return v, nil
		}
	}
	if constraint == "" {
		constraint = "*"
	}
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		return nil, fmt.Errorf("version %q: %w", constraint, err)
	}
	for _, v := range vs {
		sv, err := semver.NewVersion(v.Version)
		if err == nil && c.Check(sv) {
			return v, nil
		}
	}
	return nil, fmt.Errorf("no version matches %q", constraint)
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
