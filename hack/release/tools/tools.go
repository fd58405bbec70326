// Package tools gives Go tests the release tools hack/release/tool.sh installs: krew,
// validate-krew-manifest and goreleaser, each built once with `go install` into a cache outside
// the repository (never into the suite's go.mod) and reused afterwards.
package tools

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// The pinned tool versions.
const (
	Krew                 = "sigs.k8s.io/krew/cmd/krew@v0.4.3"
	ValidateKrewManifest = "sigs.k8s.io/krew/cmd/validate-krew-manifest@v0.4.3"
	Goreleaser           = "github.com/goreleaser/goreleaser/v2@v2.15.1"
)

// Path returns the binary of spec (PKG@VERSION), installing it first if it is not cached.
// Installation progress goes to os.Stderr; the first goreleaser build takes minutes.
func Path(spec string) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	cmd := exec.Command("bash", filepath.Join(root, "hack", "release", "tool.sh"), spec)
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("installing %s: %w", spec, err)
	}
	return strings.TrimSpace(out.String()), nil
}

// RepoRoot is the repository root: the nearest directory holding hack/release/tool.sh above
// the working directory (a test's package directory), else above this source file.
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
			if _, err := os.Stat(filepath.Join(dir, "hack", "release", "tool.sh")); err == nil {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", fmt.Errorf("no hack/release/tool.sh above the working directory")
}
