package charts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	repo "helm.sh/helm/v4/pkg/repo/v1"
	"sigs.k8s.io/yaml"
)

// Bounds of the version lists `charts pull` reads: a public repository's index.yaml is tens of
// MiB, a registry's tag list far less.
const (
	maxListIndexBytes = 64 << 20
	maxTagListBytes   = 4 << 20
)

// ListFetcher reads the version list of a chart's source — a repository's index.yaml, a
// registry repository's tags — from the source's own host, so `charts pull` can keep it in
// the cache and the offline gate resolve a range against it. Requests go to the host of the
// declared URL only: a redirect to another host or from https to http is refused, and so is
// a registry's token realm on another host unless it is https. No credentials are read: a
// registry that wants more than an anonymous token is refused. Every request is bounded by
// Timeout and its answer by size.
type ListFetcher struct {
	Timeout time.Duration
}

func (f *ListFetcher) timeout() time.Duration {
	if f.Timeout > 0 {
		return f.Timeout
	}
	return DefaultTimeout
}

// Index reads the index.yaml of ref's repository.
func (f *ListFetcher) Index(ctx context.Context, ref Ref) (*repo.IndexFile, error) {
	u := strings.TrimSuffix(ref.URL, "/") + "/index.yaml"
	data, _, code, err := f.get(ctx, u, nil, maxListIndexBytes)
	if err != nil {
		return nil, err
	}
	if code != http.StatusOK {
		return nil, fmt.Errorf("GET <%s>: HTTP %d", u, code)
	}
	var idx repo.IndexFile
	if err := yaml.Unmarshal(data, &idx); err != nil {
		return nil, fmt.Errorf("<%s>: %w", u, err)
	}
	idx.SortEntries()
	return &idx, nil
}

// Tags lists the tags of ref's registry repository, answering one anonymous bearer-token
// challenge.
func (f *ListFetcher) Tags(ctx context.Context, ref Ref) ([]string, error) {
	host, path, ok := strings.Cut(ref.ociReference(), "/")
	if !ok || host == "" || path == "" {
		return nil, fmt.Errorf("%q is not an OCI reference", ref.URL)
	}
	scheme := "https"
	if ref.Insecure {
		scheme = "http"
	}
	u := scheme + "://" + host + "/v2/" + path + "/tags/list"
	token := ""
	for attempt := 0; attempt < 2; attempt++ {
		h := http.Header{}
		if token != "" {
			h.Set("Authorization", "Bearer "+token)
		}
		data, header, code, err := f.get(ctx, u, h, maxTagListBytes)
		if err != nil {
			return nil, err
		}
		switch {
		case code == http.StatusOK:
			var list struct {
				Tags []string `json:"tags"`
			}
			if err := json.Unmarshal(data, &list); err != nil {
				return nil, fmt.Errorf("<%s>: %w", u, err)
			}
			return list.Tags, nil
		case code == http.StatusUnauthorized && token == "":
			if token, err = f.anonymousToken(ctx, host, header.Get("WWW-Authenticate")); err != nil {
				return nil, fmt.Errorf("GET <%s>: %w", u, err)
			}
		default:
			return nil, fmt.Errorf("GET <%s>: HTTP %d", u, code)
		}
	}
	return nil, fmt.Errorf("GET <%s>: unauthorized", u)
}

// anonymousToken asks the challenge's realm for an anonymous pull token.
func (f *ListFetcher) anonymousToken(ctx context.Context, host, challenge string) (string, error) {
	scheme, params, ok := strings.Cut(challenge, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", errors.New("the registry wants credentials, which are never read")
	}
	p := map[string]string{}
	for _, kv := range strings.Split(params, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		p[k] = strings.Trim(v, `"`)
	}
	realm, err := url.Parse(p["realm"])
	if err != nil || !(realm.Scheme == "https" || (realm.Scheme == "http" && realm.Host == host)) {
		return "", fmt.Errorf("token realm %q is neither https nor the registry itself", p["realm"])
	}
	q := realm.Query()
	for _, k := range []string{"service", "scope"} {
		if p[k] != "" {
			q.Set(k, p[k])
		}
	}
	realm.RawQuery = q.Encode()
	data, _, code, err := f.get(ctx, realm.String(), nil, 1<<20)
	if err != nil {
		return "", err
	}
	if code != http.StatusOK {
		return "", fmt.Errorf("anonymous token: HTTP %d (the chart needs credentials, which are never read)", code)
	}
	var tok struct {
		Token       string `json:"token"`
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(data, &tok); err != nil {
		return "", fmt.Errorf("anonymous token: %w", err)
	}
	if tok.Token == "" {
		tok.Token = tok.AccessToken
	}
	if tok.Token == "" {
		return "", errors.New("anonymous token: empty")
	}
	return tok.Token, nil
}

// get reads u whole, at most limit bytes, within the timeout, following redirects on the
// same host only.
func (f *ListFetcher) get(ctx context.Context, u string, header http.Header, limit int64) ([]byte, http.Header, int, error) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, 0, err
	}
	if req.URL.Scheme != "https" && req.URL.Scheme != "http" {
		return nil, nil, 0, fmt.Errorf("<%s> is not http(s)", u)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("User-Agent", "kubeforensics")
	client := &http.Client{
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: f.timeout()}).DialContext,
			TLSHandshakeTimeout:   f.timeout(),
			ResponseHeaderTimeout: f.timeout(),
		},
		CheckRedirect: func(r *http.Request, via []*http.Request) error {
			switch {
			case len(via) >= 5:
				return errors.New("more than 5 redirects")
			case r.URL.Host != via[0].URL.Host:
				return fmt.Errorf("redirect to another host (%s) refused", r.URL.Host)
			case via[0].URL.Scheme == "https" && r.URL.Scheme != "https":
				return fmt.Errorf("redirect from https to %s refused", r.URL.Scheme)
			}
			return nil
		},
	}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, 0, err
	}
	return readBody(resp, u, limit)
}
