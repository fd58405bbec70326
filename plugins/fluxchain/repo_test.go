package fluxchain_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/internal/testsupport/golden"
	"github.com/kubeforensics/suite/plugins/fluxchain"
)

// copyRepo writes the fixture repository name into a temporary git repository, so the
// fixture is committed as plain files and every test builds a fresh working tree: "clean" is
// testdata/repo/base; any other name is base with testdata/repo/overlays/<name> copied over it.
func copyRepo(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	srcs := []string{filepath.Join("testdata", "repo", "base")}
	if name != "clean" {
		srcs = append(srcs, filepath.Join("testdata", "repo", "overlays", name))
	}
	for _, src := range srcs {
		if err := copyTree(src, dir); err != nil {
			t.Fatal(err)
		}
	}
	return gittest.In(t, dir, nil).Dir
}

// copyTree copies the files under src into dst, overwriting those that exist.
func copyTree(src, dst string) error {
	if _, err := os.Stat(src); err != nil {
		return err
	}
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o644)
	})
}

// runRepo drives flux-chain --repo through NewCmdFluxChain; no cluster is involved.
func runRepo(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := fluxchain.NewCmdFluxChain(genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut})
	code = cli.Run(context.Background(), cmd, args, &errOut)
	return out.String(), errOut.String(), code
}

func TestRepoOutputs(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "")
	dir := copyRepo(t, "seeded")
	// The report names the commit checked out; the golden holds HEAD as COMMIT.
	rev, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	head := strings.TrimSpace(string(rev))
	for _, format := range []string{"text", "json", "yaml", "dot", "mermaid"} {
		t.Run(format, func(t *testing.T) {
			out, _, code := runRepo(t, "--repo", dir, "-o", format)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			goldens.Assert(t, "repo-seeded."+format, out, golden.Literal(dir, "REPO"), golden.Literal(head, "COMMIT"))
		})
	}
}

func TestRepoExitCodes(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "")
	seeded, clean, remote := copyRepo(t, "seeded"), copyRepo(t, "clean"), copyRepo(t, "remote")
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"clean", []string{"--repo", clean}, 0},
		{"clean, explicit path", []string{"--repo", clean, "--path", "clusters/prod"}, 0},
		{"seeded", []string{"--repo", seeded}, 1},
		{"seeded, only errors fail", []string{"--repo", seeded, "--fail-on", "error"}, 1},
		{"remote tier not built, warning below fail-on", []string{"--repo", remote}, 2},
		{"remote tier, warnings fail", []string{"--repo", remote, "--fail-on", "warning"}, 1},
		{"unknown severity", []string{"--repo", clean, "--fail-on", "fatal"}, 3},
		{"missing path", []string{"--repo", clean, "--path", "clusters/nope"}, 3},
		{"not a repository", []string{"--repo", t.TempDir()}, 3},
		{"NAME with --repo", []string{"--repo", clean, "apps"}, 3},
		{"--path without --repo", []string{"--path", "clusters/prod", "--kubeconfig", "/nonexistent"}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runRepo(t, tt.args...)
			if code != tt.want {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.want, out, errOut)
			}
		})
	}
}

func TestRepoGitHub(t *testing.T) {
	dir := copyRepo(t, "seeded")
	summary := filepath.Join(t.TempDir(), "summary.md")
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	out, _, code := runRepo(t, "--repo", dir)
	if code != 1 {
		t.Errorf("exit %d", code)
	}
	if !strings.Contains(out, "::notice file=infra/platform/issuer.yaml,line=2,title=flux-chain crd-order::") {
		t.Errorf("no crd-order annotation in:\n%s", out)
	}
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	goldens.Assert(t, "repo-seeded.summary.md", string(md), golden.Literal(dir, "REPO"))
}
