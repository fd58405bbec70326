package gitops

import (
	"testing"

	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
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
