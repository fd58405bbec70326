package kbuild

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// A revision read from git's objects is confined as the controller confines a checkout: a
// symlink within it is followed, one that leads out (above the root, or absolute) is refused,
// as on disk; and a path named outside the root is refused. Nothing is written.
func TestBuildFromGitObjectsConfined(t *testing.T) {
	outside := t.TempDir()
	secret := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stolen\n"
	if err := os.WriteFile(filepath.Join(outside, "cm.yaml"), []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	r := gittest.New(t, map[string]string{
		"base/cm.yaml":                     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: base\n",
		"base/kustomization.yaml":          "resources: [cm.yaml]\n",
		"apps/inside/kustomization.yaml":   "resources: [../../linked]\n",
		"apps/absolute/kustomization.yaml": "resources: [../../abs/cm.yaml]\n",
		"apps/above/kustomization.yaml":    "resources: [../../up/cm.yaml]\n",
		"apps/named/kustomization.yaml":    "resources: [../../../" + filepath.Base(outside) + "/cm.yaml]\n",
	})
	for link, target := range map[string]string{"linked": "base", "abs": outside, "up": "../" + filepath.Base(outside)} {
		if err := os.Symlink(target, filepath.Join(r.Dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	r.Commit("links", nil)
	repo, err := gitrev.OpenRepo(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := repo.OpenTree(t.Context(), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	snap, err := repo.Snapshot(t.Context(), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	scan := ScanFiles(t.Context(), tree)
	if scan.Links.None() {
		t.Fatal("the tree's symlinks were not found")
	}
	for path, builds := range map[string]bool{"apps/inside": true, "apps/absolute": false, "apps/above": false, "apps/named": false} {
		fromGit := BuildPath(context.Background(), tree.Root(), path, Options{Root: scan})
		onDisk := BuildPath(context.Background(), snap.Dir, path, Options{})
		if (fromGit.Err == nil) != builds || (onDisk.Err == nil) != builds {
			t.Errorf("%s: from git objects %v, on disk %v; want built: %v", path, fromGit.Err, onDisk.Err, builds)
		}
		for _, o := range fromGit.Objects {
			if o.GetName() == "stolen" {
				t.Errorf("%s read a file outside the revision", path)
			}
		}
		if builds && strings.Join(ids(fromGit.Objects), ",") != strings.Join(ids(onDisk.Objects), ",") {
			t.Errorf("%s: from git objects %v, on disk %v", path, ids(fromGit.Objects), ids(onDisk.Objects))
		}
	}
	if left, _ := os.ReadDir(tree.Root()); len(left) > 0 {
		t.Errorf("building from git's objects wrote %s under the revision's root", left[0].Name())
	}
}
