package saferetire_test

import (
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// The only directory whose Kustomizations no other Kustomization builds (krobertson/home-ops
// at ec9f5d8, where a FluxInstance syncs setup/flux/config) is the entry, and stderr says
// which and why; before, it was refused as bad input (exit 3) "so one of them is likely the
// entry", naming just that one.
func TestOnlyUnbuiltDeclarerIsTheEntry(t *testing.T) {
	r := gittest.New(t, krobertsonLater)
	r.Git("rm", "--quiet", "kubernetes/media/plex/app/namespace.yaml")
	r.Commit("plex's namespace removed", nil)
	out, errOut, code := invocation{}.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD")
	if code == 3 {
		t.Fatalf("refused as bad input\n%s\n%s", out, errOut)
	}
	contains(t, errOut, "entry: setup/flux/config (the only directory that declares Flux Kustomizations no other Kustomization's path builds")
	contains(t, out, "Kustomization flux-system/plex")
}
