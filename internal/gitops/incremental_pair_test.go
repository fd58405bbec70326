package gitops

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// pairCase is one change on top of pairFixture and the tiers each side must build (not
// checked when base is nil: every case checks that a tier the base built beyond those the
// walk needs is one the candidate built or removed).
type pairCase struct {
	name       string
	files      map[string]string
	base, cand []string
	// all: nothing may be left unbuilt.
	all bool
}

// walkTiers are the tiers of pairFixture the base builds whatever changes: those that
// declare Flux objects or a substitution source, and remote, whose recorded reads decide it.
func walkTiers() []string { return []string{"cluster-apps", "cluster-vars", "flux-system", "remote"} }

func pairCases() []pairCase {
	tuned := "kubernetes/apps/default/tuned/app/"
	walk := walkTiers()
	with := func(more ...string) []string { return append(append([]string(nil), walk...), more...) }
	var out []pairCase
	for _, c := range incrCases() {
		pc := pairCase{name: c.name, files: c.files}
		switch c.name {
		case "nothing changed":
			pc.base, pc.cand = walk, []string{}
		case "one image bump":
			pc.base, pc.cand = with("web"), []string{"cluster-apps", "web"}
		case "shared component every tier uses":
			pc.base, pc.cand = with("db", "jelly", "plain", "web"), []string{"db", "jelly", "plain", "remote", "web"}
		}
		out = append(out, pc)
	}
	out = append(out,
		pairCase{name: "patch file only", files: map[string]string{tuned + "patch.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: tuned\nspec:\n  replicas: 3\n"},
			base: with("tuned"), cand: []string{"cluster-apps", "tuned"}},
		pairCase{name: "strategic-merge patch only", files: map[string]string{tuned + "smp.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: tuned\n  labels:\n    tier: db\n"},
			base: with("tuned"), cand: []string{"cluster-apps", "tuned"}},
		pairCase{name: "generator env file only", files: map[string]string{"kubernetes/apps/default/gen/app/settings.env": "MODE=slow\n"},
			base: with("gen"), cand: []string{"cluster-apps", "gen"}},
		pairCase{name: "generator file outside the tier", files: map[string]string{"kubernetes/shared/gen.conf": "threads=8\n"},
			base: with("gen"), cand: []string{"gen"}},
		pairCase{name: "component of a component", files: map[string]string{"kubernetes/components/inner/extra.yaml": "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: ${APP}-more\n"},
			base: with("tuned"), cand: []string{"tuned"}},
		pairCase{name: "a file nothing reads", files: map[string]string{"kubernetes/components/inner/README.md": "notes\n"},
			base: walk, cand: []string{}},
		pairCase{name: "a .sourceignore added", files: map[string]string{"kubernetes/.sourceignore": "*.md\n"}, all: true},
	)
	return out
}

// pairRepo commits pairFixture to a new repository and opens it; base is that commit.
func pairRepo(t *testing.T) (g *gittest.Repo, repo *gitrev.Repo, base string) {
	t.Helper()
	g = gittest.New(t, pairFixture())
	repo, err := gitrev.OpenRepo(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	return g, repo, g.Git("rev-parse", "HEAD")
}

// commitCase commits files on branch, reset to base, and returns the commit: base itself when
// there are no files.
func commitCase(g *gittest.Repo, branch, base, name string, files map[string]string) string {
	g.Git("checkout", "--quiet", "-B", branch, base)
	if len(files) == 0 {
		return base
	}
	return g.Commit(name, files)
}

// loadCandidate extracts cand and returns its directory, the changes since base and its full
// load.
func loadCandidate(t *testing.T, repo *gitrev.Repo, base, cand string, opts LoadOptions) (string, *gitrev.Changes, *Tree) {
	t.Helper()
	dir := snapshot(t, repo, cand).Dir
	changes, err := repo.Changes(t.Context(), base, cand)
	if err != nil {
		t.Fatal(err)
	}
	full, err := Load(context.Background(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return dir, changes, full
}

// loadPair is LoadPair, failing the test when either side fails.
func loadPair(t *testing.T, baseDir, candDir string, opts LoadOptions, changes *gitrev.Changes) (base, cand *Tree) {
	t.Helper()
	base, cand, errB, errC := LoadPair(context.Background(), baseDir, candDir, opts, changes)
	if errB != nil || errC != nil {
		t.Fatal(errB, errC)
	}
	return base, cand
}

// checkFilled builds what LoadPair left unbuilt (FillSkipped) and compares each side with its
// full load, object by object.
func checkFilled(t *testing.T, where string, pb, pc, fullBase, fullCand *Tree) {
	t.Helper()
	FillSkipped(context.Background(), pb, pc)
	for side, pair := range map[string][2]*Tree{"base": {fullBase, pb}, "candidate": {fullCand, pc}} {
		if d := cmp.Diff(treeView(pair[0]), treeView(pair[1])); d != "" {
			t.Errorf("%s: the %s after FillSkipped differs from the full load (-full +pair):\n%s", where, side, d)
		}
	}
}

// TestLoadPairEqualsLoad loads each change of pairCases with LoadPair and in full, and checks
// object by object that every tier LoadPair built equals the full build, that every tier it
// left unbuilt builds to the same objects at both revisions (which is what makes leaving it
// out sound), and that after FillSkipped both trees equal the full ones.
func TestLoadPairEqualsLoad(t *testing.T) {
	ctx := context.Background()
	g, repo, baseCommit := pairRepo(t)
	opts := LoadOptions{Entry: "clusters/main", NoFiles: true}
	baseDir := snapshot(t, repo, baseCommit).Dir
	fullBase, err := Load(ctx, baseDir, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range pairCases() {
		t.Run(c.name, func(t *testing.T) {
			cand := commitCase(g, "pair", baseCommit, c.name, c.files)
			candDir, changes, fullCand := loadCandidate(t, repo, baseCommit, cand, opts)
			pb, pc := loadPair(t, baseDir, candDir, opts, changes)
			checkPairSide(t, "base", pb, fullBase, fullCand)
			checkPairSide(t, "candidate", pc, fullCand, fullBase)
			if c.base != nil {
				checkBuilt(t, pb, pc, c.base, c.cand)
			}
			for _, id := range pb.IDs() {
				if c.all && pb.Tiers[id].NotBuilt() {
					t.Errorf("%s was left unbuilt though the source-controller ignore rules changed", id)
				}
			}
			for _, id := range pb.IDs() {
				ct := pc.Tiers[id]
				if walkNeeds := slices.Contains(walkTiers(), pb.Tiers[id].Kustomization.Name); !c.all && !walkNeeds && !pb.Tiers[id].NotBuilt() && ct != nil && ct.Unchanged {
					t.Errorf("the base built %s, which the walk does not need and the candidate did not build", id)
				}
			}
			checkFilled(t, c.name, pb, pc, fullBase, fullCand)
		})
	}
}

// checkPairSide compares each tier of got with full, and each tier got left unbuilt between
// full and the other side's full load.
func checkPairSide(t *testing.T, side string, got, full, other *Tree) {
	t.Helper()
	gv, fv, ov := treeView(got), treeView(full), treeView(other)
	if d := cmp.Diff(slices.Sorted(maps.Keys(fv)), slices.Sorted(maps.Keys(gv))); d != "" {
		t.Errorf("%s: tiers differ (-full +pair):\n%s", side, d)
	}
	for id, v := range gv {
		tier := got.Tiers[id]
		if tier == nil || !tier.NotBuilt() {
			if d := cmp.Diff(fv[id], v); d != "" {
				t.Errorf("%s: tier %s differs from the full load (-full +pair):\n%s", side, id, d)
			}
			continue
		}
		if len(tier.Objects) > 0 || tier.Err != nil {
			t.Errorf("%s: tier %s is not built but has output", side, id)
		}
		if d := cmp.Diff(fv[id], ov[id]); d != "" {
			t.Errorf("%s: tier %s was left unbuilt but its full builds differ between the revisions:\n%s", side, id, d)
		}
	}
}

// checkBuilt checks which tiers each side built.
func checkBuilt(t *testing.T, base, cand *Tree, wantBase, wantCand []string) {
	t.Helper()
	var gotBase, gotCand []string
	for _, id := range base.IDs() {
		if !base.Tiers[id].NotBuilt() {
			gotBase = append(gotBase, base.Tiers[id].Kustomization.Name)
		}
	}
	for _, id := range cand.IDs() {
		if ct := cand.Tiers[id]; !ct.Unchanged {
			gotCand = append(gotCand, ct.Kustomization.Name)
		}
	}
	slices.Sort(gotBase)
	slices.Sort(gotCand)
	wb, wc := slices.Sorted(slices.Values(wantBase)), slices.Sorted(slices.Values(wantCand))
	if len(wc) == 0 {
		wc = nil
	}
	if d := cmp.Diff(wb, gotBase); d != "" {
		t.Errorf("tiers built at the base (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wc, gotCand); d != "" {
		t.Errorf("tiers built at the candidate (-want +got):\n%s", d)
	}
}

// TestLoadPairLateSubstitutionSource covers a tier left unbuilt that declares a ConfigMap
// which only a Kustomization met deeper in the walk reads through substituteFrom: the walk
// could not know when it skipped it, so both revisions are loaded again without skipping,
// and the result still equals the full load.
func TestLoadPairLateSubstitutionSource(t *testing.T) {
	ctx := context.Background()
	files := pairFixture()
	files["kubernetes/apps/default/kustomization.yaml"] = "resources:\n- namespace.yaml\n- ./web/ks.yaml\n- ./db/ks.yaml\n- ./plain/ks.yaml\n- ./tuned/ks.yaml\n- ./gen/ks.yaml\n- ./parent/ks.yaml\n"
	files["kubernetes/apps/default/parent/ks.yaml"] = appKS("parent", "default", "parent", nil, "")
	files["kubernetes/apps/default/parent/app/kustomization.yaml"] = "resources:\n- child.yaml\n"
	files["kubernetes/apps/default/parent/app/child.yaml"] = `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: child
  namespace: default
spec:
  interval: 1h
  path: ./kubernetes/apps/default/parent/child
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
    namespace: flux-system
  postBuild:
    substituteFrom:
    - kind: ConfigMap
      name: gen-env
`
	files["kubernetes/apps/default/parent/child/cm.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: child\ndata:\n  mode: ${MODE}\n"
	g := gittest.New(t, files)
	repo, err := gitrev.OpenRepo(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	base := g.Git("rev-parse", "HEAD")
	cand := g.Commit("bump", map[string]string{"kubernetes/apps/default/web/app/helmrelease.yaml": helmRelease("web", "1.1.0")})
	changes, err := repo.Changes(t.Context(), base, cand)
	if err != nil {
		t.Fatal(err)
	}
	opts := LoadOptions{Entry: "clusters/main", NoFiles: true}
	baseDir, candDir := snapshot(t, repo, base).Dir, snapshot(t, repo, cand).Dir
	pb, pc, errB, errC := LoadPair(ctx, baseDir, candDir, opts, changes)
	if errB != nil || errC != nil {
		t.Fatal(errB, errC)
	}
	for side, pair := range map[string][2]string{"base": {baseDir, ""}, "candidate": {candDir, ""}} {
		full, err := Load(ctx, pair[0], opts)
		if err != nil {
			t.Fatal(err)
		}
		got := pb
		if side == "candidate" {
			got = pc
		}
		if d := cmp.Diff(treeView(full), treeView(got)); d != "" {
			t.Errorf("%s differs from the full load (-full +pair):\n%s", side, d)
		}
	}
	if gen := pb.Tiers["flux-system/gen"]; gen == nil || gen.NotBuilt() {
		t.Error("the base left gen unbuilt, whose ConfigMap child reads")
	}
	if child := pc.Tiers["default/child"]; child == nil || len(child.Undefined) > 0 {
		t.Errorf("child at the candidate: %+v, want MODE substituted from gen-env", child)
	}
}
