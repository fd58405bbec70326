package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fluxcd/flux2/v2/pkg/plugin"
	"github.com/google/go-cmp/cmp"

	"github.com/kubeforensics/suite/hack/release/dist"
	"github.com/kubeforensics/suite/hack/release/fluxcatalog"
)

// TestCatalogUpdateWorkflowAgrees: what the catalog's automation would write for a release
// is, platform for platform, what fluxgen wrote; so once the plugins are in the catalog, its
// updates install the same archives, and find the binary without an extractPath.
func TestCatalogUpdateWorkflowAgrees(t *testing.T) {
	d := fakeDist(t, "0.3.1")
	out := generate(t, d, "")
	for _, p := range []string{"why-terminating", "chain", "safe-retire"} {
		t.Run(p, func(t *testing.T) {
			m := readManifest(t, filepath.Join(out, p+".yaml"))
			got, err := fluxcatalog.UpdateWorkflow(m.Bin, "0.3.1", "https://example.invalid/dl/", func(name string) ([]byte, error) {
				return os.ReadFile(filepath.Join(d, name))
			})
			if err != nil {
				t.Fatal(err)
			}
			byPlatform := func(v plugin.Version) map[string]plugin.Platform {
				ps := map[string]plugin.Platform{}
				for _, pl := range v.Platforms {
					ps[pl.OS+"/"+pl.Arch] = pl
				}
				return ps
			}
			if diff := cmp.Diff(byPlatform(m.Versions[0]), byPlatform(got)); diff != "" {
				t.Errorf("fluxgen vs the catalog's update workflow (-fluxgen +workflow):\n%s", diff)
			}
		})
	}
}

// TestPluginChecksumsFiles: each per-plugin checksums file lists exactly that plugin's
// archives, with the sums of checksums.txt.
func TestPluginChecksumsFiles(t *testing.T) {
	d := fakeDist(t, "0.3.1")
	generate(t, d, "")
	all, err := dist.ReadChecksums(filepath.Join(d, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	listed := 0
	for _, bin := range []string{"flux-why-terminating", "flux-chain", "flux-safe-retire"} {
		sums, err := dist.ReadChecksums(filepath.Join(d, fluxcatalog.ChecksumsName(bin, "0.3.1")))
		if err != nil {
			t.Fatal(err)
		}
		if len(sums) != len(platforms) {
			t.Errorf("%s lists %d archives, want %d", bin, len(sums), len(platforms))
		}
		for file, sum := range sums {
			if !strings.HasPrefix(file, bin+"_0.3.1_") || all[file] != sum {
				t.Errorf("%s lists %s %s; checksums.txt has %q", bin, sum, file, all[file])
			}
		}
		listed += len(sums)
	}
	if listed != len(all) {
		t.Errorf("the plugin checksums files list %d archives, checksums.txt %d", listed, len(all))
	}
}
