package charts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// The media types of an OCI chart: its manifest and the layer that is the chart's archive.
const (
	ociManifestType  = "application/vnd.oci.image.manifest.v1+json"
	helmChartLayer   = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
	maxManifestBytes = 4 << 20
)

type ociManifest struct {
	Layers []struct {
		MediaType string `json:"mediaType"`
		Digest    string `json:"digest"`
		Size      int64  `json:"size"`
	} `json:"layers"`
}

// registry is one OCI reference split into where to ask and what for.
type registry struct {
	g     *Getter
	base  string // scheme://host
	repo  string // path in the registry
	token string
}

func (g *Getter) registry(ref Ref) (*registry, error) {
	host, repo, ok := strings.Cut(ref.ociReference(), "/")
	if !ok || host == "" || repo == "" {
		return nil, fmt.Errorf("%q is not an OCI reference", ref.URL)
	}
	scheme := "https"
	if ref.Insecure {
		scheme = "http"
	}
	return &registry{g: g, base: scheme + "://" + host, repo: repo}, nil
}

// pullOCI resolves the tag (a semver constraint against the repository's tags, '+' written
// '_' as Helm pushes them), reads the manifest and downloads the chart layer, checking its
// digest; it returns the archive and the version it resolved to.
func (g *Getter) pullOCI(ctx context.Context, ref Ref) ([]byte, string, error) {
	r, err := g.registry(ref)
	if err != nil {
		return nil, "", err
	}
	// Helm pushes version 1.2.3+build as tag 1.2.3_build: OCI tags cannot hold '+'.
	tag := strings.ReplaceAll(exactVersion(ref), "+", "_")
	if tag == "" {
		if tag, err = r.resolveTag(ctx, ref.Version); err != nil {
			return nil, "", err
		}
	}
	data, err := r.fetch(ctx, "manifests/"+tag, ociManifestType, maxManifestBytes)
	if err != nil {
		return nil, "", err
	}
	var m ociManifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, "", fmt.Errorf("manifest of %s:%s: %w", r.repo, tag, err)
	}
	layer := -1
	for i, l := range m.Layers {
		if l.MediaType == helmChartLayer {
			layer = i
			break
		}
	}
	if layer < 0 {
		return nil, "", fmt.Errorf("%s:%s has no layer of type %s: not a Helm chart", r.repo, tag, helmChartLayer)
	}
	l := m.Layers[layer]
	if l.Size > MaxChartBytes {
		return nil, "", fmt.Errorf("%s:%s: the chart layer has %d bytes, more than a chart may hold", r.repo, tag, l.Size)
	}
	archive, err := r.fetch(ctx, "blobs/"+l.Digest, "", MaxChartBytes)
	if err != nil {
		return nil, "", err
	}
	if Digest(archive) != l.Digest {
		return nil, "", fmt.Errorf("%s:%s: the chart layer's digest is %s, the manifest says %s", r.repo, tag, Digest(archive), l.Digest)
	}
	return archive, strings.ReplaceAll(tag, "_", "+"), nil
}

// resolveTag lists the repository's tags and picks the newest one the constraint allows.
func (r *registry) resolveTag(ctx context.Context, constraint string) (string, error) {
	data, err := r.fetch(ctx, "tags/list", "", maxManifestBytes)
	if err != nil {
		return "", err
	}
	var list struct {
		Tags []string `json:"tags"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return "", fmt.Errorf("tags of %s: %w", r.repo, err)
	}
	if constraint == "" {
		constraint = "*"
	}
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		return "", fmt.Errorf("version %q: %w", constraint, err)
	}
	type tv struct {
		tag string
		v   *semver.Version
	}
	var ok []tv
	for _, t := range list.Tags {
		if v, err := semver.NewVersion(strings.ReplaceAll(t, "_", "+")); err == nil && c.Check(v) {
			ok = append(ok, tv{t, v})
		}
	}
	if len(ok) == 0 {
		return "", fmt.Errorf("no tag of %s matches %q", r.repo, constraint)
	}
	sort.Slice(ok, func(i, j int) bool { return ok[i].v.GreaterThan(ok[j].v) })
	return ok[0].tag, nil
}

// fetch GETs /v2/<repo>/<what>, answering one anonymous bearer-token challenge.
func (r *registry) fetch(ctx context.Context, what, accept string, limit int64) ([]byte, error) {
	u := r.base + "/v2/" + r.repo + "/" + what
	for attempt := 0; attempt < 2; attempt++ {
		h := http.Header{}
		if accept != "" {
			h.Set("Accept", accept)
		}
		if r.token != "" {
			h.Set("Authorization", "Bearer "+r.token)
		}
		data, header, code, err := r.g.get(ctx, u, h, limit)
		if err != nil {
			return nil, err
		}
		switch {
		case code == http.StatusOK:
			return data, nil
		case code == http.StatusUnauthorized && attempt == 0 && r.token == "":
			if err := r.login(ctx, header.Get("WWW-Authenticate")); err != nil {
				return nil, fmt.Errorf("GET <%s>: %w", u, err)
			}
		default:
			return nil, fmt.Errorf("GET <%s>: HTTP %d", u, code)
		}
	}
	return nil, fmt.Errorf("GET <%s>: unauthorized", u)
}

// login asks the challenge's realm for an anonymous token: charts that need credentials are
// not pulled (no credentials are ever read).
func (r *registry) login(ctx context.Context, challenge string) error {
	scheme, params, ok := strings.Cut(challenge, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return errors.New("the registry wants credentials, which are never read")
	}
	p := map[string]string{}
	for _, kv := range strings.Split(params, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		p[k] = strings.Trim(v, `"`)
	}
	realm, err := url.Parse(p["realm"])
	if err != nil || (realm.Scheme != "https" && realm.Scheme != "http") {
		return fmt.Errorf("token realm %q is not http(s)", p["realm"])
	}
	q := realm.Query()
	for _, k := range []string{"service", "scope"} {
		if p[k] != "" {
			q.Set(k, p[k])
		}
	}
	realm.RawQuery = q.Encode()
	data, _, code, err := r.g.get(ctx, realm.String(), nil, 1<<20)
	if err != nil {
		return err
	}
	if code != http.StatusOK {
		return fmt.Errorf("anonymous token: HTTP %d (the chart needs credentials, which are never read)", code)
	}
	var tok struct {
		Token       string `json:"token"`
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(data, &tok); err != nil {
		return fmt.Errorf("anonymous token: %w", err)
	}
	r.token = tok.Token
	if r.token == "" {
		r.token = tok.AccessToken
	}
	if r.token == "" {
		return errors.New("anonymous token: empty")
	}
	return nil
}
