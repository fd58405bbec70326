// Package e2e tests the suite as a user gets it: a goreleaser snapshot of every plugin for
// every platform, krew manifests rendered for it, each plugin installed by a real krew
// (v0.4.3) into a temporary KREW_ROOT and run through the real kubectl that the project
// builds, and argument completion through `kubectl __complete` with the completion helpers
// on PATH against a real kube-apiserver. The same archives, through the snapshot's Flux
// plugin catalog, are installed with the real Flux CLI's `flux plugin install` and run as
// `flux chain` and so on (flux_test.go). release_test.go checks the release files themselves:
// checksums with sha256sum, archive contents, the Flux plugin catalog's rules and automation,
// pinned Flux installs and the MCP server's archive. The snapshot is served over https like a
// release page (and over http for krew's validator).
//
// TestMain builds (or reuses from the cache outside the repository) goreleaser, krew,
// validate-krew-manifest, the Flux CLI and the control plane. The first goreleaser build and the snapshot's
// cross-compilation take minutes; later runs reuse Go's build cache.
//
// It runs in `make test` (and so in CI). With cold caches the tools and the snapshot take
// tens of minutes on 2 cores; with warm ones about three. Run it alone with
//
//	go test -count=1 -timeout 60m ./test/e2e
package e2e

import (
	"context"
	"encoding/pem"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kubeforensics/suite/hack/release/tools"
	"github.com/kubeforensics/suite/internal/testsupport/testenv"
)

// Plugin is one released plugin: its krew name, the name kubectl runs it by (krew's link),
// its completion helper and the executable in its archives, which names the archives too.
type Plugin struct{ Name, Binary, Completion, FluxBinary string }

// plugins are the three plugins every release ships.
var plugins = []Plugin{
	{"why-terminating", "kubectl-why_terminating", "kubectl_complete-why_terminating", "flux-why-terminating"},
	{"flux-chain", "kubectl-flux_chain", "kubectl_complete-flux_chain", "flux-chain"},
	{"safe-retire", "kubectl-safe_retire", "kubectl_complete-safe_retire", "flux-safe-retire"},
}

// suite is what TestMain sets up once for every test.
type suite struct {
	// dist is the snapshot's goreleaser output, manifests under dist/krew.
	dist string
	// version is the snapshot's v-prefixed version, as the manifests and --version say it.
	version string
	// pathDir holds kubectl and kubectl-krew; tests put it first on PATH.
	pathDir  string
	validate string
	env      *testenv.Env
	// flux is the real Flux CLI (hack/release/flux-cli.sh); catalog is the URL of the
	// snapshot's Flux plugin catalog (dist/flux/), the FLUXCD_PLUGIN_CATALOG of flux_test.go.
	flux, catalog string
	// baseURL is the https server of dist, as a release page; certFile holds its certificate,
	// the SSL_CERT_FILE of every command, so krew and flux download from it as from GitHub.
	baseURL, certFile string
	client            *http.Client
	// krewURL serves dist over plain http, where the krew manifests say the archives are:
	// validate-krew-manifest runs krew with an environment of its own (KREW_ROOT, KREW_OS,
	// KREW_ARCH, PATH), so no SSL_CERT_FILE reaches it.
	krewURL string
}

var s suite

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		fmt.Println("skipping the krew end-to-end tests in -short mode: they build a snapshot release")
		os.Exit(0)
	}
	code, err := setUp(m)
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e set-up: %v\n", err)
		os.Exit(1)
	}
	os.Exit(code)
}

// setUp prepares the tools, the snapshot and the control plane, runs the tests and tears
// everything down.
func setUp(m *testing.M) (int, error) {
	tmp, err := os.MkdirTemp("", "kf-e2e-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	if err := s.tools(filepath.Join(tmp, "path")); err != nil {
		return 0, err
	}
	s.dist = filepath.Join(tmp, "dist")
	// https: the Flux plugin catalog accepts no other URL, and fluxgen refuses one.
	srv := httptest.NewTLSServer(http.FileServer(http.Dir(s.dist)))
	defer srv.Close()
	s.baseURL, s.client, s.certFile = srv.URL, srv.Client(), filepath.Join(tmp, "server.pem")
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(s.certFile, cert, 0o644); err != nil {
		return 0, err
	}
	krewSrv := httptest.NewServer(http.FileServer(http.Dir(s.dist)))
	defer krewSrv.Close()
	s.krewURL = krewSrv.URL
	if err := snapshot(s.dist, srv.URL, krewSrv.URL); err != nil {
		return 0, err
	}
	s.catalog = srv.URL + "/flux/"
	if s.version, err = manifestVersion(filepath.Join(s.dist, "krew", "why-terminating.yaml")); err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if s.env, err = testenv.Start(ctx, testenv.Options{ContextName: "e2e"}); err != nil {
		return 0, err
	}
	defer s.env.Stop()
	if err := seed(ctx, s.env); err != nil {
		return 0, err
	}
	return m.Run(), nil
}

// tools fills pathDir with the project's kubectl and krew as kubectl-krew, and finds
// validate-krew-manifest.
func (st *suite) tools(dir string) error {
	st.pathDir = dir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	bin, err := testenv.BinDir()
	if err != nil {
		return err
	}
	krew, err := tools.Path(tools.Krew)
	if err != nil {
		return err
	}
	if st.validate, err = tools.Path(tools.ValidateKrewManifest); err != nil {
		return err
	}
	if st.flux, err = tools.FluxCLI(); err != nil {
		return err
	}
	if err := os.Symlink(filepath.Join(bin, "kubectl"), filepath.Join(dir, "kubectl")); err != nil {
		return err
	}
	return os.Symlink(krew, filepath.Join(dir, "kubectl-krew"))
}

// snapshot runs hack/release/snapshot.sh into dist with a Flux catalog that downloads from
// baseURL and krew manifests that download from krewURL.
func snapshot(dist, baseURL, krewURL string) error {
	root, err := tools.RepoRoot()
	if err != nil {
		return err
	}
	cmd := exec.Command("bash", filepath.Join(root, "hack", "release", "snapshot.sh"), dist)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "KF_RELEASE_BASE_URL="+baseURL, "KF_KREW_BASE_URL="+krewURL)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("snapshot release: %w", err)
	}
	return nil
}

// manifestVersion reads spec.version from a rendered manifest.
func manifestVersion(path string) (string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var m struct {
		Spec struct {
			Version string `json:"version"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(raw, &m); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return m.Spec.Version, nil
}

// command builds a command that runs with extraPath (then pathDir) first on PATH, krew's
// upgrade check off, KUBECONFIG pointing at the test control plane and the snapshot server's
// certificate as the trusted roots.
func command(krewRoot string, extraPath []string, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	path := strings.Join(append(extraPath, s.pathDir, os.Getenv("PATH")), string(os.PathListSeparator))
	cmd.Env = append(os.Environ(), "PATH="+path, "KREW_NO_UPGRADE_CHECK=1", "KUBECONFIG="+s.env.Kubeconfig, "SSL_CERT_FILE="+s.certFile)
	if krewRoot != "" {
		cmd.Env = append(cmd.Env, "KREW_ROOT="+krewRoot)
	}
	return cmd
}

// run runs cmd and fails the test on error, returning stdout; stderr is in the failure.
func run(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(cmd.Args, " "), err, out, stderr.String())
	}
	return string(out)
}
