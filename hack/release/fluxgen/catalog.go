package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/fluxcd/flux2/v2/pkg/plugin"
	"sigs.k8s.io/yaml"

	"github.com/kubeforensics/suite/hack/release/dist"
	"github.com/kubeforensics/suite/hack/release/fluxcatalog"
	"github.com/kubeforensics/suite/internal/cli"
)

// License is the SPDX identifier of the project's LICENSE, as the catalog lists it.
const License = "Apache-2.0"

// Build is what one goreleaser run produced (package dist), with the sha256 of every file
// checksums.txt lists.
type Build struct {
	*dist.Build
	checksums map[string]string
}

// ReadBuild reads the goreleaser output in dir and its checksums.txt, and refuses a version
// that is not semver.
func ReadBuild(dir string) (*Build, error) {
	b, err := dist.Read(dir)
	if err != nil {
		return nil, err
	}
	if !semver.MatchString(b.Version) {
		return nil, fmt.Errorf("version %q is not semver", b.Version)
	}
	sums, err := b.Checksums()
	return &Build{Build: b, checksums: sums}, err
}

// semver is a semantic version without the v, as Flux plugin manifests spell versions, and
// without build metadata, which the catalog's schema does not allow.
var semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?$`)

// checksum is the archive's digest in the manifest's "sha256:<hex>" form, computed from the
// file and required to match checksums.txt, which a release publishes beside the archives.
func (b *Build) checksum(path string) (string, error) {
	sum, err := dist.SHA256(path)
	if err != nil {
		return "", err
	}
	if listed, ok := b.checksums[filepath.Base(path)]; !ok || listed != sum {
		return "", fmt.Errorf("%s: sha256 %s, checksums.txt lists %q", filepath.Base(path), sum, listed)
	}
	return "sha256:" + sum, nil
}

// Manifests returns the Flux plugin manifest of every plugin in cli.Plugins, with one version:
// this build, one platform per archive, downloaded from baseURL. Each archive must hold the
// executable at its root under the manifest's bin (with .exe on windows): the catalog's update
// workflow writes no extractPath, so `flux plugin install` finds the binary by that name.
func (b *Build) Manifests(baseURL string, descriptions map[string]string) ([]*plugin.Manifest, error) {
	var ms []*plugin.Manifest
	for _, p := range cli.Plugins {
		archives := b.Archives(p.Kubectl)
		if len(archives) == 0 {
			return nil, fmt.Errorf("no archive with id %q in the goreleaser output", p.Kubectl)
		}
		v := plugin.Version{Version: b.Version}
		for _, a := range archives {
			if err := b.checkArchive(a, p.FluxBinary()); err != nil {
				return nil, err
			}
			sum, err := b.checksum(a.Path)
			if err != nil {
				return nil, err
			}
			v.Platforms = append(v.Platforms, plugin.Platform{
				OS: a.OS, Arch: a.Arch, Checksum: sum,
				URL: strings.TrimSuffix(baseURL, "/") + "/" + filepath.Base(a.Path),
			})
		}
		ms = append(ms, &plugin.Manifest{
			APIVersion:  plugin.APIVersion,
			Kind:        plugin.PluginKind,
			Name:        p.Flux,
			Description: descriptions[p.Kubectl],
			Homepage:    Homepage + "/blob/main/docs/" + p.Kubectl + ".md",
			Source:      Homepage,
			Bin:         p.FluxBinary(),
			Versions:    []plugin.Version{v},
		})
	}
	return ms, nil
}

// checkArchive refuses an archive not named as the catalog expects or without bin at its root.
func (b *Build) checkArchive(a dist.Archive, bin string) error {
	if want := fluxcatalog.ArchiveName(bin, b.Version, a.OS, a.Arch); filepath.Base(a.Path) != want {
		return fmt.Errorf("archive %s: the Flux plugin catalog expects %s", filepath.Base(a.Path), want)
	}
	if a.OS == "windows" {
		bin += ".exe"
	}
	entries, err := dist.Entries(a.Path)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e == bin {
			return nil
		}
	}
	return fmt.Errorf("archive %s holds %q, not %s at its root", filepath.Base(a.Path), entries, bin)
}

// WritePluginChecksums writes, beside the archives in the build's directory, one checksums
// file per plugin listing its archives (ChecksumsName), the sums taken from checksums.txt. It
// returns the files it wrote.
func (b *Build) WritePluginChecksums(dir string) ([]string, error) {
	var written []string
	for _, p := range cli.Plugins {
		sums := map[string]string{}
		for _, a := range b.Archives(p.Kubectl) {
			name := filepath.Base(a.Path)
			sum, ok := b.checksums[name]
			if !ok {
				return nil, fmt.Errorf("checksums.txt does not list %s", name)
			}
			sums[name] = sum
		}
		path := filepath.Join(dir, fluxcatalog.ChecksumsName(p.FluxBinary(), b.Version))
		if err := dist.WriteChecksums(path, sums); err != nil {
			return nil, err
		}
		written = append(written, path)
	}
	return written, nil
}

// Catalog is the PluginCatalog listing the manifests, which `flux plugin search` reads.
func Catalog(ms []*plugin.Manifest) plugin.Catalog {
	c := plugin.Catalog{APIVersion: plugin.APIVersion, Kind: plugin.CatalogKind}
	for _, m := range ms {
		c.Plugins = append(c.Plugins, plugin.CatalogEntry{
			Name: m.Name, Description: m.Description, Homepage: m.Homepage, Source: m.Source, License: License,
		})
	}
	return c
}

// shortDescription is the one-line description of a krew manifest template.
var shortDescription = regexp.MustCompile(`(?m)^  shortDescription: (.+)$`)

// readDescriptions takes each plugin's description from its krew template, so the two
// catalogs describe a plugin in the same words.
func readDescriptions(dir string) (map[string]string, error) {
	d := map[string]string{}
	for _, p := range cli.Plugins {
		raw, err := os.ReadFile(filepath.Join(dir, p.Kubectl+".yaml"))
		if err != nil {
			return nil, fmt.Errorf("reading the description: %w", err)
		}
		m := shortDescription.FindSubmatch(raw)
		if m == nil {
			return nil, fmt.Errorf("%s/%s.yaml has no shortDescription", dir, p.Kubectl)
		}
		d[p.Kubectl] = strings.TrimSpace(string(m[1]))
	}
	return d, nil
}

// keepPrevious appends to each manifest the versions of its earlier manifest in dir (newest
// first, as Flux expects), dropping one the new build replaces. A plugin without an earlier
// manifest starts its history here.
func keepPrevious(ms []*plugin.Manifest, dir string) error {
	for _, m := range ms {
		raw, err := os.ReadFile(filepath.Join(dir, m.Name+".yaml"))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		var old plugin.Manifest
		if err := yaml.UnmarshalStrict(raw, &old); err != nil {
			return fmt.Errorf("%s/%s.yaml: %w", dir, m.Name, err)
		}
		if old.APIVersion != plugin.APIVersion || old.Kind != plugin.PluginKind || old.Name != m.Name {
			return fmt.Errorf("%s/%s.yaml is not the %s Plugin %q", dir, m.Name, plugin.APIVersion, m.Name)
		}
		for _, v := range old.Versions {
			if v.Version != m.Versions[0].Version {
				m.Versions = append(m.Versions, v)
			}
		}
	}
	return nil
}

func writeYAML(path string, v any) error {
	b, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
