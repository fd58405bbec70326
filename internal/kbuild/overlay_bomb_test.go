package kbuild

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// overlayBomb writes, under bomb/, an exponential overlay of levels levels: each level includes
// the level below twice, through two different paths, so kustomize loads the bottom
// 2^(levels-1) times. components makes each level a component listed twice (the resources
// stay four ConfigMaps, every load applies a label); otherwise each level includes two
// overlays of the level below with different name prefixes (the resources double at each
// level). Each kustomization file carries pad bytes of comment, as a bomb padded with patches
// would.
func overlayBomb(levels int, components bool, pad int) map[string]string {
	var cms strings.Builder
	for i := range 4 {
		fmt.Fprintf(&cms, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm%d\n  namespace: apps\ndata:\n  k: v\n", i)
	}
	padding := "# " + strings.Repeat("x", pad) + "\n"
	files := map[string]string{"bomb/base/cms.yaml": cms.String(), "bomb/base/kustomization.yaml": "resources:\n- cms.yaml\n"}
	component := "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
	top := fmt.Sprintf("l%d", levels-1)
	if components {
		files["bomb/l0/kustomization.yaml"] = component + "labels:\n- pairs:\n    l0: \"0\"\n" + padding
		for i := 1; i < levels; i++ {
			files[fmt.Sprintf("bomb/l%d/kustomization.yaml", i)] = component +
				fmt.Sprintf("components:\n- ../l%d\n- ./../l%d\nlabels:\n- pairs:\n    l%d: \"%d\"\n", i-1, i-1, i, i) + padding
		}
		files["bomb/kustomization.yaml"] = "resources:\n- base\ncomponents:\n- " + top + "\n"
		return files
	}
	files["bomb/l0/kustomization.yaml"] = "resources:\n- ../base\n" + padding
	for i := 1; i < levels; i++ {
		for _, side := range []string{"a", "b"} {
			files[fmt.Sprintf("bomb/l%d/%s/kustomization.yaml", i, side)] = fmt.Sprintf("namePrefix: %s-\nresources:\n- ../../l%d\n", side, i-1) + padding
		}
		files[fmt.Sprintf("bomb/l%d/kustomization.yaml", i)] = "resources:\n- a\n- ./b\n" + padding
	}
	files["bomb/kustomization.yaml"] = "resources:\n- " + top + "\n"
	return files
}

// An exponential overlay from a fork (13 levels, each including the one below twice, 340 KB
// of kustomization files) ran for minutes, bounded only by --timeout. The build must stop at a
// limit on its work, saying which, how far it got and where, having done no more than that
// limit allows. The deadline only keeps the test short should the bound be lost: the
// assertions are on the work counted.
func TestOverlayBombIsBounded(t *testing.T) {
	for _, tc := range []struct {
		name       string
		components bool
		pad        int
		limit      string
	}{
		{"components-listed-twice", true, 0, "kustomization loads"},
		{"overlays-included-twice-340KB", false, 340_000 / 40, "kustomization loads"},
		{"overlays-included-twice", false, 0, "kustomization loads"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if err := incident.WriteFiles(root, overlayBomb(13, tc.components, tc.pad)); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			res := Build(ctx, root, Kustomization{Path: "bomb"}, Options{NoFiles: true})
			w := res.Work
			t.Logf("work: %+v; %v", w, res.Err)
			if !errors.Is(res.Err, ErrBuildBound) {
				t.Fatalf("err = %v, want ErrBuildBound", res.Err)
			}
			if msg := res.Err.Error(); !strings.Contains(msg, tc.limit) || !strings.Contains(msg, "past the limit") || !strings.Contains(msg, " at bomb/") {
				t.Errorf("the error does not name the limit %q, the count and the path: %s", tc.limit, msg)
			}
			if w.Loads > MinKustomizationLoads+1 {
				t.Errorf("the build went on past its limits: %+v", w)
			}
			if len(res.Objects) != 0 {
				t.Errorf("a stopped build returned %d objects", len(res.Objects))
			}
		})
	}
}

// largeRepo is a legitimate large build: apps applications in one kustomization, each with
// three manifests and two shared components, as a monorepo that deploys everything from one
// Flux Kustomization would hold.
func largeRepo(apps int) map[string]string {
	files := map[string]string{
		"components/labels/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nlabels:\n- pairs:\n    team: platform\n",
		"components/env/kustomization.yaml":    "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonAnnotations:\n  env: prod\n",
	}
	var top strings.Builder
	top.WriteString("resources:\n")
	for i := range apps {
		name := fmt.Sprintf("app-%04d", i)
		fmt.Fprintf(&top, "- %s\n", name)
		files["apps/"+name+"/kustomization.yaml"] = "namespace: " + name + "\nresources:\n- deploy.yaml\n- svc.yaml\n- cm.yaml\ncomponents:\n- ../../components/labels\n- ../../components/env\n"
		files["apps/"+name+"/deploy.yaml"] = fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\nspec:\n  selector:\n    matchLabels:\n      app: %s\n  template:\n    metadata:\n      labels:\n        app: %s\n    spec:\n      containers:\n      - name: app\n        image: registry.example/%s:1.0.0\n", name, name, name, name)
		files["apps/"+name+"/svc.yaml"] = fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata:\n  name: %s\nspec:\n  selector:\n    app: %s\n  ports:\n  - port: 80\n", name, name)
		files["apps/"+name+"/cm.yaml"] = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  key: value\n", name)
	}
	files["apps/kustomization.yaml"] = top.String()
	return files
}

// A build far larger than a home-ops one (hundreds of resources) stays well within every
// limit: 300 applications, 900 objects, 901 loads (the top, 300 applications and each one's
// two components), 303 distinct kustomization files.
func TestLargeBuildWithinBounds(t *testing.T) {
	root := t.TempDir()
	if err := incident.WriteFiles(root, largeRepo(300)); err != nil {
		t.Fatal(err)
	}
	res := Build(t.Context(), root, Kustomization{Path: "apps"}, Options{NoFiles: true})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if len(res.Objects) != 900 {
		t.Fatalf("built %d objects, want 900", len(res.Objects))
	}
	w := res.Work
	t.Logf("work: %+v", w)
	if w.Loads != 901 || w.Documents != 900 {
		t.Errorf("counted %d loads and %d documents, want 901 and 900", w.Loads, w.Documents)
	}
	if w.Loads > LoadsPerKustomization*303/2 || w.KustomizationBytes > MaxKustomizationBytes/10 || w.Documents > MaxBuildDocuments/10 || w.Bytes > MaxBuildBytes/10 {
		t.Errorf("a legitimate large build comes near the limits: %+v", w)
	}
}

// A file of more YAML documents than a build may read is refused as it is read, before
// kustomize parses any of them.
func TestManyDocumentsBounded(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"apps/kustomization.yaml": "resources:\n- bulk.yaml\n",
		"apps/bulk.yaml":          strings.Repeat("---\n", MaxBuildDocuments),
	}
	if err := incident.WriteFiles(root, files); err != nil {
		t.Fatal(err)
	}
	res := Build(t.Context(), root, Kustomization{Path: "apps"}, Options{NoFiles: true})
	if !errors.Is(res.Err, ErrBuildBound) || !strings.Contains(res.Err.Error(), "YAML documents read at apps/bulk.yaml") {
		t.Fatalf("err = %v, want ErrBuildBound naming the documents and the file", res.Err)
	}
	if res.Work.Documents != MaxBuildDocuments+1 {
		t.Errorf("counted %d documents, want %d", res.Work.Documents, MaxBuildDocuments+1)
	}
}
