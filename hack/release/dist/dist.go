// Package dist reads what one goreleaser run left in its output directory: the tag and version
// (metadata.json), each plugin's archives by platform (artifacts.json, keyed by goreleaser
// archive id, which is the krew plugin name) and the published checksums (checksums.txt).
// krewgen and fluxgen render their manifests from it.
package dist

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Archive is one archive of the build: its platform and file.
type Archive struct{ OS, Arch, Path string }

// Artifact is the part of a dist/artifacts.json entry this package reads.
type Artifact struct {
	Name   string         `json:"name"`
	Path   string         `json:"path"`
	GOOS   string         `json:"goos"`
	GOARCH string         `json:"goarch"`
	Type   string         `json:"type"`
	Extra  map[string]any `json:"extra"`
}

// Build is what one goreleaser run produced.
type Build struct {
	Tag string
	// Version is the release's version without a leading v.
	Version string

	dir      string
	archives map[string][]Archive
}

// Read reads dir/metadata.json and the archives listed in dir/artifacts.json.
func Read(dir string) (*Build, error) {
	var meta struct {
		Tag     string `json:"tag"`
		Version string `json:"version"`
	}
	if err := readJSON(filepath.Join(dir, "metadata.json"), &meta); err != nil {
		return nil, err
	}
	var arts []Artifact
	if err := readJSON(filepath.Join(dir, "artifacts.json"), &arts); err != nil {
		return nil, err
	}
	b := &Build{Tag: meta.Tag, Version: strings.TrimPrefix(meta.Version, "v"), dir: dir, archives: map[string][]Archive{}}
	for _, a := range arts {
		id, _ := a.Extra["ID"].(string)
		if a.Type != "Archive" || id == "" {
			continue
		}
		// goreleaser writes archives at the top of its output; the path it records is relative
		// to wherever it ran, so only the base name is kept.
		b.archives[id] = append(b.archives[id], Archive{a.GOOS, a.GOARCH, filepath.Join(dir, filepath.Base(a.Path))})
	}
	for _, as := range b.archives {
		sort.Slice(as, func(i, j int) bool { return as[i].OS+"/"+as[i].Arch < as[j].OS+"/"+as[j].Arch })
	}
	return b, nil
}

// Archives are the archives of goreleaser archive id, ordered by os/arch.
func (b *Build) Archives(id string) []Archive { return b.archives[id] }

// Archive is the archive of id for one platform.
func (b *Build) Archive(id, os, arch string) (Archive, bool) {
	for _, a := range b.archives[id] {
		if a.OS == os && a.Arch == arch {
			return a, true
		}
	}
	return Archive{}, false
}

// SHA256 is the hex sha256 of a file.
func SHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hashing %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func readJSON(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading goreleaser output: %w", err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("parsing %s: %w", path, err)
	}
	return nil
}
