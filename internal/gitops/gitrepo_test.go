package gitops

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/incident"
)

// testRepo is a real git repository in a test's temp dir, driven with the git CLI.
type testRepo struct {
	t   *testing.T
	dir string
}

// newTestRepo creates a repository on branch main holding files, committed once.
func newTestRepo(t *testing.T, files map[string]string) *testRepo {
	t.Helper()
	r := &testRepo{t: t, dir: t.TempDir()}
	r.git("init", "--quiet", "--initial-branch=main")
	if files != nil {
		r.write(files)
		r.commit("initial")
	}
	return r
}

// write creates or replaces files; an empty content deletes the file.
func (r *testRepo) write(files map[string]string) {
	r.t.Helper()
	if err := incident.WriteFiles(r.dir, files); err != nil {
		r.t.Fatal(err)
	}
}

// commit stages everything and commits it, returning the commit id.
func (r *testRepo) commit(msg string) string {
	r.t.Helper()
	r.git("add", "--all")
	r.git("commit", "--quiet", "--allow-empty", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

// git runs git in the repository with a fixed identity and no user or system config.
func (r *testRepo) git(args ...string) string {
	r.t.Helper()
	return runGit(r.t, r.dir, args...)
}

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	base := []string{"-C", dir, "-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"}
	cmd := exec.Command("git", append(base, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}
