package gitops

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// symlinkRepo is pairFixture with the symlinks public repositories keep: at the top, an
// agent's instructions linked to another file and a skills directory linked into the tree
// (bjw-s-labs/home-ops at e183e64292 links CLAUDE.md and .claude/skills), and one tier, tuned,
// whose kustomization lists a resource that is a link to a shared file.
func symlinkRepo(t *testing.T) (*gittest.Repo, *gitrev.Repo, string) {
	t.Helper()
	g, repo, _ := pairRepo(t)
	tuned := "kubernetes/apps/default/tuned/app/"
	g.Write(map[string]string{
		"AGENTS.md":                           "# agents\n",
		"kubernetes/shared/linked-cm.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: linked\ndata:\n  mode: one\n",
		"kubernetes/shared/other-cm.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: linked\ndata:\n  mode: other\n",
		tuned + "kustomization.yaml":          "resources:\n- deployment.yaml\n- linked.yaml\ncomponents:\n- ../../../../components/nested\npatches:\n- path: patch.yaml\n- path: smp.yaml\n",
		"kubernetes/shared/unused/readme.txt": "nothing\n",
	})
	link(t, g.Dir, "AGENTS.md", "CLAUDE.md")
	link(t, g.Dir, "../kubernetes/shared", ".claude/skills")
	link(t, g.Dir, "../../../../shared/linked-cm.yaml", tuned+"linked.yaml")
	return g, repo, g.Commit("symlinks", nil)
}

func link(t *testing.T, dir, target, name string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(p)
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

// TestLoadPairWithSymlinks checks that symlinks no build reads leave the gate incremental,
// that a tier whose build reads through a link is built at both revisions (a change to the
// link's target changes no path the tier names), and that each side, with and without a
// build cache, equals the full load object by object.
func TestLoadPairWithSymlinks(t *testing.T) {
	ctx := context.Background()
	g, repo, baseCommit := symlinkRepo(t)
	opts := LoadOptions{Entry: "clusters/main", NoFiles: true}
	baseDir := snapshot(t, repo, baseCommit).Dir
	fullBase, err := Load(ctx, baseDir, opts)
	if err != nil {
		t.Fatal(err)
	}
	cache, err := OpenBuildCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		edit  func()
		built []string // tiers the candidate builds
	}{
		{"one image bump beside the links", func() {
			g.Write(map[string]string{"kubernetes/apps/default/web/app/helmrelease.yaml": helmRelease("web", "1.1.0")})
		}, []string{"cluster-apps", "tuned", "web"}},
		{"the link's target changes", func() {
			g.Write(map[string]string{"kubernetes/shared/linked-cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: linked\ndata:\n  mode: two\n"})
		}, []string{"cluster-apps", "tuned"}},
		{"the link points elsewhere", func() {
			link(t, g.Dir, "../../../../shared/other-cm.yaml", "kubernetes/apps/default/tuned/app/linked.yaml")
		}, []string{"cluster-apps", "tuned"}},
		{"a top-level link changes", func() {
			link(t, g.Dir, "../kubernetes/shared/unused", ".claude/skills")
		}, []string{"cluster-apps", "tuned"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g.Git("checkout", "--quiet", "-B", "links", baseCommit)
			c.edit()
			cand := g.Commit(c.name, nil)
			candDir, changes, fullCand := loadCandidate(t, repo, baseCommit, cand, opts)
			for pass, cached := range []*BuildCache{nil, cache, cache} {
				o := opts
				o.Cache = cached
				pb, pc := loadPair(t, baseDir, candDir, o, changes)
				if pc.FullBuild != "" {
					t.Fatalf("pass %d: everything was built: %s", pass, pc.FullBuild)
				}
				var built []string
				for _, id := range pc.IDs() {
					if !pc.Tiers[id].Unchanged {
						built = append(built, pc.Tiers[id].Kustomization.Name)
					}
				}
				if d := cmp.Diff(c.built, built); d != "" {
					t.Errorf("pass %d: tiers built at the candidate (-want +got):\n%s", pass, d)
				}
				checkFilled(t, fmt.Sprintf("pass %d", pass), pb, pc, fullBase, fullCand)
			}
		})
	}
}
