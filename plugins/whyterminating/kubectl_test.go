package whyterminating_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The plugin as an operator runs it: built, found on PATH by the real kubectl, and invoked as
// `kubectl why-terminating` with the flags after the plugin name.
func TestThroughRealKubectl(t *testing.T) {
	needEnv(t)
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "kubectl-why_terminating"), "../../cmd/kubectl-why_terminating")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the plugin: %v\n%s", err, out)
	}
	kubectl := func(args ...string) (string, int) {
		cmd := exec.Command(env.KubectlPath, args...)
		cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"), "KUBECONFIG="+env.Kubeconfig)
		out, err := cmd.CombinedOutput()
		if exit, ok := err.(*exec.ExitError); ok {
			return string(out), exit.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return string(out), 0
	}
	if out, _ := kubectl("plugin", "list"); !strings.Contains(out, filepath.Join(dir, "kubectl-why_terminating")) {
		t.Fatalf("kubectl plugin list does not show the plugin:\n%s", out)
	}
	if out, code := kubectl("why-terminating", "--help"); code != 0 || !strings.Contains(out, "kubectl why-terminating --context=prod pvc headlamp -n headlamp") {
		t.Fatalf("--help: exit %d\n%s", code, out)
	}
	out, code := kubectl("why-terminating", "--context="+env.Context, "pvc", "headlamp", "-n", "headlamp")
	if code != 1 || !strings.Contains(out, "blocked by pods/"+seed.Pod) {
		t.Fatalf("exit %d\n%s", code, out)
	}
}
