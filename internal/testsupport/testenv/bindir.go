package testenv

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// modulePath is the module whose root holds hack/controlplane/build.sh.
const modulePath = "github.com/kubeforensics/suite"

// BinDir returns the directory holding etcd, kube-apiserver, kube-controller-manager and
// kubectl: $KF_CONTROLPLANE_BIN if set, otherwise the directory printed by
// hack/controlplane/build.sh, which builds the binaries on first use (several minutes) and
// reuses its cache afterwards. The script's progress goes to os.Stderr.
func BinDir() (string, error) {
	if dir := os.Getenv("KF_CONTROLPLANE_BIN"); dir != "" {
		return dir, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", fmt.Errorf("find repository root for build.sh: %w", err)
	}
	script := filepath.Join(root, "hack", "controlplane", "build.sh")
	var out bytes.Buffer
	cmd := exec.Command("bash", script)
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("run %s: %w", script, err)
	}
	dir := strings.TrimSpace(out.String())
	if dir == "" {
		return "", fmt.Errorf("run %s: printed no directory", script)
	}
	return dir, nil
}

// RepoRoot finds the directory whose go.mod declares this module, walking up from the
// working directory first and from this source file's directory second.
func RepoRoot() (string, error) {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		starts = append(starts, filepath.Dir(file))
	}
	for _, dir := range starts {
		for {
			if isModuleRoot(dir) {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", errors.New("no go.mod declaring module " + modulePath + " above the working directory")
}

// isModuleRoot reports whether dir/go.mod declares exactly modulePath.
func isModuleRoot(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`) == modulePath
		}
	}
	return false
}
