package main

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// goreleaserConfig is the part of .goreleaser.yaml the release tooling relies on.
type goreleaserConfig struct {
	Builds []struct {
		ID     string   `json:"id"`
		GOOS   []string `json:"goos"`
		GOARCH []string `json:"goarch"`
		Ignore []struct {
			GOOS   string `json:"goos"`
			GOARCH string `json:"goarch"`
		} `json:"ignore"`
	} `json:"builds"`
	Archives []struct {
		ID    string   `json:"id"`
		IDs   []string `json:"ids"`
		Files []string `json:"files"`
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
		ids = append(ids, a.ID)
		if diff := cmp.Diff([]string{a.ID, a.ID + "-completion"}, a.IDs); diff != "" {
			t.Errorf("archive %s builds (-want +got):\n%s", a.ID, diff)
		}
		if diff := cmp.Diff([]string{"LICENSE", "README.md"}, a.Files); diff != "" {
			t.Errorf("archive %s files (-want +got):\n%s", a.ID, diff)
		}
	}
	sort.Strings(ids)
	names := plugins(t)
	sort.Strings(names)
	if diff := cmp.Diff(names, ids); diff != "" {
		t.Errorf("archive ids vs plugins under cmd/ (-plugins +archives):\n%s", diff)
	}
}
