package charts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"
	helmregistry "helm.sh/helm/v4/pkg/registry"
	repo "helm.sh/helm/v4/pkg/repo/v1"
	"sigs.k8s.io/yaml"
)

// Pin is a version range resolved to one version against what the cache holds of the chart's
// source: a repository's index (the entries of this chart) or a registry's tag list, kept by
// `charts pull`. The gate resolves offline exactly as source-controller would against the same
// list, so the chart rendered is the one the pull fetched, and it says which.
type Pin struct {
	// Constraint is the version as the HelmRelease or OCIRepository writes it ("" the latest).
	Constraint string `json:"constraint"`
	// Version is the version it resolved to.
	Version string `json:"version"`
	// Against names the list it was resolved against: "index of <url>" or "tags of <ref>".
	Against string `json:"against"`
}

// String says what was resolved to what, for a reader.
func (p Pin) String() string {
	c := p.Constraint
	if c == "" {
		c = "(latest)"
	}
	return fmt.Sprintf("%s resolved to %s against the cached %s", c, p.Version, p.Against)
}

// listKey is the cache key of the version list of ref's source: a repository's index entries
// for ref's chart, or a registry repository's tags.
func listKey(ref Ref) string {
	if ref.Type == TypeOCI {
		return "tags\n" + ref.ociReference()
	}
	return "index\n" + strings.TrimSuffix(ref.URL, "/") + "\n" + ref.Chart
}

func listName(ref Ref) string {
	if ref.Type == TypeOCI {
		return "tags of oci://" + ref.ociReference()
	}
	return "index of " + strings.TrimSuffix(ref.URL, "/")
}

// StoreIndex keeps the entries idx lists for ref's chart (the rest of a public index is
// megabytes nobody reads), for offline resolution.
func (c *Cache) StoreIndex(ref Ref, idx *repo.IndexFile) error {
	if c == nil {
		return nil
	}
	vs := idx.Entries[ref.Chart]
	if len(vs) == 0 {
		return fmt.Errorf("the index of %s lists no chart %s", ref.URL, ref.Chart)
	}
	kept := repo.NewIndexFile()
	kept.Entries[ref.Chart] = vs
	kept.Generated = idx.Generated
	data, err := yaml.Marshal(kept)
	if err != nil {
		return fmt.Errorf("chart cache: index of %s: %w", ref.URL, err)
	}
	return c.Store(listKey(ref), data)
}

// StoreTags keeps a registry repository's tags, for offline resolution.
func (c *Cache) StoreTags(ref Ref, tags []string) error {
	if c == nil {
		return nil
	}
	data, err := json.Marshal(map[string][]string{"tags": tags})
	if err != nil {
		return err
	}
	return c.Store(listKey(ref), data)
}

// ErrNoList is a source whose index or tag list the cache does not hold.
var ErrNoList = errors.New("no cached index or tag list")

// Resolve pins ref's version against the index or tags the cache holds for its source, as
// source-controller resolves it (Helm's IndexFile.Get for a repository, Helm's tag match for
// a registry: the exact version when listed, else the newest the range allows, pre-releases
// only when the range names one). A ref pinned by digest, or a chart directory, is returned
// as is with a nil Pin.
func (c *Cache) Resolve(ref Ref) (Ref, *Pin, error) {
	if ref.Digest != "" || ref.Type == TypeDir {
		return ref, nil, nil
	}
	data, _, ok := c.Lookup(listKey(ref))
	if !ok {
		return ref, nil, fmt.Errorf("%w for %s", ErrNoList, ref)
	}
	version, err := resolveList(ref, data)
	if err != nil {
		return ref, nil, fmt.Errorf("%s: against the cached %s: %w", ref, listName(ref), err)
	}
	pin := &Pin{Constraint: ref.Version, Version: version, Against: listName(ref)}
	ref.Version = version
	return ref, pin, nil
}

func resolveList(ref Ref, data []byte) (string, error) {
	if ref.Type == TypeOCI {
		var list struct {
			Tags []string `json:"tags"`
		}
		if err := json.Unmarshal(data, &list); err != nil {
			return "", err
		}
		return helmregistry.GetTagMatchingVersionOrConstraint(sortTags(list.Tags), ref.Version)
	}
	var idx repo.IndexFile
	if err := yaml.Unmarshal(data, &idx); err != nil {
		return "", err
	}
	idx.SortEntries()
	cv, err := idx.Get(ref.Chart, ref.Version)
	if err != nil {
		return "", err
	}
	return cv.Version, nil
}

// sortTags turns tags into versions ('_' back to '+', as Helm pushes them) and orders them
// newest first, as Helm's registry client lists them; tags that are no version come last.
func sortTags(tags []string) []string {
	out := make([]string, len(tags))
	for i, t := range tags {
		out[i] = strings.ReplaceAll(t, "_", "+")
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, aerr := semver.NewVersion(out[i])
		b, berr := semver.NewVersion(out[j])
		switch {
		case aerr != nil || berr != nil:
			return aerr == nil && berr != nil
		default:
			return a.GreaterThan(b)
		}
	})
	return out
}

// GetPinned is Get, except that offline a version range the chart cache can resolve (its
// source's index or tags were kept by `charts pull`) is pinned first, and the chart's From
// names the version picked. Online, Get resolves against the source itself.
func (g *Getter) GetPinned(ctx context.Context, ref Ref) (*Chart, error) {
	c, err := g.Get(ctx, ref)
	if err == nil || g.AllowNetwork || !errors.Is(err, ErrUnavailable) {
		return c, err
	}
	pinned, pin, rerr := g.Cache.Resolve(ref)
	if rerr != nil || pin == nil || pinned.Version == ref.Version {
		return nil, err
	}
	c, err = g.Get(ctx, pinned)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pin, err)
	}
	c.From += "; " + pin.String()
	return c, nil
}
