package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"

	"github.com/kubeforensics/suite/hack/release/dist"
)

// Platform is one os/arch a release ships. Platforms lists them in the order manifests
// name them; .goreleaser.yaml builds exactly these (TestGoreleaserBuildsEveryPlatform).
type Platform struct{ OS, Arch string }

// Platforms are the platforms every plugin is released for.
var Platforms = []Platform{
	{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}, {"windows", "amd64"},
}

// Build is what one goreleaser run produced (package dist).
type Build struct{ *dist.Build }

// ReadBuild reads the goreleaser output in dir; an archive belongs to the plugin named by its
// goreleaser archive id.
func ReadBuild(dir string) (*Build, error) {
	b, err := dist.Read(dir)
	if err != nil {
		return nil, err
	}
	return &Build{b}, nil
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
	d := Data{Version: "v" + b.Version, Homepage: Homepage}
	for _, p := range Platforms {
		a, ok := b.Archive(plugin, p.OS, p.Arch)
		if !ok {
			return Data{}, fmt.Errorf("no %s/%s archive with id %q in the goreleaser output", p.OS, p.Arch, plugin)
		}
		path := a.Path
		sum, err := dist.SHA256(path)
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
