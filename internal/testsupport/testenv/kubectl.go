package testenv

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// Kubectl runs the kubectl built with the control plane against this Env (--kubeconfig and
// --context set, discovery cache in WorkDir) and returns its combined stdout and stderr.
// The error, if any, names the command and includes the output.
func (e *Env) Kubectl(ctx context.Context, args ...string) ([]byte, error) {
	full := append([]string{
		"--kubeconfig=" + e.Kubeconfig,
		"--context=" + e.Context,
		"--cache-dir=" + filepath.Join(e.WorkDir, "kubectl-cache"),
	}, args...)
	cmd := exec.CommandContext(ctx, e.KubectlPath, full...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("kubectl %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return out, nil
}
