package retire

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/gitrev"
)

func TestLocateLine(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	multi := write("multi.yaml", `# a comment
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: other
  namespace: headlamp
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: headlamp
spec: {}
`)
	renamed := write("renamed.yaml", "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\n")
	broken := write("broken.yaml", "kind: PersistentVolumeClaim\nmetadata:\n  name: headlamp\n---\nkind: [unclosed\n")
	huge := write("huge.yaml", strings.Repeat("---\nkind: ConfigMap\nmetadata:\n  name: x\n", maxLocateDocs)+"---\nkind: PersistentVolumeClaim\nmetadata:\n  name: headlamp\n")
	claim := Ref{Kind: "PersistentVolumeClaim", Namespace: "headlamp", Name: "headlamp"}
	cases := []struct {
		name string
		file string
		ref  Ref
		want int
	}{
		{"by name, namespace set by kustomize", multi, claim, 14},
		{"namespace written and wrong", multi, Ref{Kind: "PersistentVolumeClaim", Namespace: "x", Name: "other"}, 0},
		{"first document", multi, Ref{Kind: "ConfigMap", Namespace: "headlamp", Name: "settings"}, 3},
		{"renamed by a prefix, the only one of its kind", renamed, Ref{Kind: "PersistentVolumeClaim", Namespace: "a", Name: "app-data"}, 2},
		{"not YAML after the match", broken, claim, 0},
		{"past the document bound", huge, claim, 0},
		{"no such file", filepath.Join(dir, "none.yaml"), claim, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := locateLine(gitrev.Disk(filepath.Dir(tc.file)), tc.file, tc.ref); got != tc.want {
				t.Errorf("line %d, want %d", got, tc.want)
			}
		})
	}
}
