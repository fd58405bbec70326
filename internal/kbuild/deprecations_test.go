package kbuild

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/progress"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// Each deprecation kustomize itself writes to the process's stderr during a build is one
// IsKustomizeDeprecation knows (so the process may drop it), and the build notes it for the
// run, once per build, with the kustomization files that use it. Not parallel: it reads
// os.Stderr.
func TestBuildNotesKustomizeDeprecations(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"apps/kustomization.yaml":   "resources: [a, b]\ncommonLabels: {team: x}\n",
		"apps/a/kustomization.yaml": "resources: [claim.yaml]\ncommonLabels: {app: a}\n",
		"apps/a/claim.yaml":         pvc("a", "media"),
		"apps/b/kustomization.yaml": "resources: [claim.yaml]\npatchesStrategicMerge: [patch.yaml]\n",
		"apps/b/claim.yaml":         pvc("b", "media"),
		"apps/b/patch.yaml":         "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: b, namespace: media, labels: {p: q}}\n",
		"plain/kustomization.yaml":  "resources: [claim.yaml]\nlabels: [{pairs: {team: x}}]\n",
		"plain/claim.yaml":          pvc("c", "media"),
	}
	if err := incident.WriteFiles(root, files); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	real := os.Stderr
	os.Stderr = w
	ctx, warns := progress.CollectWarnings(context.Background())
	for range 2 {
		if res := BuildPath(ctx, root, "apps", Options{}); res.Err != nil {
			t.Error(res.Err)
		}
	}
	if res := BuildPath(ctx, root, "plain", Options{}); res.Err != nil {
		t.Error(res.Err)
	}
	os.Stderr = real
	_ = w.Close()
	written, _ := io.ReadAll(r)
	lines := strings.Split(strings.TrimSpace(string(written)), "\n")
	if len(lines) < 2 {
		t.Fatalf("kustomize wrote %q: the test no longer sees its warnings", written)
	}
	for _, l := range lines {
		if !IsKustomizeDeprecation(l) {
			t.Errorf("kustomize wrote %q, not known as a deprecation", l)
		}
	}
	want := []string{
		"kustomize: 'commonLabels' is deprecated. Please use 'labels' instead. Run 'kustomize edit fix' to update your Kustomization automatically. (2 builds: apps/a/kustomization.yaml, apps/kustomization.yaml)",
		"kustomize: 'patchesStrategicMerge' is deprecated. Please use 'patches' instead. Run 'kustomize edit fix' to update your Kustomization automatically. (2 builds: apps/b/kustomization.yaml)",
	}
	if got := warns.Lines("build"); !slices.Equal(got, want) {
		t.Errorf("warnings\n%q\nwant\n%q", got, want)
	}
	if IsKustomizeDeprecation("# Warning: 'commonLabels' is deprecated") || IsKustomizeDeprecation(filepath.Join("x", "y")) {
		t.Error("a line kustomize does not write is taken for its warning")
	}
}
