package kbuild

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnnamedResourceNamesItsFile holds where an error about a resource without apiVersion,
// kind or name says it came from: hmcts/admin-flux-config 5717836 enabled an Ingress written
// without apiVersion, and the gate, whose fast builds record no files, said "(from a
// generator)"; flux-chain printed the raw origin annotation.
func TestUnnamedResourceNamesItsFile(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"clusters/dev/kustomization.yaml": "resources:\n- ../../apps/web\n",
		"apps/web/kustomization.yaml":     "resources:\n- ingress.yaml\n",
		"apps/web/ingress.yaml":           "kind: Ingress\nmetadata:\n  name: web\n",
	}
	for p, c := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		noFiles bool
		want    string
	}{
		{"files recorded", false, "(from apps/web/ingress.yaml)"},
		{"no files recorded", true, "(from a file the build of clusters/dev reads; this build records no files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := BuildPath(context.Background(), root, "clusters/dev", Options{NoFiles: tc.noFiles})
			if b.Err == nil || !strings.Contains(b.Err.Error(), tc.want) || strings.Contains(b.Err.Error(), "generator") {
				t.Fatalf("error %v, want it to say %q", b.Err, tc.want)
			}
		})
	}
}
