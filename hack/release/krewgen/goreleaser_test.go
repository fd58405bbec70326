package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// goreleaserConfig is the part of .goreleaser.yaml the release tooling relies on.
type goreleaserConfig struct {
	Builds []struct {
		ID     string   `json:"id"`
		Main   string   `json:"main"`
		Binary string   `json:"binary"`
		GOOS   []string `json:"goos"`
		GOARCH []string `json:"goarch"`
		Ignore []struct {
			GOOS   string `json:"goos"`
			GOARCH string `json:"goarch"`
		} `json:"ignore"`
	} `json:"builds"`
	Archives []struct {
		ID              string   `json:"id"`
		IDs             []string `json:"ids"`
		Files           []string `json:"files"`
		NameTemplate    string   `json:"name_template"`
		Formats         []string `json:"formats"`
		FormatOverrides []struct {
			GOOS    string   `json:"goos"`
			Formats []string `json:"formats"`
		} `json:"format_overrides"`
	} `json:"archives"`
}

// TestGoreleaserBuildsEveryPlatform keeps .goreleaser.yaml, Platforms and krew/ in step: every
// build targets exactly Platforms, and the archive ids are exactly the krew templates.
func TestGoreleaserBuildsEveryPlatform(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg goreleaserConfig
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, p := range Platforms {
		want = append(want, p.OS+"/"+p.Arch)
	}
	sort.Strings(want)
	for _, b := range cfg.Builds {
		var got []string
		for _, goos := range b.GOOS {
			for _, arch := range b.GOARCH {
				ignored := false
				for _, i := range b.Ignore {
					ignored = ignored || (i.GOOS == goos && i.GOARCH == arch)
				}
				if !ignored {
					got = append(got, goos+"/"+arch)
				}
			}
		}
		sort.Strings(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("build %s platforms (-want +got):\n%s", b.ID, diff)
		}
	}
	var ids []string
	for _, a := range cfg.Archives {
		if diff := cmp.Diff([]string{"LICENSE", "README.md"}, a.Files); diff != "" {
			t.Errorf("archive %s files (-want +got):\n%s", a.ID, diff)
		}
		// What krew and the Flux catalog's update workflow accept: tar.gz, zip on windows.
		if len(a.Formats) != 1 || a.Formats[0] != "tar.gz" || len(a.FormatOverrides) != 1 ||
			a.FormatOverrides[0].GOOS != "windows" || strings.Join(a.FormatOverrides[0].Formats, ",") != "zip" {
			t.Errorf("archive %s formats %v %+v, want tar.gz and zip on windows", a.ID, a.Formats, a.FormatOverrides)
		}
		if a.ID == mcpArchive {
			checkArchive(t, a.ID, a.IDs, withWorker(t, cfg, "mcp"), a.NameTemplate, "kubeforensics-mcp")
			continue
		}
		ids = append(ids, a.ID)
		checkArchive(t, a.ID, a.IDs, withWorker(t, cfg, a.ID, a.ID+"-completion"), a.NameTemplate, fluxBinary(t, a.ID))
	}
	sort.Strings(ids)
	names := plugins(t)
	sort.Strings(names)
	if diff := cmp.Diff(names, ids); diff != "" {
		t.Errorf("plugin archive ids vs plugins under cmd/ (-plugins +archives):\n%s", diff)
	}
}

// mcpArchive is the archive id of the MCP server, the one archive that is not a plugin's.
const mcpArchive = "mcp"

// checkArchive wants an archive of the builds want, named <prefix>_<version>_<os>_<arch>: the
// names the Flux plugin catalog's update workflow derives from a plugin's bin.
func checkArchive(t *testing.T, id string, got, want []string, nameTemplate, prefix string) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("archive %s builds (-want +got):\n%s", id, diff)
	}
	if w := prefix + "_{{ .Version }}_{{ .Os }}_{{ .Arch }}"; nameTemplate != w {
		t.Errorf("archive %s name_template %q, want %q", id, nameTemplate, w)
	}
}
