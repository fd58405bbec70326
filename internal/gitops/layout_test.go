package gitops

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/sourceroot"
	"github.com/kubeforensics/suite/internal/testsupport/gitopsfixture"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// TestLoadHomeOpsLayout walks a repository laid out like krobertson/home-ops (see gitopsfixture.HomeOpsTop):
// no clusters/ directory, the entry setup/flux/cluster found and rooted at the top level, and
// the tier it declares, ./kubernetes, a plain directory beside a .sops.yaml, built like the
// artifact. Before, the top level was built and .github/labels.yaml failed to decode.
func TestLoadHomeOpsLayout(t *testing.T) {
	top := t.TempDir()
	files := map[string]string{
		".github/labels.yaml":        gitopsfixture.HomeOpsTop()[".github/labels.yaml"],
		"kubernetes/.sops.yaml":      gitopsfixture.HomeOpsTop()[".sops.yaml"],
		"kubernetes/media/pvc.yaml":  pvc("plex", "media"),
		"setup/flux/cluster/ks.yaml": strings.Replace(ksYAML("./kubernetes", ""), "name: test", "name: cluster-apps", 1),
	}
	if err := incident.WriteFiles(top, files); err != nil {
		t.Fatal(err)
	}
	l, err := sourceroot.Detect(top, "", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.SourceRoot != "." || l.Entry != "setup/flux/cluster" {
		t.Fatalf("layout %+v, want the top level and setup/flux/cluster", l)
	}
	tree, err := Load(context.Background(), l.Dir(top), LoadOptions{Entry: l.Entry})
	if err != nil {
		t.Fatal(err)
	}
	tier := tree.Tiers["flux-system/cluster-apps"]
	if tier == nil || tier.Err != nil {
		t.Fatalf("tier flux-system/cluster-apps: %+v", tier)
	}
	if got := ids(tier.Objects); !reflect.DeepEqual(got, []string{"media_plex__PersistentVolumeClaim"}) {
		t.Errorf("objects %v, want the PVC only", got)
	}
}
