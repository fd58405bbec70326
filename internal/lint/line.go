package lint

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// lineCache holds the lines of the files findings point into.
type lineCache struct {
	mu    sync.Mutex
	files map[string][]string
}

func (c *lineCache) get(root, file string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.files == nil {
		c.files = map[string][]string{}
	}
	if l, ok := c.files[file]; ok {
		return l
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	var lines []string
	if err == nil {
		lines = strings.Split(string(data), "\n")
	}
	c.files[file] = lines
	return lines
}

var (
	kindLine = regexp.MustCompile(`^kind:\s*["']?([A-Za-z0-9]+)["']?\s*(#.*)?$`)
	nameLine = regexp.MustCompile(`^\s+name:\s*["']?([^"'#\s]+)["']?\s*(#.*)?$`)
)

// Locate returns the 1-based line of file where the object kind/name is written, or 0.
//
// The build names each object's file (kustomize's origin annotation) but not its line, so the
// file is read as text: it is split into YAML documents at `---`, the document whose top-level
// `kind:` is kind and whose first indented `name:` is name is the object (when no document has
// that name, because a prefix, patch or substitution renamed it, the only document of that
// kind is taken). Within it, the line is the first one whose key is field (e.g. "timeout"),
// else the `kind:` line. Nothing is located in files that are not plain YAML documents.
func (r *Repo) Locate(file, kind, name, field string) int {
	if file == "" {
		return 0
	}
	lines := r.lines.get(r.Root, file)
	if n := locateNodes(lines, kind, name, field); n > 0 {
		return n
	}
	type doc struct{ start, end, kind int }
	var docs []doc
	start := 0
	for i := 0; i <= len(lines); i++ {
		if i == len(lines) || strings.HasPrefix(lines[i], "---") {
			docs = append(docs, doc{start: start, end: i, kind: -1})
			start = i + 1
		}
	}
	var byName, byKind []doc
	for _, d := range docs {
		nameMatches := false
		seenName := false
		for i := d.start; i < d.end; i++ {
			if m := kindLine.FindStringSubmatch(lines[i]); m != nil && m[1] == kind && d.kind < 0 {
				d.kind = i
			}
			if m := nameLine.FindStringSubmatch(lines[i]); m != nil && !seenName {
				seenName, nameMatches = true, m[1] == name
			}
		}
		if d.kind < 0 {
			continue
		}
		byKind = append(byKind, d)
		if nameMatches {
			byName = append(byName, d)
		}
	}
	var hit *doc
	switch {
	case len(byName) > 0:
		hit = &byName[0]
	case len(byKind) == 1:
		hit = &byKind[0]
	default:
		return 0
	}
	if field != "" {
		key := regexp.MustCompile(`^\s*(- )?` + regexp.QuoteMeta(field) + `:`)
		for i := hit.start; i < hit.end; i++ {
			if key.MatchString(lines[i]) {
				return i + 1
			}
		}
	}
	return hit.kind + 1
}

// LocateText returns the 1-based line of the first line of file containing text, or 0.
func (r *Repo) LocateText(file, text string) int {
	for i, l := range r.lines.get(r.Root, file) {
		if strings.Contains(l, text) {
			return i + 1
		}
	}
	return 0
}
