package gitrev

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

func TestChanges(t *testing.T) {
	g := gittest.New(t, map[string]string{
		"apps/a/deploy.yaml": "a\n",
		"apps/b/pvc.yaml":    "b\n",
		" lead.yaml":         "space\n",
		".gitignore":         "ignored/\n",
	})
	repo, err := OpenRepo(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	base := g.Git("rev-parse", "HEAD")
	g.Git("mv", "apps/b/pvc.yaml", "apps/b/claim.yaml")
	cand := g.Commit("rename and edit", map[string]string{" lead.yaml": "edited\n"})

	got, err := repo.Changes(base, cand)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{" lead.yaml", "apps/b/claim.yaml", "apps/b/pvc.yaml"}
	if d := cmp.Diff(want, got.Paths); d != "" || got.Uncertain != "" {
		t.Errorf("commit to commit (-want +got):\n%s\nuncertain: %q", d, got.Uncertain)
	}

	g.Write(map[string]string{"apps/a/deploy.yaml": "worktree\n", "apps/new/x.yaml": "x\n", "ignored/cache.yaml": "c\n"})
	got, err = repo.Changes(cand, "")
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"apps/a/deploy.yaml", "apps/new", "ignored"}
	if d := cmp.Diff(want, got.Paths); d != "" {
		t.Errorf("working tree: untracked and ignored files are in the snapshot too (-want +got):\n%s", d)
	}

	if _, err := repo.Changes("--output=/tmp/x", cand); err == nil {
		t.Error("an option as a revision was accepted")
	}
}

func TestChangesUncertain(t *testing.T) {
	g := gittest.New(t, map[string]string{"apps/a.yaml": "a\n"})
	repo, err := OpenRepo(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	base := g.Git("rev-parse", "HEAD")
	cand := g.Commit("attributes", map[string]string{"apps/.gitattributes": "a.yaml filter=lfs\n"})
	// Both commits are read from git's objects as they are: their diff is certain.
	got, err := repo.Changes(base, cand)
	if err != nil || got.Uncertain != "" {
		t.Errorf("commit to commit: Uncertain = %q (%v), want none", got.Uncertain, err)
	}
	// The working tree is what the filters made of the commit.
	got, err = repo.Changes(cand, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got.Uncertain, "apps/.gitattributes") {
		t.Errorf("Uncertain = %q, want it to name apps/.gitattributes", got.Uncertain)
	}
}

func TestChangesTouches(t *testing.T) {
	c := &Changes{Paths: []string{"apps/a-b/x.yaml", "apps/b", "components/c/kustomization.yaml"}}
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"apps/a", false}, // "apps/a-b" sorts between apps/a and apps/a/...
		{"apps/a-b", true},
		{"apps/a-b/x.yaml", true},
		{"apps/b/deep/file.yaml", true}, // below a changed (untracked) directory
		{"apps/bb", false},
		{"components", true},
		{"components/c", true},
		{"components/d", false},
		{".", true},
	} {
		t.Run(tc.path, func(t *testing.T) {
			if got := c.Touches(tc.path); got != tc.want {
				t.Errorf("Touches(%q) = %v, want %v", tc.path, got, tc.want)
			}
		})
	}
	if (&Changes{}).Touches(".") {
		t.Error("no change touches the root")
	}
}

func TestChangesUnder(t *testing.T) {
	c := &Changes{Paths: []string{"README.md", "k8s/apps/a.yaml", "k8s2/x.yaml"}}
	if d := cmp.Diff([]string{"apps/a.yaml"}, c.Under("./k8s/").Paths); d != "" {
		t.Errorf("Under(k8s) (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"."}, (&Changes{Paths: []string{"k8s"}}).Under("k8s/apps").Paths); d != "" {
		t.Errorf("a changed directory above the source root (-want +got):\n%s", d)
	}
}
