package kbuild

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// The layer that keeps a root with a name kustomize's in-memory file system refuses under an
// alias answers every read at the real path: the written file is listed, globbed and walked
// there beside the disk's files, and the alias never shows.
func TestAliasedMemoryAnswersAtTheRealPath(t *testing.T) {
	root := filepath.Join(t.TempDir(), "owner+name")
	if err := os.MkdirAll(filepath.Join(root, "apps"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "apps", "a.yaml"), []byte("a: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fs := overlayFS(filesys.MakeFsOnDisk(), root)
	k := filepath.Join(root, "apps", "kustomization.yaml")
	if err := fs.WriteFile(k, []byte("resources: [a.yaml]\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(k); !os.IsNotExist(err) {
		t.Errorf("the generated file reached the disk: %v", err)
	}
	if data, err := fs.ReadFile(k); err != nil || string(data) != "resources: [a.yaml]\n" {
		t.Errorf("read back %q, %v", data, err)
	}
	if !fs.Exists(k) || !fs.IsDir(filepath.Join(root, "apps")) {
		t.Error("the written file or its directory is not seen")
	}
	names, err := fs.ReadDir(filepath.Join(root, "apps"))
	if err != nil || !slices.Equal(names, []string{"kustomization.yaml", "a.yaml"}) {
		t.Errorf("ReadDir %v, %v", names, err)
	}
	globbed, err := fs.Glob(filepath.Join(root, "apps", "*.yaml"))
	slices.Sort(globbed)
	if want := []string{filepath.Join(root, "apps", "a.yaml"), k}; err != nil || !slices.Equal(globbed, want) {
		t.Errorf("Glob %v, %v; want %v", globbed, err, want)
	}
	var walked []string
	if err := fs.Walk(root, func(p string, _ os.FileInfo, err error) error {
		walked = append(walked, p)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(walked, k) || !slices.Contains(walked, filepath.Join(root, "apps", "a.yaml")) {
		t.Errorf("Walk %v", walked)
	}
	for _, p := range walked {
		if _, aliased := under(memRootAlias, p); aliased {
			t.Errorf("the alias showed: %s", p)
		}
	}
}
