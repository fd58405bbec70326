// Package plugins_test checks the suite as kubectl sees it: every executable under cmd/ is
// built, found on PATH by the real kubectl the project builds, and answers --help under its
// kubectl name.
package plugins_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/testenv"
)

func TestKubectlFindsEveryPlugin(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugins and uses the real kubectl")
	}
	binDir, err := testenv.BinDir()
	if err != nil {
		t.Fatal(err)
	}
	mains, err := filepath.Glob("../../cmd/kubectl-*")
	if err != nil || len(mains) == 0 {
		t.Fatalf("no plugin mains under cmd/: %v", err)
	}
	dir := t.TempDir()
	args := append([]string{"build", "-o", dir + string(os.PathSeparator)}, mains...)
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	kubectl := func(args ...string) (string, error) {
		cmd := exec.Command(filepath.Join(binDir, "kubectl"), args...)
		cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"), "KUBECONFIG="+filepath.Join(dir, "none"))
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	list, err := kubectl("plugin", "list")
	if err != nil {
		t.Fatalf("kubectl plugin list: %v\n%s", err, list)
	}
	for _, m := range mains {
		exe := filepath.Base(m)
		if !strings.Contains(list, filepath.Join(dir, exe)) {
			t.Errorf("kubectl plugin list does not show %s:\n%s", exe, list)
		}
		name := strings.ReplaceAll(strings.TrimPrefix(exe, "kubectl-"), "_", "-")
		t.Run(name, func(t *testing.T) {
			help, err := kubectl(name, "--help")
			if err != nil {
				t.Fatalf("kubectl %s --help: %v\n%s", name, err, help)
			}
			for _, want := range []string{"kubectl " + name, "--context", "--output"} {
				if !strings.Contains(help, want) {
					t.Errorf("kubectl %s --help lacks %q:\n%s", name, want, help)
				}
			}
		})
	}
}
