package docexamples

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestFind(t *testing.T) {
	dir := t.TempDir()
	doc := "Run `kubectl safe-retire --context=prod --orphans`; the plugin is `kubectl safe-retire`.\n" +
		"```\n$ kubectl safe-retire --dry-run --base \"origin/main\" -o json | jq .   # comment\n" +
		"kubectl safe-retire --dry-run [--repo DIR]\n" +
		"cmd/kubectl-safe_retire ─┐\n" +
		"    └── $ kubectl why-terminating pvc/x -n y\n```\n"
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Find(dir, "safe-retire")
	if err != nil {
		t.Fatal(err)
	}
	want := []Example{
		{File: "a.md", Line: 1, Text: "kubectl safe-retire --context=prod --orphans", Args: []string{"--context=prod", "--orphans"}},
		{File: "a.md", Line: 3, Text: `kubectl safe-retire --dry-run --base "origin/main" -o json`, Args: []string{"--dry-run", "--base", "origin/main", "-o", "json"}, Concrete: true},
		{File: "a.md", Line: 4, Text: "kubectl safe-retire --dry-run [--repo DIR]", Args: []string{"--dry-run", "[--repo", "DIR]"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	wt, err := Find(dir, "why-terminating")
	if err != nil || len(wt) != 1 || !reflect.DeepEqual(wt[0].Args, []string{"pvc/x", "-n", "y"}) {
		t.Fatalf("why-terminating: %+v %v", wt, err)
	}
}

func TestFindAtLineStart(t *testing.T) {
	for _, line := range []string{"flux why-terminating pvc x", "kubectl-why_terminating pvc x", "(kubectl why-terminating pvc x)"} {
		got := examplesIn(line, "why-terminating")
		if len(got) != 1 || !reflect.DeepEqual(got[0].Args[:2], []string{"pvc", "x"}) {
			t.Errorf("%q: %+v", line, got)
		}
	}
}
