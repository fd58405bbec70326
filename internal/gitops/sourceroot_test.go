package gitops

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDetectLayout(t *testing.T) {
	tree := func(t *testing.T, dirs ...string) string {
		t.Helper()
		top := t.TempDir()
		for _, d := range dirs {
			if err := os.MkdirAll(filepath.Join(top, filepath.FromSlash(d)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return top
	}
	cases := []struct {
		name               string
		dirs               []string
		sourceRoot, entry  string
		paths              []string
		wantRoot, wantPath string
		wantErr            string
	}{
		{name: "clusters at the top", dirs: []string{"clusters/prod", "apps"}, wantRoot: ".", wantPath: "clusters/prod"},
		{name: "clusters under the artifact root", dirs: []string{"k8s/clusters/prod", "k8s/apps", "docs"}, wantRoot: "k8s", wantPath: "clusters/prod"},
		{name: "no clusters directory", dirs: []string{"apps"}, wantRoot: ".", wantPath: "."},
		{name: "two cluster directories", dirs: []string{"clusters/prod", "clusters/staging"}, wantErr: "2 cluster directories (clusters/prod, clusters/staging): choose one with --path"},
		{name: "two roots with clusters", dirs: []string{"a/clusters/x", "b/clusters/x"}, wantErr: "several directories hold a clusters/ directory (a, b)"},
		{name: "entry under the artifact root", dirs: []string{"k8s/clusters/prod"}, entry: "./clusters/prod/", wantRoot: "k8s", wantPath: "clusters/prod"},
		{name: "entry at the top wins", dirs: []string{"clusters/prod", "k8s/clusters/prod"}, entry: "clusters/prod", wantRoot: ".", wantPath: "clusters/prod"},
		{name: "entry under two roots", dirs: []string{"a/clusters/prod", "b/clusters/prod"}, entry: "clusters/prod", wantErr: "resolves under several directories (a, b)"},
		{name: "entry nowhere", dirs: []string{"k8s"}, entry: "clusters/prod", wantErr: "is not a directory of the repository, nor of any directory in it"},
		{name: "live paths", dirs: []string{"k8s/apps", "k8s/infra", "apps"}, paths: []string{"./apps", "infra"}, wantRoot: "k8s"},
		{name: "live path missing falls back to the top", dirs: []string{"k8s/apps"}, paths: []string{"apps", "ghost"}, wantRoot: "."},
		{name: "live entry names the root Kustomization", dirs: []string{"k8s/apps", "k8s/clusters/prod"}, entry: "clusters/prod", paths: []string{"apps"}, wantRoot: "k8s", wantPath: "clusters/prod"},
		{name: "live paths with a given root", dirs: []string{"k8s/apps"}, sourceRoot: "k8s", paths: []string{"apps"}, wantRoot: "k8s"},
		{name: "given root", dirs: []string{"k8s/clusters/prod"}, sourceRoot: "k8s/", wantRoot: "k8s", wantPath: "clusters/prod"},
		{name: "given root without the entry", dirs: []string{"k8s/clusters/prod", "other"}, sourceRoot: "other", entry: "clusters/prod", wantErr: "not a directory under --source-root other"},
		{name: "given root missing", dirs: []string{"k8s"}, sourceRoot: "nope", wantErr: "--source-root nope is not a directory"},
		{name: "hidden directories are not roots", dirs: []string{".git/clusters/prod", "clusters/prod"}, wantRoot: ".", wantPath: "clusters/prod"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, err := DetectLayout(tree(t, tc.dirs...), tc.sourceRoot, tc.entry, tc.paths)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q (layout %+v)", err, tc.wantErr, l)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.SourceRoot != tc.wantRoot || l.Entry != tc.wantPath || l.SourceRootHow == "" || (l.Entry != "" && l.EntryHow == "") {
				t.Errorf("layout %+v, want root %q entry %q, each with how it was chosen", l, tc.wantRoot, tc.wantPath)
			}
		})
	}
}
