package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"
)

// Platform is one os/arch a release ships. Platforms lists them in the order manifests
// name them; .goreleaser.yaml builds exactly these (TestGoreleaserBuildsEveryPlatform).
type Platform struct{ OS, Arch string }

// Platforms are the platforms every plugin is released for.
var Platforms = []Platform{
	{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}, {"windows", "amd64"},
}

// Build is what one goreleaser run produced: its tag and version, and the archives.
type Build struct {
	Tag     string
	Version string
	// archives maps "<plugin>/<os>/<arch>" to the archive's path.
	archives map[string]string
}

// artifact is the part of a dist/artifacts.json entry krewgen reads.
type artifact struct {
	Name   string         `json:"name"`
	Path   string         `json:"path"`
	GOOS   string         `json:"goos"`
	GOARCH string         `json:"goarch"`
	Type   string         `json:"type"`
	Extra  map[string]any `json:"extra"`
}

// ReadBuild reads dist/metadata.json and the archives listed in dist/artifacts.json; an
// archive belongs to the plugin named by its goreleaser archive id.
func ReadBuild(dist string) (*Build, error) {
	var meta struct {
		Tag     string `json:"tag"`
		Version string `json:"version"`
	}
	if err := readJSON(filepath.Join(dist, "metadata.json"), &meta); err != nil {
		return nil, err
	}
	var arts []artifact
	if err := readJSON(filepath.Join(dist, "artifacts.json"), &arts); err != nil {
		return nil, err
	}
	b := &Build{Tag: meta.Tag, Version: "v" + strings.TrimPrefix(meta.Version, "v"), archives: map[string]string{}}
	for _, a := range arts {
		id, _ := a.Extra["ID"].(string)
		if a.Type != "Archive" || id == "" {
			continue
		}
		// goreleaser writes archives at the top of dist; its recorded path is relative to
		// wherever it ran, so only the base name is kept.
		b.archives[id+"/"+a.GOOS+"/"+a.GOARCH] = filepath.Join(dist, filepath.Base(a.Path))
	}
	return b, nil
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

// PlatformData is one platform entry as the template sees it.
type PlatformData struct {
	OS, Arch    string
	URI, SHA256 string
	// Ext is ".exe" on Windows, where the executables carry it.
	Ext string
}

// Data is what a manifest template is executed with.
type Data struct {
	Version   string
	Homepage  string
	Platforms []PlatformData
}

// Data returns the template data of plugin: one entry per platform, each with its archive's
// download URL under baseURL and its sha256, computed from the file.
func (b *Build) Data(plugin, baseURL string) (Data, error) {
	d := Data{Version: b.Version, Homepage: Homepage}
	for _, p := range Platforms {
		path, ok := b.archives[plugin+"/"+p.OS+"/"+p.Arch]
		if !ok {
			return Data{}, fmt.Errorf("no %s/%s archive with id %q in the goreleaser output", p.OS, p.Arch, plugin)
		}
		sum, err := fileSHA256(path)
		if err != nil {
			return Data{}, err
		}
		pd := PlatformData{OS: p.OS, Arch: p.Arch, URI: strings.TrimSuffix(baseURL, "/") + "/" + filepath.Base(path), SHA256: sum}
		if p.OS == "windows" {
			pd.Ext = ".exe"
		}
		d.Platforms = append(d.Platforms, pd)
	}
	return d, nil
}

func fileSHA256(path string) (string, error) {
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

// semver is the v-prefixed semantic version krew requires.
var semver = regexp.MustCompile(`^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// Render executes one manifest template. It refuses a version that is not v-prefixed semver
// and leaves no template action unexecuted.
func Render(plugin, src string, d Data) ([]byte, error) {
	if !semver.MatchString(d.Version) {
		return nil, fmt.Errorf("%s: version %q is not v-prefixed semver", plugin, d.Version)
	}
	t, err := template.New(plugin).Option("missingkey=error").Parse(src)
	if err != nil {
		return nil, fmt.Errorf("krew/%s.yaml: %w", plugin, err)
	}
	var out bytes.Buffer
	if err := t.Execute(&out, d); err != nil {
		return nil, fmt.Errorf("krew/%s.yaml: %w", plugin, err)
	}
	return out.Bytes(), nil
}
