package charts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
)

// PullStatus is what pulling one declared chart came to.
type PullStatus string

// The outcomes of a pull.
const (
	// PullDownloaded: the chart was downloaded from its source and kept in the cache.
	PullDownloaded PullStatus = "downloaded"
	// PullCached: the cache already held it; only its source's version list was read, if any.
	PullCached PullStatus = "cached"
	// PullUnavailable: it could not be had (the reason says why); the gate is UNKNOWN on it.
	PullUnavailable PullStatus = "unavailable"
	// PullRefused: its source's URL is not one the trusted revision declares.
	PullRefused PullStatus = "refused"
	// PullDeclared: listed only (--list); nothing was fetched.
	PullDeclared PullStatus = "declared"
)

// Pulled is one declared chart and what pulling it came to.
type Pulled struct {
	Chart string `json:"chart"`
	// Version is the version, range or tag as declared ("" the latest).
	Version string `json:"version,omitempty"`
	Source  string `json:"source"`
	URL     string `json:"url"`
	// Pin says which version a range resolved to, against which list.
	Pin *Pin `json:"pin,omitempty"`
	// Got is the version of the chart obtained, Digest its archive's.
	Got    string     `json:"got,omitempty"`
	Digest string     `json:"digest,omitempty"`
	Status PullStatus `json:"status"`
	Reason string     `json:"reason,omitempty"`
	// Files declare it (relative to the repository's top), at Revisions.
	Files     []string `json:"files"`
	Revisions []string `json:"revisions"`
}

// Puller fills a chart cache with declared charts, over the network: each chart's source's
// version list when a range must be resolved (ListFetcher: the declared host only), then the
// chart through Getter, bounded by Timeout per request.
type Puller struct {
	Cache   *Cache
	Timeout time.Duration
	// Trusted, when not nil, holds the only source URLs fetched from; a chart from any other is
	// refused (a fork's pull request cannot point the pull at a host of its choosing).
	Trusted map[string]bool
}

// Pull obtains d's chart into the cache and says how.
func (p *Puller) Pull(ctx context.Context, d Declared) Pulled {
	ref := d.Ref
	out := Pulled{Chart: ref.Chart, Version: ref.Version, Source: ref.Source, URL: ref.URL, Files: d.Files}
	if p.Trusted != nil && !p.Trusted[ref.URL] {
		out.Status, out.Reason = PullRefused, "its source's URL is not declared by the trusted revision: nothing is fetched from it"
		return out
	}
	if needsList(ref) {
		f := &ListFetcher{Timeout: p.Timeout}
		var err error
		if ref.Type == TypeOCI {
			var tags []string
			if tags, err = f.Tags(ctx, ref); err == nil {
				err = p.Cache.StoreTags(ref, tags)
			}
		} else if idx, ierr := f.Index(ctx, ref); ierr != nil {
			err = ierr
		} else {
			err = p.Cache.StoreIndex(ref, idx)
		}
		if err != nil {
			out.Status, out.Reason = PullUnavailable, err.Error()
			return out
		}
		pinned, pin, err := p.Cache.Resolve(ref)
		if err != nil {
			out.Status, out.Reason = PullUnavailable, err.Error()
			return out
		}
		ref, out.Pin = pinned, pin
	}
	g := &Getter{Cache: p.Cache, AllowNetwork: true, Timeout: p.Timeout}
	c, err := g.Get(ctx, ref)
	if err != nil {
		out.Status, out.Reason = PullUnavailable, err.Error()
		return out
	}
	out.Got, out.Digest, out.Status = c.Version, c.Digest, PullDownloaded
	if strings.HasPrefix(c.From, "chart cache") {
		out.Status = PullCached
	}
	return out
}

// needsList says whether ref names a range (or nothing) that only its source's version list
// resolves; an exact version, a tag or a digest does not.
func needsList(ref Ref) bool {
	if ref.Digest != "" {
		return false
	}
	v := strings.TrimPrefix(ref.Version, "v")
	if _, err := semver.StrictNewVersion(v); err == nil && ref.Version != "" {
		return false
	}
	if ref.Type == TypeOCI {
		_, err := semver.NewConstraint(ref.Version)
		return err == nil && ref.Version != "latest"
	}
	return true
}

// DeclaredKey digests the charts declared (source, chart, version as written): the key of a
// CI cache that holds them, which changes when a chart, a version or a source does.
func DeclaredKey(ds []Declared) string {
	lines := make([]string, 0, len(ds))
	for _, d := range ds {
		lines = append(lines, listKey(d.Ref)+"\x00"+d.Ref.Version+"\x00"+d.Ref.Digest)
	}
	sort.Strings(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l + "\n"))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// DeclaredID is the identity of a declared chart across revisions.
func DeclaredID(d Declared) string {
	return listKey(d.Ref) + "\x00" + d.Ref.Version + "\x00" + d.Ref.Digest
}
