package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// root is the repository root, two directories above this package.
const root = "../../.."

func TestReferenceUpToDate(t *testing.T) {
	files, err := render(pages())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "docs", "reference")
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("docs/reference/%s: %v; run `make docs`", name, err)
			continue
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("docs/reference/%s is stale; run `make docs` (-generated +committed):\n%s", name, diff)
		}
	}
	committed, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	for _, f := range committed {
		if _, ok := files[filepath.Base(f)]; !ok {
			t.Errorf("docs/reference/%s is no longer generated; run `make docs`", filepath.Base(f))
		}
	}
}

// TestEveryPluginHasAPage fails when a plugin executable lands under cmd/ without a page.
func TestEveryPluginHasAPage(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(root, "cmd", "kubectl-*"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, p := range pages() {
		listed[p.Binary] = true
	}
	for _, d := range dirs {
		if b := filepath.Base(d); !listed[b] {
			t.Errorf("cmd/%s has no reference page: add it to pages() in hack/release/docgen/main.go and run `make docs`", b)
		}
	}
	if len(dirs) == 0 {
		t.Fatal("no cmd/kubectl-* directories found; is the test running from its package directory?")
	}
}

func TestPageIsIndependentOfHome(t *testing.T) {
	files, err := render(pages())
	if err != nil {
		t.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	for name, b := range files {
		if home != "" && home != "/" && strings.Contains(string(b), home) {
			t.Errorf("%s mentions the home directory %s", name, home)
		}
	}
}
