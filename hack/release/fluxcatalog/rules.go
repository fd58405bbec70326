// Package fluxcatalog holds what the Flux plugin catalog (github.com/fluxcd/plugins) requires
// of a plugin's releases and manifests, as that repository's CI and update automation apply
// it: the names of the archives and of the checksums file (names.go), the rules of its schemas
// and consistency check (this file), and how its update workflow turns a release into a
// manifest version (UpdateWorkflow). fluxgen refuses output that breaks them; the tests and
// test/e2e check a build against them.
package fluxcatalog

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/fluxcd/flux2/v2/pkg/plugin"
)

// The Flux plugin catalog (github.com/fluxcd/plugins) checks every pull request: each
// plugins/<name>.yaml and catalog.yaml against its JSON Schema (schemas/plugin-cli-v1beta1.json,
// schemas/plugincatalog-cli-v1beta1.json), a catalog entry for every manifest and a manifest
// for every entry, and no plugin named like a built-in flux command
// (.github/workflows/validate-catalog.yaml). CheckManifest and CheckCatalog apply the same
// rules.
var (
	catalogName     = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	catalogVersion  = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-.+)?$`)
	catalogChecksum = regexp.MustCompile(`^sha256:[a-f0-9]{64}$`)
	catalogOS       = map[string]bool{"darwin": true, "linux": true, "windows": true}
	catalogArch     = map[string]bool{"amd64": true, "arm64": true}
)

// reservedNames are the built-in flux commands a plugin must not be named after, as the
// catalog's CI lists them.
var reservedNames = strings.Fields(`bootstrap build catalog check completion create debug delete
	diff envsubst events export get help install list logs migrate plugin pull push reconcile
	resume stats suspend tag trace tree uninstall version`)

// CheckManifest returns every way m breaks the catalog's Plugin schema or naming rule.
func CheckManifest(m *plugin.Manifest) []error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(m.Name+": "+format, args...)) }
	if m.APIVersion != plugin.APIVersion || m.Kind != plugin.PluginKind {
		fail("apiVersion %q kind %q", m.APIVersion, m.Kind)
	}
	for _, f := range [][2]string{{"name", m.Name}, {"bin", m.Bin}} {
		if !catalogName.MatchString(f[1]) {
			fail("%s %q does not match %s", f[0], f[1], catalogName)
		}
	}
	for _, r := range reservedNames {
		if m.Name == r {
			fail("named like the built-in `flux %s`", r)
		}
	}
	if m.Description == "" {
		fail("no description")
	}
	for _, u := range [][2]string{{"homepage", m.Homepage}, {"source", m.Source}} {
		if !strings.HasPrefix(u[1], "https://") {
			fail("%s %q is not an https URL", u[0], u[1])
		}
	}
	if len(m.Versions) == 0 {
		fail("no versions")
	}
	for _, v := range m.Versions {
		if !catalogVersion.MatchString(v.Version) {
			fail("version %q is not semver without a v", v.Version)
		}
		if len(v.Platforms) == 0 {
			fail("version %s has no platforms", v.Version)
		}
		for _, p := range v.Platforms {
			if !catalogOS[p.OS] || !catalogArch[p.Arch] || !catalogChecksum.MatchString(p.Checksum) {
				fail("version %s platform %s/%s checksum %q", v.Version, p.OS, p.Arch, p.Checksum)
			}
			if !strings.HasPrefix(p.URL, "https://") {
				fail("version %s %s/%s url %q is not https", v.Version, p.OS, p.Arch, p.URL)
			}
		}
	}
	return errs
}

// CheckCatalog returns every way c breaks the catalog's PluginCatalog schema or does not list
// exactly the plugins of ms.
func CheckCatalog(c plugin.Catalog, ms []*plugin.Manifest) []error {
	var errs []error
	if c.APIVersion != plugin.APIVersion || c.Kind != plugin.CatalogKind || len(c.Plugins) == 0 {
		errs = append(errs, fmt.Errorf("catalog apiVersion %q kind %q with %d plugins", c.APIVersion, c.Kind, len(c.Plugins)))
	}
	listed := map[string]bool{}
	for _, e := range c.Plugins {
		listed[e.Name] = true
		if !catalogName.MatchString(e.Name) || e.Description == "" || e.License == "" ||
			!strings.HasPrefix(e.Homepage, "https://") || !strings.HasPrefix(e.Source, "https://") {
			errs = append(errs, fmt.Errorf("catalog entry %+v", e))
		}
	}
	manifests := map[string]bool{}
	for _, m := range ms {
		manifests[m.Name] = true
		if !listed[m.Name] {
			errs = append(errs, fmt.Errorf("%s has a manifest but no catalog entry", m.Name))
		}
	}
	for name := range listed {
		if !manifests[name] {
			errs = append(errs, fmt.Errorf("catalog entry %s has no manifest", name))
		}
	}
	return errs
}
