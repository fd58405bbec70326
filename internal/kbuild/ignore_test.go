package kbuild

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/testsupport/gitopsfixture"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

func TestBuildPlainDirectoryLikeTheArtifact(t *testing.T) {
	cases := []struct {
		name    string
		extra   map[string]string
		path    string
		want    []string
		wantErr string
	}{
		{name: "default rules leave out CI and SOPS files", path: ".",
			want: []string{"db_db__PersistentVolumeClaim", "media_media__PersistentVolumeClaim"}},
		{name: "a .sourceignore replaces the default rules, as in source-controller", path: ".",
			extra: map[string]string{".sourceignore": "/scratch/\n"}, wantErr: "failed to decode Kubernetes YAML from"},
		{name: "a .sourceignore that covers .github/ too", path: ".",
			extra: map[string]string{".sourceignore": "# CI\n.github/\n.circleci/\n.sops.yaml\ncloudbuild.yaml\n"},
			want:  []string{"db_db__PersistentVolumeClaim", "media_media__PersistentVolumeClaim"}},
		{name: "a nested .sourceignore is scoped to its directory", path: "apps",
			extra: map[string]string{"apps/media/.sourceignore": "claim.yaml\n", "claim.yaml": pvc("top", "top")},
			want:  []string{"db_db__PersistentVolumeClaim"}},
		{name: "a left-out kustomization file is not one: the directory is listed file by file", path: "apps",
			extra: map[string]string{"apps/.sourceignore": "db/kustomization.yaml\n", "apps/db/other.yaml": pvc("other", "db")},
			want:  []string{"db_db__PersistentVolumeClaim", "db_other__PersistentVolumeClaim", "media_media__PersistentVolumeClaim"}},
		{name: "the built path's own kustomization file left out", path: "apps/db",
			extra: map[string]string{".sourceignore": "/apps/db/kustomization.yaml\n"}, wantErr: "left out of the source's artifact"},
		{name: "a plain subdirectory", path: "apps/media",
			extra: map[string]string{}, want: []string{"media_media__PersistentVolumeClaim"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if err := incident.WriteFiles(root, gitopsfixture.HomeOpsTop()); err != nil {
				t.Fatal(err)
			}
			if err := incident.WriteFiles(root, tc.extra); err != nil {
				t.Fatal(err)
			}
			res := BuildPath(context.Background(), root, tc.path, Options{})
			if tc.wantErr != "" {
				if res.Err == nil || !strings.Contains(res.Err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", res.Err, tc.wantErr)
				}
				return
			}
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if got := ids(res.Objects); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("objects %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBuildPlainDirectoryKeepsGeneratorFields(t *testing.T) {
	root := t.TempDir()
	if err := incident.WriteFiles(root, gitopsfixture.HomeOpsTop()); err != nil {
		t.Fatal(err)
	}
	ks := fluxKS(t, ksYAML("./apps", "  targetNamespace: moved\n"))
	res := Build(context.Background(), root, ks, Options{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	want := []string{"moved_db__PersistentVolumeClaim", "moved_media__PersistentVolumeClaim"}
	if got := ids(res.Objects); !reflect.DeepEqual(got, want) {
		t.Errorf("objects %v, want %v", got, want)
	}
	empty := BuildPath(context.Background(), root, ".circleci", Options{})
	if empty.Err != nil || len(empty.Objects) != 0 {
		t.Errorf("a directory whose files are all left out: %v, %d objects; want an empty build", empty.Err, len(empty.Objects))
	}
}

// A checkout whose own path holds a name kustomize's in-memory file system cannot create (a
// clone into /tmp/bjw-s-labs+home-ops, as `fetch` names its mirrors, or a directory with a
// space) builds where it is: the names above the root are the checkout's, not the source's.
// A directory inside the repository with such a name, where the generated kustomization.yaml
// must go, is refused naming it.
func TestBuildUnderAPathKustomizeRefuses(t *testing.T) {
	for _, tc := range []struct{ dir, path, wantErr string }{
		{"bjw-s-labs+home-ops", "apps", ""},
		{"k=v,x", "apps", ""},
		{"my repos", "apps", ""},
		{"home-ops_2.0:x", "apps", ""},
		{"owner+name", "apps/a+b", `the path apps/a+b has a directory name ("a+b")`},
	} {
		root := filepath.Join(t.TempDir(), tc.dir)
		files := map[string]string{
			"apps/claim.yaml":     pvc("data", "media"),
			"apps/a+b/claim.yaml": pvc("other", "media"),
		}
		if err := incident.WriteFiles(root, files); err != nil {
			t.Fatal(err)
		}
		res := BuildPath(context.Background(), root, tc.path, Options{})
		switch {
		case tc.wantErr == "" && res.Err != nil:
			t.Errorf("%s: %v", tc.dir, res.Err)
		case tc.wantErr == "" && len(res.Objects) != 2:
			t.Errorf("%s: %d objects, want the claim in apps/ and in apps/a+b/", tc.dir, len(res.Objects))
		case tc.wantErr != "" && (res.Err == nil || !strings.Contains(res.Err.Error(), tc.wantErr)):
			t.Errorf("%s: err %v, want %q", tc.dir, res.Err, tc.wantErr)
		}
	}
	if got := illegalRootName("/home/runner/work/home-ops/home-ops"); got != "" {
		t.Errorf("a CI checkout path is refused: %q", got)
	}
}

// TestIgnoreRulesFromTheScan checks that the .sourceignore files one walk of the tree found are
// read in source-controller's order (a directory's own before its subdirectories', by name,
// with names that sort before and after ".sourceignore"), giving the rules a walk of the
// directories gives.
func TestIgnoreRulesFromTheScan(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		".sourceignore":          "*.txt\n",
		"-early/.sourceignore":   "!keep.txt\n",
		".github/.sourceignore":  "!*.txt\n",
		"apps/.sourceignore":     "!*.txt\nsecret.yaml\n",
		"apps/a/.sourceignore":   "*.txt\n",
		"apps/a-b/.sourceignore": "!x.txt\n",
		"apps/a/b/.sourceignore": "!deep.txt\n",
		"zz/.sourceignore":       "*.yaml\n",
	}
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	walked := newSourceIgnore(gitrev.Disk(root))
	sc := ScanRoot(t.Context(), root)
	if !sc.Links.None() {
		t.Fatal("a tree without symlinks was not found free of them")
	}
	scanned := sc.ignore
	if err := walked.load(); err != nil {
		t.Fatal(err)
	}
	if err := scanned.load(); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(walked.files, scanned.files); d != "" {
		t.Errorf("the files are read in another order (-walk +scan):\n%s", d)
	}
	for _, p := range []string{"a.txt", "-early/keep.txt", "-early/b.txt", ".github/c.txt", "apps/x.txt", "apps/secret.yaml",
		"apps/a/y.txt", "apps/a/b/deep.txt", "apps/a-b/x.txt", "apps/a-b/y.txt", "zz/z.yaml", "zz/z.txt"} {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if w, s := walked.excluded(abs, false), scanned.excluded(abs, false); w != s {
			t.Errorf("%s: excluded %t by the walked rules, %t by the scanned ones", p, w, s)
		}
	}
}
