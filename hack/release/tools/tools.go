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
	"strings"

	"github.com/kubeforensics/suite/internal/testenv"
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

// RepoRoot is the repository root, the directory whose go.mod declares this module.
func RepoRoot() (string, error) { return testenv.RepoRoot() }
