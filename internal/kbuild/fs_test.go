package kbuild

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/provider"
)

// fromNode must give exactly what the JSON round trip it replaced gave, for every kind of
// scalar YAML can spell.
func TestFromNodeMatchesJSON(t *testing.T) {
	doc := `apiVersion: v1
kind: ConfigMap
metadata:
  name: scalars
  namespace: default
  labels: {a: "1"}
  annotations:
    quoted: "true"
    multi: |
      line one
      line two
data:
  plain: hello
spec:
  int: 42
  negative: -7
  hex: 0x1F
  octal: 0o17
  big: 9007199254740993
  float: 3.25
  integral: 2.0
  exp: 1e3
  yesWord: yes
  bool: true
  nothing: null
  tilde: ~
  empty: ""
  stamp: 2026-11-30T03:00:00Z
  date: 2026-11-30
  list: [1, "2", 3.5, false, null, {x: y}]
  nested: {a: {b: [[]]}, c: {}}
  anchors:
    first: &anchor {k: v}
    second: *anchor
`
	rf := provider.NewDefaultDepProvider().GetResourceFactory()
	rs, err := rf.SliceFromBytes([]byte(doc))
	if err != nil || len(rs) != 1 {
		t.Fatalf("%v %d", err, len(rs))
	}
	r := rs[0]
	data, err := r.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := &unstructured.Unstructured{}
	if err := want.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	got, err := fromNode(r.YNode())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want.Object) {
		t.Errorf("fromNode differs from the JSON round trip\n got: %#v\nwant: %#v", got, want.Object)
	}
	// The result must be a valid unstructured value: DeepCopy panics on foreign types.
	(&unstructured.Unstructured{Object: got.(map[string]any)}).DeepCopy()
}

// A symlink-free tree builds on the lexical file system, which refuses what the controller's
// secure one refuses: a resource outside the root. A tree with a symlink out of the root gets
// the controller's own file system, which refuses to follow it.
func TestConfinedFS(t *testing.T) {
	top := t.TempDir()
	root := filepath.Join(top, "repo")
	write := func(p, content string) {
		t.Helper()
		p = filepath.Join(top, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("outside.yaml", pvc("stolen", "default"))
	write("repo/apps/claim.yaml", pvc("data", "default"))
	write("repo/apps/kustomization.yaml", "resources:\n- claim.yaml\n")
	write("repo/escape/kustomization.yaml", "resources:\n- ../../outside.yaml\n")

	if !SymlinkFree(root) {
		t.Fatal("a tree without symlinks reported as having some")
	}
	if fs, err := confinedFS(t.Context(), root, false, nil, nil); err != nil {
		t.Fatal(err)
	} else if _, ok := fs.(boundedFS).FileSystem.(lexicalFS); !ok {
		t.Fatalf("symlink-free tree got %T, want the lexical file system", fs)
	}
	ok := Build(context.Background(), root, Kustomization{Path: "apps"}, Options{})
	if ok.Err != nil || len(ok.Objects) != 1 {
		t.Fatalf("apps: %v %v", ok.Err, ids(ok.Objects))
	}
	esc := Build(context.Background(), root, Kustomization{Path: "escape"}, Options{})
	if esc.Err == nil || !strings.Contains(esc.Err.Error(), "is not in or below") {
		t.Fatalf("a resource outside the root built: %v %v", esc.Err, ids(esc.Objects))
	}

	if err := os.Symlink(filepath.Join(top, "outside.yaml"), filepath.Join(root, "apps", "link.yaml")); err != nil {
		t.Fatal(err)
	}
	write("repo/apps/kustomization.yaml", "resources:\n- claim.yaml\n- link.yaml\n")
	if SymlinkFree(root) {
		t.Fatal("a symlink went unnoticed")
	}
	if fs, err := confinedFS(t.Context(), root, false, nil, nil); err != nil {
		t.Fatal(err)
	} else if _, ok := fs.(boundedFS).FileSystem.(lexicalFS); ok {
		t.Fatal("a tree with a symlink got the lexical file system")
	}
	link := Build(context.Background(), root, Kustomization{Path: "apps"}, Options{})
	if link.Err == nil || !strings.Contains(link.Err.Error(), "is not in or below") {
		t.Fatalf("a symlink out of the root was followed: %v %v", link.Err, ids(link.Objects))
	}
}

func TestOriginPath(t *testing.T) {
	cases := []struct {
		raw, path string
		local     bool
	}{
		{"path: apps/claim.yaml\n", "apps/claim.yaml", true},
		{"path: claim.yaml\nrepo: https://github.com/x/y\nref: main\n", "claim.yaml", false},
		{"path: 'odd name.yaml'\n", "odd name.yaml", true},
		{"configuredIn: kustomization.yaml\nconfiguredBy:\n  kind: ConfigMapGenerator\n", "", true},
	}
	for _, c := range cases {
		p, local := originPath(c.raw)
		if p != c.path || local != c.local {
			t.Errorf("originPath(%q) = %q, %v; want %q, %v", c.raw, p, local, c.path, c.local)
		}
	}
}

// TestLinkSet checks which paths a symlink makes unclear: the link itself, what lies below it,
// and a directory that holds it.
func TestLinkSet(t *testing.T) {
	l := &LinkSet{paths: []string{"a/link", "CLAUDE.md"}}
	for p, want := range map[string]bool{"a/link": false, "a/link/x.yaml": false, "a": false, ".": false,
		"a/linked.yaml": true, "a/b/x.yaml": true, "b": true, "CLAUDE.md": false, "CLAUDE.mdx": true} {
		if got := l.Clear(p); got != want {
			t.Errorf("Clear(%q) = %t, want %t", p, got, want)
		}
	}
	for p, want := range map[string]bool{"a/link": true, "a/link/x.yaml": true, "a": false, "a/linked.yaml": false} {
		if got := l.Through(p); got != want {
			t.Errorf("Through(%q) = %t, want %t", p, got, want)
		}
	}
	var unknown *LinkSet
	if unknown.Clear("b") || !unknown.Through("b") {
		t.Error("an unwalked tree's paths were taken as clear of links")
	}
}
