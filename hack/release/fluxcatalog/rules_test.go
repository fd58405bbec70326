package fluxcatalog

import (
	"strings"
	"testing"

	"github.com/fluxcd/flux2/v2/pkg/plugin"
)

func catalogOf(ms []*plugin.Manifest) plugin.Catalog {
	c := plugin.Catalog{APIVersion: plugin.APIVersion, Kind: plugin.CatalogKind}
	for _, m := range ms {
		c.Plugins = append(c.Plugins, plugin.CatalogEntry{Name: m.Name, Description: "d", Homepage: "https://h", Source: "https://s", License: "Apache-2.0"})
	}
	return c
}

// TestCatalogRules: a manifest the catalog's CI would reject is refused, for each rule.
func TestCatalogRules(t *testing.T) {
	good := func() *plugin.Manifest {
		return &plugin.Manifest{APIVersion: plugin.APIVersion, Kind: plugin.PluginKind, Name: "chain", Description: "d",
			Homepage: "https://h", Source: "https://s", Bin: "flux-chain", Versions: []plugin.Version{{Version: "0.3.1",
				Platforms: []plugin.Platform{{OS: "linux", Arch: "amd64", URL: "https://u", Checksum: "sha256:" + strings.Repeat("a", 64)}}}}}
	}
	if errs := CheckManifest(good()); len(errs) != 0 {
		t.Fatalf("a good manifest: %v", errs)
	}
	cases := []struct {
		name  string
		spoil func(m *plugin.Manifest)
	}{
		{"built-in name", func(m *plugin.Manifest) { m.Name = "trace" }},
		{"upper case bin", func(m *plugin.Manifest) { m.Bin = "Flux-chain" }},
		{"bin with .exe", func(m *plugin.Manifest) { m.Bin = "flux-chain.exe" }},
		{"http homepage", func(m *plugin.Manifest) { m.Homepage = "http://h" }},
		{"no description", func(m *plugin.Manifest) { m.Description = "" }},
		{"v-prefixed version", func(m *plugin.Manifest) { m.Versions[0].Version = "v0.3.1" }},
		{"unknown arch", func(m *plugin.Manifest) { m.Versions[0].Platforms[0].Arch = "ppc64le" }},
		{"upper case checksum", func(m *plugin.Manifest) {
			m.Versions[0].Platforms[0].Checksum = "sha256:" + strings.Repeat("A", 64)
		}},
		{"http url", func(m *plugin.Manifest) { m.Versions[0].Platforms[0].URL = "http://u" }},
		{"no platforms", func(m *plugin.Manifest) { m.Versions[0].Platforms = nil }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := good()
			tc.spoil(m)
			if errs := CheckManifest(m); len(errs) == 0 {
				t.Fatalf("accepted %+v", m)
			}
		})
	}
	ms := []*plugin.Manifest{good()}
	if errs := CheckCatalog(catalogOf(ms), ms); len(errs) != 0 {
		t.Fatalf("a good catalog: %v", errs)
	}
	if errs := CheckCatalog(catalogOf(ms), append(ms, &plugin.Manifest{Name: "extra"})); len(errs) == 0 {
		t.Fatal("accepted a manifest without a catalog entry")
	}
}
