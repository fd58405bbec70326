package gitops

import (
	"slices"
	"testing"

	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// generatedDirFixture is a layout seen on giantswarm/gitops-template: a Flux Kustomization's
// path holds no kustomization.yaml, so the controller's generator lists it, and the only
// thing in it is a subdirectory whose kustomization names a base far outside the path.
func generatedDirFixture() map[string]string {
	return map[string]string{
		"clusters/main/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- apps.yaml\n",
		"clusters/main/apps.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\n" +
			"spec:\n  interval: 10m\n  path: ./clusters/main/apps\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n",
		"clusters/main/apps/cluster/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- ../../../../bases/app\n",
		"bases/app/kustomization.yaml":                  "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- cm.yaml\n- pvc.yaml\n",
		"bases/app/cm.yaml":                             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: default\n",
		"bases/app/pvc.yaml": "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: app-data\n  namespace: default\n" +
			"spec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 1Gi\n",
	}
}

// TestStaticReadsFollowGeneratedDirectories checks that a directory the generator lists
// leads the static reader into its subdirectories' kustomizations and what they name, so a
// change to the base they share is a change of the tier: before, the reader stopped at the
// listed files, the incremental gate left the tier unbuilt as unchanged, and a claim the base
// dropped was not seen (--full saw it).
func TestStaticReadsFollowGeneratedDirectories(t *testing.T) {
	g := gittest.New(t, generatedDirFixture())
	s := newStaticReader(g.Dir, kbuild.ScanRoot(t.Context(), g.Dir).Links)
	in := s.tier(kbuild.Kustomization{Path: "clusters/main/apps"})
	if in.mustBuild != "" {
		t.Fatalf("the static reader gives up: %s", in.mustBuild)
	}
	for _, p := range []string{"clusters/main/apps/cluster/kustomization.yaml", "bases/app/kustomization.yaml", "bases/app/pvc.yaml"} {
		if !covers(in.paths, p, false) && !covers(in.files, p, false) {
			t.Errorf("the tier's static inputs miss %s: paths %q, files %q", p, in.paths, in.files)
		}
	}

	repo, err := gitrev.OpenRepo(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	base := g.Git("rev-parse", "HEAD")
	g.Git("rm", "--quiet", "bases/app/pvc.yaml")
	cand := g.Commit("the base drops its claim", map[string]string{
		"bases/app/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- cm.yaml\n",
	})
	opts := LoadOptions{Entry: "clusters/main", NoFiles: true}
	candDir, changes, _ := loadCandidate(t, repo, base, cand, opts)
	_, pc := loadPair(t, snapshot(t, repo, base).Dir, candDir, opts, changes)
	tier := pc.Tiers["flux-system/apps"]
	if tier == nil {
		t.Fatalf("no tier flux-system/apps in %q", pc.IDs())
	}
	if tier.Unchanged || tier.NotBuilt() {
		t.Fatalf("flux-system/apps is taken as unchanged though the base it builds dropped a claim")
	}
	for _, o := range tier.Objects {
		if o.GetKind() == "PersistentVolumeClaim" {
			t.Errorf("the candidate still builds %s", o.GetName())
		}
	}
}

// TestStaticTierReadOnce checks that a reader computes a tier's static reads once for the same
// path and spec.components, however often the skip decision, the build cache's key, the
// late-source check and FillSkippedNaming ask (a warm gate asked four times a tier), and that
// the answer is the fresh reader's: spec fields outside the key (namePrefix) still count, and
// other components are another tier.
func TestStaticTierReadOnce(t *testing.T) {
	g := gittest.New(t, generatedDirFixture())
	links := kbuild.ScanRoot(t.Context(), g.Dir).Links
	ks := func(spec map[string]any) kbuild.Kustomization {
		spec["path"] = "./clusters/main/apps/"
		return kbuild.Kustomization{Path: "clusters/main/apps", Object: &unstructured.Unstructured{Object: map[string]any{"spec": spec}}}
	}
	s := newStaticReader(g.Dir, links)
	for i := range 4 {
		if in := s.tier(ks(map[string]any{})); in.anyName || in.mustBuild != "" {
			t.Fatalf("ask %d: anyName %t, mustBuild %q", i, in.anyName, in.mustBuild)
		}
	}
	named := s.tier(ks(map[string]any{"namePrefix": "x-"}))
	if !named.anyName {
		t.Error("a namePrefix read from the memo is not counted as renaming")
	}
	fresh := newStaticReader(g.Dir, links).tier(ks(map[string]any{}))
	if got := s.tier(ks(map[string]any{})); !slices.Equal(got.paths, fresh.paths) || !slices.Equal(got.files, fresh.files) {
		t.Errorf("the memo answers paths %q, files %q; a fresh reader %q, %q", got.paths, got.files, fresh.paths, fresh.files)
	}
	if s.tiersRead != 1 {
		t.Errorf("%d tier reads for one path asked 6 times, want 1", s.tiersRead)
	}
	s.tier(ks(map[string]any{"components": []any{"../../../bases/app"}}))
	if s.tiersRead != 2 {
		t.Errorf("%d tier reads after other components, want 2", s.tiersRead)
	}
}

// TestStaticTierFromPrev checks that the candidate's reader takes the base's reading of a tier
// none of whose reads the change touches, and reads again one whose reads it touches (the
// shared base's kustomization changed), finding what the candidate's files say.
func TestStaticTierFromPrev(t *testing.T) {
	g := gittest.New(t, generatedDirFixture())
	repo, err := gitrev.OpenRepo(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	base := g.Git("rev-parse", "HEAD")
	cand := g.Commit("the base names another file", map[string]string{
		"bases/app/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- cm.yaml\n- pvc.yaml\n- extra.yaml\n",
		"bases/app/extra.yaml":         "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: default\n",
	})
	baseDir, candDir := snapshot(t, repo, base).Dir, snapshot(t, repo, cand).Dir
	changes := &gitrev.Changes{Paths: []string{"bases/app/extra.yaml", "bases/app/kustomization.yaml"}}
	pair := func() (*staticReader, *staticReader) {
		b := newStaticReader(baseDir, kbuild.ScanRoot(t.Context(), baseDir).Links)
		c := newStaticReader(candDir, kbuild.ScanRoot(t.Context(), candDir).Links)
		c.prev, c.changes = b, changes
		return b, c
	}
	b, c := pair()
	untouched := kbuild.Kustomization{Path: "clusters/main"}
	want := b.tier(untouched)
	if got := c.tier(untouched); c.tiersRead != 0 || !slices.Equal(got.paths, want.paths) || !slices.Equal(got.files, want.files) {
		t.Errorf("untouched tier: %d reads by the candidate's reader (want 0), paths %q files %q, the base's %q %q", c.tiersRead, got.paths, got.files, want.paths, want.files)
	}
	b, c = pair()
	touched := kbuild.Kustomization{Path: "clusters/main/apps"}
	b.tier(touched)
	got := c.tier(touched)
	if c.tiersRead != 1 || !slices.Contains(got.files, "bases/app/extra.yaml") {
		t.Errorf("touched tier: %d reads by the candidate's reader (want 1), files %q (want bases/app/extra.yaml among them)", c.tiersRead, got.files)
	}
}
