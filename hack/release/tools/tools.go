// Package tools gives Go tests the release tools hack/release/tool.sh installs: krew,
// validate-krew-manifest and goreleaser, each built once with `go install` into a cache outside
// the repository (never into the suite's go.mod) and reused afterwards; and the Flux CLI,
// which hack/release/flux-cli.sh builds into the same cache.
package tools

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kubeforensics/suite/internal/testsupport/testenv"
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
	return script("tool.sh", spec)
}

// FluxCLI returns the real Flux CLI of the flux2 version the suite's go.mod requires, built by
// hack/release/flux-cli.sh into the same cache (about two minutes the first time): cmd/flux
// embeds generated manifests, so `go install` cannot build it.
func FluxCLI() (string, error) {
	return script("flux-cli.sh")
}

// script runs one of hack/release's tool scripts and returns the path it prints.
func script(name string, args ...string) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	cmd := exec.Command("bash", append([]string{filepath.Join(root, "hack", "release", name)}, args...)...)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return strings.TrimSpace(out.String()), nil
}

// RepoRoot is the repository root, the directory whose go.mod declares this module.
func RepoRoot() (string, error) { return testenv.RepoRoot() }
