package charts

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"

	"github.com/kubeforensics/suite/internal/gitrev"
)

// DefaultTimeout bounds one download (a request and its body) when Getter.Timeout is 0.
const DefaultTimeout = 30 * time.Second

// Getter obtains charts: from a chart directory of the repository, from Dir (charts pulled
// beforehand, <name>-<version>.tgz), from Cache, and only with AllowNetwork from the source
// itself, storing what it downloads in Cache.
type Getter struct {
	Dir          string
	Cache        *Cache
	AllowNetwork bool
	Timeout      time.Duration
}

// Chart is one chart obtained, with the version it resolved to, the digest of its archive
// ("" for a directory) and where it came from.
type Chart struct {
	Chart   *chart.Chart
	Version string
	Digest  string
	From    string
}

// ErrUnavailable marks a chart that cannot be had without more input: the error names the
// chart, its version and source, and the flag that supplies it.
var ErrUnavailable = errors.New("chart not available")

func unavailable(ref Ref, why string) error {
	return fmt.Errorf("%w: %s: %s (pass --charts DIR with `helm pull` output, a chart cache that holds it, or --allow-network)", ErrUnavailable, ref, why)
}

// Get obtains the chart ref names.
func (g *Getter) Get(ctx context.Context, ref Ref) (*Chart, error) {
	switch ref.Type {
	case TypeDir:
		return loadDir(ref)
	case TypeHTTP, TypeOCI:
	default:
		return nil, fmt.Errorf("%s: unknown source type %q", ref, ref.Type)
	}
	if exact := exactVersion(ref); exact != "" {
		if c, err := g.fromDir(ref, exact); c != nil || err != nil {
			return c, err
		}
		if data, digest, ok := g.Cache.Lookup(cacheKey(ref, exact)); ok {
			return load(ref, data, digest, "chart cache "+g.Cache.Dir())
		}
	}
	if !g.AllowNetwork {
		if exactVersion(ref) == "" {
			return nil, unavailable(ref, "a version constraint is resolved against the source's index or tags, which are not read offline")
		}
		return nil, unavailable(ref, "not in --charts and not in the chart cache, and the network is not allowed")
	}
	ctx, cancel := context.WithTimeout(ctx, g.timeout()*4)
	defer cancel()
	var (
		data    []byte
		version string
		err     error
	)
	if ref.Type == TypeOCI {
		data, version, err = g.pullOCI(ctx, ref)
	} else {
		data, version, err = g.pullHTTP(ctx, ref)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	if err := g.Cache.Store(cacheKey(ref, version), data); err != nil {
		return nil, err
	}
	return load(ref, data, Digest(data), "downloaded from "+ref.URL)
}

func (g *Getter) timeout() time.Duration {
	if g.Timeout > 0 {
		return g.Timeout
	}
	return DefaultTimeout
}

// exactVersion is the version ref pins, "" when it names a range (or nothing) that only the
// source's index resolves.
func exactVersion(ref Ref) string {
	if ref.Digest != "" {
		return ref.Digest
	}
	if ref.Type == TypeOCI && strings.HasPrefix(ref.Source, "OCIRepository/") {
		if _, err := semver.NewConstraint(ref.Version); err == nil && isRange(ref.Version) {
			return ""
		}
		return ref.Version
	}
	if ref.Version == "" || isRange(ref.Version) {
		return ""
	}
	if _, err := semver.StrictNewVersion(strings.TrimPrefix(ref.Version, "v")); err != nil {
		return ""
	}
	return ref.Version
}

func isRange(v string) bool {
	if v == "" || v == "latest" {
		return v == ""
	}
	if strings.ContainsAny(v, "^~<>=!*| ,") {
		return true
	}
	core, _, _ := strings.Cut(v, "-")
	return strings.ContainsAny(core, "xX")
}

// cacheKey is what leads to a chart's archive in the cache: the source type, its URL (with the
// chart's name for a repository) and the version, tag or digest.
func cacheKey(ref Ref, version string) string {
	if ref.Type == TypeOCI {
		return "oci\n" + ref.ociReference() + "\n" + version
	}
	return "http\n" + strings.TrimSuffix(ref.URL, "/") + "\n" + ref.Chart + "\n" + version
}

// fromDir reads <chart>-<version>.tgz from Dir; nil, nil when there is no such file.
func (g *Getter) fromDir(ref Ref, version string) (*Chart, error) {
	if g.Dir == "" || strings.HasPrefix(version, "sha256:") {
		return nil, nil
	}
	name := ref.Chart + "-" + strings.TrimPrefix(version, "v") + ".tgz"
	p := filepath.Join(g.Dir, name)
	if _, err := os.Stat(p); err != nil {
		p = filepath.Join(g.Dir, ref.Chart+"-"+version+".tgz")
	}
	data, err := readBounded(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("--charts: %w", err)
	}
	return load(ref, data, Digest(data), "--charts "+g.Dir)
}

func readBounded(p string) ([]byte, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if fi.Size() > MaxChartBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than a chart may hold (%d)", p, fi.Size(), MaxChartBytes)
	}
	return os.ReadFile(p)
}

// load reads an archive and checks it is the chart asked for.
func load(ref Ref, data []byte, digest, from string) (*Chart, error) {
	c, err := loader.LoadArchive(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", ref, from, err)
	}
	if c.Metadata == nil || c.Metadata.Name != ref.Chart {
		return nil, fmt.Errorf("%s (%s): the archive holds chart %q", ref, from, c.Name())
	}
	return &Chart{Chart: c, Version: c.Metadata.Version, Digest: digest, From: from}, nil
}

// DirDigest digests a chart directory's files (paths and contents), so a change to a chart
// kept in the repository is seen even when the HelmRelease does not change. A directory that
// cannot be read digests to a text naming it and why, which differs between revisions (their
// snapshots are apart), so the release is rendered and its failure reported.
func DirDigest(dir string) string { return DirDigestIn(gitrev.Disk(dir), dir) }

// DirDigestIn is DirDigest of dir read from files (a revision read from git's objects needs
// not be written out to be digested).
func DirDigestIn(files gitrev.Files, dir string) string {
	h := sha256.New()
	total := int64(0)
	err := gitrev.WalkDir(files, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", p)
		}
		data, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		if total += int64(len(data)); total > MaxChartBytes*5 {
			return fmt.Errorf("%s: more than a chart may hold", dir)
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), len(data))
		h.Write(data)
		return nil
	})
	if err != nil {
		return "unreadable " + dir + ": " + err.Error()
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
