package e2e

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/fluxcd/flux2/v2/pkg/plugin"
	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/kubeforensics/suite/hack/release/dist"
	"github.com/kubeforensics/suite/hack/release/fluxcatalog"
	"github.com/kubeforensics/suite/internal/cli"
)

// releasePlatforms are the platforms every archive is built for (.goreleaser.yaml).
var releasePlatforms = [][2]string{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}, {"windows", "amd64"}}

// archives are the archive files of the snapshot, by name.
func archives(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, pattern := range []string{"*.tar.gz", "*.zip"} {
		m, err := filepath.Glob(filepath.Join(s.dist, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			names = append(names, filepath.Base(f))
		}
	}
	sort.Strings(names)
	return names
}

// TestChecksumsVerifyWithSha256sum checks every checksums file of the snapshot with GNU
// sha256sum, as a user does by hand (docs/install.md): `sha256sum --strict -c` accepts each
// line and each archive's content; checksums.txt lists every archive and each plugin's
// <bin>_<version>_checksums.txt exactly that plugin's.
func TestChecksumsVerifyWithSha256sum(t *testing.T) {
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Fatalf("sha256sum (GNU coreutils) is needed to check checksums.txt as users do: %v", err)
	}
	version := strings.TrimPrefix(s.version, "v")
	files := map[string][]string{dist.ChecksumsFile: archives(t)}
	for _, p := range plugins {
		var own []string
		for _, pl := range releasePlatforms {
			own = append(own, fluxcatalog.ArchiveName(p.FluxBinary, version, pl[0], pl[1]))
		}
		sort.Strings(own)
		files[fluxcatalog.ChecksumsName(p.FluxBinary, version)] = own
	}
	for name, want := range files {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command("sha256sum", "--strict", "-c", name)
			cmd.Dir = s.dist
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("sha256sum --strict -c %s: %v\n%s", name, err, out)
			}
			sums, err := dist.ReadChecksums(filepath.Join(s.dist, name))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for f := range sums {
				got = append(got, f)
			}
			sort.Strings(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s lists (-want +got):\n%s", name, diff)
			}
		})
	}
	// A changed archive fails the check: sha256sum really reads the files.
	tampered := t.TempDir()
	name := fluxcatalog.ChecksumsName(plugins[0].FluxBinary, version)
	for _, f := range append(files[name], name) {
		raw, err := os.ReadFile(filepath.Join(s.dist, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == files[name][0] {
			raw = append(raw, 0)
		}
		if err := os.WriteFile(filepath.Join(tampered, f), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("sha256sum", "--strict", "-c", name)
	cmd.Dir = tampered
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "FAILED") {
		t.Errorf("sha256sum -c passed a changed archive: %v\n%s", err, out)
	}
}

// TestArchiveContents opens every archive: a plugin's holds its executable under the Flux
// name, its completion helper, LICENSE and README.md at the root, and the render worker
// kubeforensics-helmrender when the plugin renders charts (flux-chain, safe-retire); the MCP
// server's holds kubeforensics-mcp and the render worker. Nothing else, and every platform is
// there.
func TestArchiveContents(t *testing.T) {
	version := strings.TrimPrefix(s.version, "v")
	renders := map[string]bool{"flux-chain": true, "safe-retire": true}
	want := map[string][]string{}
	for _, pl := range releasePlatforms {
		exe := ""
		if pl[0] == "windows" {
			exe = ".exe"
		}
		for _, p := range plugins {
			files := []string{"LICENSE", "README.md", p.FluxBinary + exe, p.Completion + exe}
			if renders[p.Name] {
				files = append(files, "kubeforensics-helmrender"+exe)
			}
			sort.Strings(files)
			want[fluxcatalog.ArchiveName(p.FluxBinary, version, pl[0], pl[1])] = files
		}
		want[fluxcatalog.ArchiveName("kubeforensics-mcp", version, pl[0], pl[1])] = []string{"LICENSE", "README.md", "kubeforensics-helmrender" + exe, "kubeforensics-mcp" + exe}
	}
	var names []string
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	if diff := cmp.Diff(names, archives(t)); diff != "" {
		t.Fatalf("archives (-want +snapshot):\n%s", diff)
	}
	for _, n := range names {
		entries, err := dist.Entries(filepath.Join(s.dist, n))
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(entries)
		if diff := cmp.Diff(want[n], entries); diff != "" {
			t.Errorf("%s (-want +got):\n%s", n, diff)
		}
	}
}

// TestMCPServerArchive unpacks this platform's MCP server archive and runs the server's
// --version: the release ships a working server of the snapshot's version.
func TestMCPServerArchive(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(s.dist, fluxcatalog.ArchiveName("kubeforensics-mcp", strings.TrimPrefix(s.version, "v"), runtime.GOOS, runtime.GOARCH))
	if out, err := exec.Command("tar", "-xzf", file, "-C", dir).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	out := run(t, command("", nil, filepath.Join(dir, "kubeforensics-mcp"), "--version"))
	if !strings.Contains(out, s.version) {
		t.Errorf("kubeforensics-mcp --version = %q, want %s in it", out, s.version)
	}
}

// get downloads name from the snapshot's release page.
func get(t *testing.T, name string) ([]byte, error) {
	t.Helper()
	resp, err := s.client.Get(s.baseURL + "/" + name)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &os.PathError{Op: "GET", Path: name, Err: os.ErrNotExist}
	}
	return io.ReadAll(resp.Body)
}

// TestFluxCatalogAutomation: the snapshot's catalog passes the Flux plugin catalog's CI rules,
// and what that catalog's update workflow derives from the release page (the per-plugin
// checksums file and the archive names) is the version fluxgen wrote. So an update PR in
// fluxcd/plugins installs the same archives, without an extractPath.
func TestFluxCatalogAutomation(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(s.dist, "flux", "catalog.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var catalog plugin.Catalog
	if err := yaml.UnmarshalStrict(raw, &catalog); err != nil {
		t.Fatal(err)
	}
	var ms []*plugin.Manifest
	for _, p := range cli.Plugins {
		raw, err := os.ReadFile(filepath.Join(s.dist, "flux", p.Flux+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var m plugin.Manifest
		if err := yaml.UnmarshalStrict(raw, &m); err != nil {
			t.Fatal(err)
		}
		ms = append(ms, &m)
		for _, err := range fluxcatalog.CheckManifest(&m) {
			t.Error(err)
		}
		got, err := fluxcatalog.UpdateWorkflow(m.Bin, m.Versions[0].Version, s.baseURL, func(name string) ([]byte, error) { return get(t, name) })
		if err != nil {
			t.Fatal(err)
		}
		sort.Slice(m.Versions[0].Platforms, func(i, j int) bool {
			a, b := m.Versions[0].Platforms[i], m.Versions[0].Platforms[j]
			return a.OS+a.Arch < b.OS+b.Arch
		})
		if diff := cmp.Diff(m.Versions[0], got); diff != "" {
			t.Errorf("%s: fluxgen vs the catalog's update workflow (-fluxgen +workflow):\n%s", m.Name, diff)
		}
	}
	for _, err := range fluxcatalog.CheckCatalog(catalog, ms) {
		t.Error(err)
	}
}

// TestFluxPluginInstallPinned installs a plugin the ways Flux's GitHub Action `plugins:` input
// accepts besides the bare name: <name>@<version> and <name>@<digest>, the digest being the
// sha256 of this platform's archive as checksums.txt lists it.
func TestFluxPluginInstallPinned(t *testing.T) {
	version := strings.TrimPrefix(s.version, "v")
	sums, err := dist.ReadChecksums(filepath.Join(s.dist, dist.ChecksumsFile))
	if err != nil {
		t.Fatal(err)
	}
	digest := "sha256:" + sums[fluxcatalog.ArchiveName("flux-chain", version, runtime.GOOS, runtime.GOARCH)]
	for _, ref := range []string{"chain@" + version, "chain@" + digest} {
		t.Run(ref, func(t *testing.T) {
			dir := t.TempDir()
			run(t, fluxCommand(dir, "plugin", "install", ref))
			want := "flux chain version " + s.version + " ("
			if v := run(t, fluxCommand(dir, "chain", "--version")); !strings.HasPrefix(v, want) {
				t.Errorf("flux chain --version = %q, want it to start with %q", v, want)
			}
		})
	}
	out := exit(t, fluxCommand(t.TempDir(), "plugin", "install", "chain@sha256:"+strings.Repeat("0", 64)))
	if out.code == 0 {
		t.Errorf("flux installed chain at a digest no archive has:\n%s%s", out.out, out.errOut)
	}
}

// TestKrewInstallFromReleasePage installs a plugin as docs/install.md says to before it is in
// the krew index: with the manifest from the release page, where it is krew-<name>.yaml (the
// Flux catalog has <name>.yaml there), and no --archive, so krew downloads the archive for
// this platform from the page and checks its sha256. (`--manifest-url` does the same after
// cloning the krew index from GitHub, which a test may not reach.)
func TestKrewInstallFromReleasePage(t *testing.T) {
	p := plugins[0]
	raw, err := os.ReadFile(filepath.Join(s.dist, "krew", p.Name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.dist, "krew-"+p.Name+".yaml"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(s.krewURL + "/krew-" + p.Name + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET krew-%s.yaml: %v %s", p.Name, err, resp.Status)
	}
	file := filepath.Join(t.TempDir(), "krew-"+p.Name+".yaml")
	if err := os.WriteFile(file, manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	run(t, command(root, nil, filepath.Join(s.pathDir, "kubectl"), "krew", "install", "--manifest="+file))
	checkVersion(t, root, []string{filepath.Join(root, "bin")}, p)
}
