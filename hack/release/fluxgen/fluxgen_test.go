package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/fluxcd/flux2/v2/pkg/plugin"
	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/kubeforensics/suite/hack/release/dist"
	"github.com/kubeforensics/suite/hack/release/fluxcatalog"
	"github.com/kubeforensics/suite/hack/release/tools"
	"github.com/kubeforensics/suite/internal/cli"
)

// platforms are the release platforms (.goreleaser.yaml; krewgen tests that list).
var platforms = [][2]string{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}, {"windows", "amd64"}}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := tools.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// fakeDist writes a goreleaser-like dist: for every plugin and platform a real archive (tar.gz,
// zip on windows) named and filled as .goreleaser.yaml has it, artifacts.json, metadata.json
// and checksums.txt.
func fakeDist(t *testing.T, version string) string {
	t.Helper()
	dist := t.TempDir()
	var arts []map[string]any
	var sums strings.Builder
	for _, p := range cli.Plugins {
		for _, pl := range platforms {
			bin := p.FluxBinary()
			if pl[0] == "windows" {
				bin += ".exe"
			}
			file := fluxcatalog.ArchiveName(p.FluxBinary(), version, pl[0], pl[1])
			files := map[string]string{bin: "binary " + file, "LICENSE": "license"}
			data := tarGz(t, files)
			if pl[0] == "windows" {
				data = zipOf(t, files)
			}
			if err := os.WriteFile(filepath.Join(dist, file), data, 0o644); err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(data)
			fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), file)
			arts = append(arts, map[string]any{"name": file, "path": "dist/" + file, "goos": pl[0], "goarch": pl[1], "type": "Archive", "extra": map[string]any{"ID": p.Kubectl}})
		}
	}
	writeFile(t, filepath.Join(dist, "checksums.txt"), []byte(sums.String()))
	writeJSON(t, filepath.Join(dist, "artifacts.json"), arts)
	writeJSON(t, filepath.Join(dist, "metadata.json"), map[string]string{"tag": "v" + version, "version": version})
	return dist
}

func tarGz(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, n := range sortedKeys(files) {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o755, Size: int64(len(files[n])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(files[n])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range sortedKeys(files) {
		w, err := zw.Create(n)
		if err == nil {
			_, err = w.Write([]byte(files[n]))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, b)
}

func generate(t *testing.T, dist, previous string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "flux")
	o := options{dist: dist, out: out, baseURL: "https://example.invalid/dl/", previous: previous, krew: filepath.Join(repoRoot(t), "krew")}
	if _, err := run(o); err != nil {
		t.Fatal(err)
	}
	return out
}

// readManifest reads a generated manifest back into the Flux CLI's type, refusing unknown
// fields, and checks that marshalling it again gives the same file.
func readManifest(t *testing.T, file string) plugin.Manifest {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var m plugin.Manifest
	if err := yaml.UnmarshalStrict(raw, &m); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	again, err := yaml.Marshal(m)
	if err != nil || !bytes.Equal(again, raw) {
		t.Fatalf("%s does not round-trip (%v):\n%s", file, err, cmp.Diff(string(raw), string(again)))
	}
	return m
}

// TestManifestsRoundTripAndMatchArchives is what `flux plugin install` relies on: the schema,
// a flux-prefixed bin, and for every platform a URL naming an archive whose sha256 is the
// checksum and which holds the file extractPath names.
func TestManifestsRoundTripAndMatchArchives(t *testing.T) {
	dist := fakeDist(t, "0.3.1")
	out := generate(t, dist, "")
	for _, p := range cli.Plugins {
		t.Run(p.Flux, func(t *testing.T) {
			m := readManifest(t, filepath.Join(out, p.Flux+".yaml"))
			if m.APIVersion != plugin.APIVersion || m.Kind != plugin.PluginKind || m.Name != p.Flux || m.Bin != "flux-"+p.Flux {
				t.Errorf("header %s %s name %q bin %q", m.APIVersion, m.Kind, m.Name, m.Bin)
			}
			if m.Description == "" || strings.Contains(m.Description, "{{") || m.Homepage == "" || m.Source != Homepage {
				t.Errorf("description %q homepage %q source %q", m.Description, m.Homepage, m.Source)
			}
			if len(m.Versions) != 1 || m.Versions[0].Version != "0.3.1" || len(m.Versions[0].Platforms) != len(platforms) {
				t.Fatalf("versions %+v: want 0.3.1 with %d platforms", m.Versions, len(platforms))
			}
			for _, pl := range m.Versions[0].Platforms {
				checkPlatform(t, dist, p, pl)
			}
		})
	}
}

func checkPlatform(t *testing.T, dir string, p cli.Plugin, pl plugin.Platform) {
	t.Helper()
	file := filepath.Join(dir, path.Base(pl.URL))
	if want := "https://example.invalid/dl/" + fluxcatalog.ArchiveName(p.FluxBinary(), "0.3.1", pl.OS, pl.Arch); pl.URL != want {
		t.Errorf("%s/%s: url %s, want %s", pl.OS, pl.Arch, pl.URL, want)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(raw); pl.Checksum != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Errorf("%s: checksum %s is not the archive's", path.Base(pl.URL), pl.Checksum)
	}
	// Without extractPath, flux looks for bin (with .exe on windows) by name in the archive.
	want := p.FluxBinary()
	if pl.OS == "windows" {
		want += ".exe"
	}
	entries, err := dist.Entries(file)
	if err != nil {
		t.Fatal(err)
	}
	if pl.ExtractPath != "" || !contains(entries, want) {
		t.Errorf("%s: extractPath %q, archive holds %q; want no extractPath and %q", path.Base(pl.URL), pl.ExtractPath, entries, want)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestCatalogListsEveryPlugin(t *testing.T) {
	out := generate(t, fakeDist(t, "0.3.1"), "")
	raw, err := os.ReadFile(filepath.Join(out, "catalog.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c plugin.Catalog
	if err := yaml.UnmarshalStrict(raw, &c); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range c.Plugins {
		names = append(names, e.Name)
		if e.License != License || e.Description == "" {
			t.Errorf("%s: license %q description %q", e.Name, e.License, e.Description)
		}
	}
	if c.APIVersion != plugin.APIVersion || c.Kind != plugin.CatalogKind || strings.Join(names, " ") != "why-terminating chain safe-retire" {
		t.Fatalf("catalog %s %s %v", c.APIVersion, c.Kind, names)
	}
}

func TestPreviousVersionsAreKept(t *testing.T) {
	old := generate(t, fakeDist(t, "0.3.0"), "")
	twice := generate(t, fakeDist(t, "0.3.1"), old)
	again := generate(t, fakeDist(t, "0.3.1"), twice)
	m := readManifest(t, filepath.Join(again, "chain.yaml"))
	var got []string
	for _, v := range m.Versions {
		got = append(got, v.Version)
	}
	if strings.Join(got, " ") != "0.3.1 0.3.0" {
		t.Fatalf("versions %v, want 0.3.1 then 0.3.0, once each", got)
	}
}

func TestRefuses(t *testing.T) {
	cases := []struct {
		name  string
		spoil func(t *testing.T, dist string)
		want  string
	}{
		{"archive changed after checksums.txt", func(t *testing.T, d string) {
			file := filepath.Join(d, fluxcatalog.ArchiveName("flux-chain", "0.3.1", "linux", "amd64"))
			writeFile(t, file, tarGz(t, map[string]string{"flux-chain": "tampered", "LICENSE": "license"}))
		}, "checksums.txt lists"},
		{"plugin without archives", func(t *testing.T, dist string) {
			writeJSON(t, filepath.Join(dist, "artifacts.json"), []any{})
		}, `no archive with id "why-terminating"`},
		{"version not semver", func(t *testing.T, dist string) {
			writeJSON(t, filepath.Join(dist, "metadata.json"), map[string]string{"tag": "v1.2", "version": "1.2"})
		}, "not semver"},
		{"version with build metadata", func(t *testing.T, dist string) {
			writeJSON(t, filepath.Join(dist, "metadata.json"), map[string]string{"tag": "v0.3.1+abc", "version": "0.3.1+abc"})
		}, "not semver"},
		{"binary under its kubectl name only", func(t *testing.T, d string) {
			file := filepath.Join(d, fluxcatalog.ArchiveName("flux-chain", "0.3.1", "linux", "arm64"))
			data := tarGz(t, map[string]string{"kubectl-flux_chain": "binary", "LICENSE": "license"})
			writeFile(t, file, data)
			relist(t, d)
		}, "not flux-chain at its root"},
		{"archive named for krew", func(t *testing.T, d string) {
			old := filepath.Join(d, fluxcatalog.ArchiveName("flux-chain", "0.3.1", "linux", "arm64"))
			renamed := filepath.Join(d, "flux-chain_v0.3.1_linux_arm64.tar.gz")
			if err := os.Rename(old, renamed); err != nil {
				t.Fatal(err)
			}
			raw, _ := os.ReadFile(filepath.Join(d, "artifacts.json"))
			writeFile(t, filepath.Join(d, "artifacts.json"), bytes.ReplaceAll(raw, []byte(path.Base(old)), []byte(path.Base(renamed))))
			relist(t, d)
		}, "expects flux-chain_0.3.1_linux_arm64.tar.gz"},
		{"checksums.txt with a binary marker", func(t *testing.T, d string) {
			raw, _ := os.ReadFile(filepath.Join(d, "checksums.txt"))
			writeFile(t, filepath.Join(d, "checksums.txt"), bytes.Replace(raw, []byte("  "), []byte(" *"), 1))
		}, "malformed line"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dist := fakeDist(t, "0.3.1")
			tc.spoil(t, dist)
			_, err := run(options{dist: dist, out: t.TempDir(), krew: filepath.Join(repoRoot(t), "krew")})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// relist rewrites dist's checksums.txt from the archives now in it.
func relist(t *testing.T, d string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(d, "*_*_*_*.*"))
	sums := map[string]string{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(raw)
		sums[filepath.Base(f)] = hex.EncodeToString(sum[:])
	}
	if err := dist.WriteChecksums(filepath.Join(d, "checksums.txt"), sums); err != nil {
		t.Fatal(err)
	}
}

// TestEveryPluginIsInTheCatalog keeps cli.Plugins, cmd/ and .goreleaser.yaml in step: every
// cmd/kubectl-* executable is a plugin, and its goreleaser archive holds the binary the
// manifests' bin names.
func TestEveryPluginIsInTheCatalog(t *testing.T) {
	root := repoRoot(t)
	dirs, _ := filepath.Glob(filepath.Join(root, "cmd", "kubectl-*"))
	var fromCmd, fromCLI []string
	for _, d := range dirs {
		fromCmd = append(fromCmd, filepath.Base(d))
	}
	for _, p := range cli.Plugins {
		fromCLI = append(fromCLI, p.KubectlBinary())
	}
	sort.Strings(fromCLI)
	if diff := cmp.Diff(fromCmd, fromCLI); diff != "" {
		t.Errorf("cmd/kubectl-* vs cli.Plugins (-cmd +cli):\n%s", diff)
	}
	raw, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Builds   []struct{ ID, Binary string }
		Archives []struct {
			ID  string
			IDs []string `json:"ids"`
		}
	}
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	binary := map[string]string{}
	for _, b := range cfg.Builds {
		binary[b.ID] = b.Binary
	}
	for _, p := range cli.Plugins {
		var bins []string
		for _, a := range cfg.Archives {
			if a.ID == p.Kubectl {
				for _, id := range a.IDs {
					bins = append(bins, binary[id])
				}
			}
		}
		if !contains(bins, p.FluxBinary()) {
			t.Errorf("archive %q holds %q, not %s", p.Kubectl, bins, p.FluxBinary())
		}
	}
}
