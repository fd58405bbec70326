package artifactgen

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/fluxcd/pkg/sourceignore"
	"github.com/fluxcd/pkg/sourceignore/gitignore"
	"github.com/kubeforensics/suite/internal/kbuild"
)

// The copy strategies of source-watcher that are followed; Extract (tarballs) is not.
const (
	strategyOverwrite = "Overwrite"
	strategyMerge     = "Merge"
)

// errArtifactTooLarge stops a generator that copies more than maxArtifactBytes.
var errArtifactTooLarge = errors.New("the generated artifacts exceed the size limit")

// copier applies an output artifact's copy operations from a source root into an artifact
// directory with source-watcher's cp-like semantics: operations in order, later files
// overwriting earlier ones (or merged into them with strategy Merge); "@src/dir/**" copies
// dir's contents, "@src/dir/" the directory itself, a glob without "**" the entries it matches
// (globs are io/fs globs: "**" matches one path element, as in source-watcher); a trailing
// slash on `to` names a directory. Both sides are os.Roots, so nothing outside the source root
// is read, whether named by ".." or reached through a symlink, and nothing outside the artifact
// is written. Files the source's artifact would not hold (source-controller's default ignore
// rules and .sourceignore files) are not copied.
type copier struct {
	budget *int64
	mu     *sync.Mutex
	ignore gitignore.Matcher
	// files maps each written artifact file to the source file it came from (slash paths).
	files map[string]string
}

func (c *copier) run(root, dir string, ops []copyOp) error {
	src, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer dst.Close()
	ps, err := sourceignore.LoadIgnorePatterns(root, nil)
	if err != nil {
		return fmt.Errorf("reading %s files: %w", sourceignore.IgnoreFile, err)
	}
	c.ignore = sourceignore.NewDefaultMatcher(ps, nil)
	for _, op := range ops {
		if err := c.apply(src, dst, op); err != nil {
			return fmt.Errorf("copy from %q to %q: %w", op.From, op.To, err)
		}
	}
	return nil
}

// apply runs one copy operation.
func (c *copier) apply(src, dst *os.Root, op copyOp) error {
	_, pattern, _ := strings.Cut(strings.TrimPrefix(op.From, "@"), "/")
	to, ok := strings.CutPrefix(op.To, "@artifact/")
	if !ok {
		return fmt.Errorf("the destination is not @artifact/path")
	}
	dest := path.Clean("/" + to)[1:]
	if dest == "" {
		dest = "."
	}
	for _, ex := range op.Exclude {
		if !doublestar.ValidatePattern(ex) {
			return fmt.Errorf("invalid exclude pattern %q", ex)
		}
	}
	if !strings.ContainsAny(pattern, "*?[]") {
		return c.single(src, dst, op, pattern, dest, strings.HasSuffix(op.To, "/"))
	}
	matches, err := fs.Glob(src.FS(), pattern)
	if err != nil {
		return fmt.Errorf("invalid glob pattern %q: %w", pattern, err)
	}
	base := selectionRoot(pattern)
	var kept []string
	for _, m := range matches {
		if m != "." && m != ".." && !c.ignored(src, m) && !excluded(m, base, op.Exclude) {
			kept = append(kept, m)
		}
	}
	if len(kept) == 0 {
		return fmt.Errorf("no files match pattern %q (or all are excluded)", pattern)
	}
	for _, m := range kept {
		target := path.Join(dest, m)
		if prefix, ok := strings.CutSuffix(pattern, "/**"); ok {
			if rel, ok := strings.CutPrefix(m, prefix+"/"); ok {
				target = path.Join(dest, rel)
			}
		}
		if err := c.entry(src, dst, op, m, target, base); err != nil {
			return err
		}
	}
	return nil
}

// single copies a path named without a glob: a directory becomes dest/<its name>, a file
// dest/<its name> when dest is a directory, else dest itself.
func (c *copier) single(src, dst *os.Root, op copyOp, p, dest string, intoDir bool) error {
	p = path.Clean(p)
	fi, err := src.Stat(p)
	if err != nil {
		return fmt.Errorf("source %q: %w", p, err)
	}
	if p != "." && c.ignored(src, p) {
		return fmt.Errorf("source %q is not in the source's artifact (its ignore rules leave it out)", p)
	}
	if fi.IsDir() {
		return c.entry(src, dst, op, p, path.Join(dest, path.Base(p)), p)
	}
	if excluded(p, ".", op.Exclude) {
		return nil
	}
	if di, err := dst.Stat(dest); intoDir || (err == nil && di.IsDir()) {
		dest = path.Join(dest, path.Base(p))
	}
	return c.entry(src, dst, op, p, dest, ".")
}

// entry copies file or directory p to target.
func (c *copier) entry(src, dst *os.Root, op copyOp, p, target, base string) error {
	fi, err := src.Stat(p)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return c.file(src, dst, op, p, target)
	}
	return fs.WalkDir(src.FS(), p, func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if q != p && (excluded(q, base, op.Exclude) || c.ignored(src, q)) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(q, p), "/")
		if d.IsDir() {
			return dst.MkdirAll(path.Join(target, rel), 0o755)
		}
		return c.file(src, dst, op, q, path.Join(target, rel))
	})
}

// file writes source file p to target, merging YAML into an existing target with Merge.
func (c *copier) file(src, dst *os.Root, op copyOp, p, target string) error {
	data, err := c.read(src, p)
	if err != nil {
		return err
	}
	if op.Strategy == strategyMerge {
		if old, err := dst.ReadFile(target); err == nil {
			if data, err = mergeYAMLDocs(old, data); err != nil {
				return fmt.Errorf("merging %s into %s: %w", p, target, err)
			}
		}
	}
	if err := dst.MkdirAll(path.Dir(target), 0o755); err != nil {
		return err
	}
	if err := dst.WriteFile(target, data, 0o644); err != nil {
		return err
	}
	c.files[kbuild.CleanPath(target)] = kbuild.CleanPath(p)
	return nil
}

// read reads a source file within the size budget shared by the Load's artifacts.
func (c *copier) read(src *os.Root, p string) ([]byte, error) {
	f, err := src.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c.mu.Lock()
	left := *c.budget
	c.mu.Unlock()
	data, err := io.ReadAll(io.LimitReader(f, left+1))
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if int64(len(data)) > *c.budget {
		return nil, fmt.Errorf("%w (%d MiB)", errArtifactTooLarge, maxArtifactBytes>>20)
	}
	*c.budget -= int64(len(data))
	return data, nil
}

// ignored reports whether the source's artifact leaves p out: p or a directory above it
// matches the ignore rules (source-controller skips an ignored directory whole).
func (c *copier) ignored(src *os.Root, p string) bool {
	fi, err := src.Stat(p)
	if err != nil {
		return false
	}
	parts := strings.Split(p, "/")
	for i := 1; i <= len(parts); i++ {
		if c.ignore.Match(parts[:i], i < len(parts) || fi.IsDir()) {
			return true
		}
	}
	return false
}

// selectionRoot is the literal prefix of a pattern before its first glob element.
func selectionRoot(pattern string) string {
	var lit []string
	for _, part := range strings.Split(path.Clean(pattern), "/") {
		if strings.ContainsAny(part, "*?[]") {
			break
		}
		lit = append(lit, part)
	}
	if len(lit) == 0 {
		return "."
	}
	return path.Join(lit...)
}

// excluded matches exclude patterns as source-watcher does: against the path from the source
// root and from the selection root, and, for a pattern without "/", against the file name.
func excluded(p, base string, patterns []string) bool {
	match := func(q string) bool {
		for _, pat := range patterns {
			if doublestar.MatchUnvalidated(pat, q) || (!strings.Contains(pat, "/") && doublestar.MatchUnvalidated(pat, path.Base(q))) {
				return true
			}
		}
		return false
	}
	if len(patterns) == 0 {
		return false
	}
	if match(p) {
		return true
	}
	if base == "." || base == "" {
		return false
	}
	rel, ok := strings.CutPrefix(p, base+"/")
	return ok && match(rel)
}
