package fluxchain_test

import (
	"flag"
	"html"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The picture docs/flux-chain.md captions "the seed chain" is the seed chain's own `-o dot`:
// docs/flux-chain-seed.dot is testdata/seed.dot (which TestSeedChain holds to the run on the
// real control plane), and docs/flux-chain-seed.svg draws exactly its nodes and edges (the
// titles Graphviz gives them). The doc's mermaid block is testdata/seed.mermaid. With -update,
// the test copies the dot source and the mermaid block into docs/ and, when Graphviz's dot is
// installed, renders the svg.
func TestSeedPicture(t *testing.T) {
	src, err := os.ReadFile("testdata/seed.dot")
	if err != nil {
		t.Fatal(err)
	}
	mermaid, err := os.ReadFile("testdata/seed.mermaid")
	if err != nil {
		t.Fatal(err)
	}
	const dotPath, svgPath, docPath = "../../docs/flux-chain-seed.dot", "../../docs/flux-chain-seed.svg", "../../docs/flux-chain.md"
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```mermaid\n.*?```\n")
	if !block.Match(doc) {
		t.Fatalf("%s has no mermaid block", docPath)
	}
	wantDoc := block.ReplaceAllLiteralString(string(doc), "```mermaid\n"+string(mermaid)+"```\n")
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		writeDoc(t, dotPath, src)
		writeDoc(t, docPath, []byte(wantDoc))
		if _, err := exec.LookPath("dot"); err == nil {
			if out, err := exec.Command("dot", "-Tsvg", "-o", svgPath, dotPath).CombinedOutput(); err != nil {
				t.Fatalf("dot: %v\n%s", err, out)
			}
		} else {
			t.Logf("Graphviz's dot is not installed: %s is not rendered again", svgPath)
		}
	}
	got, err := os.ReadFile(dotPath)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(src), string(got)); diff != "" {
		t.Errorf("%s is not the seed chain's -o dot (run with -update) (-seed +doc):\n%s", dotPath, diff)
	}
	if diff := cmp.Diff(wantDoc, string(doc)); diff != "" {
		t.Errorf("%s: the mermaid block is not the seed chain's -o mermaid (run with -update) (-want +doc):\n%s", docPath, diff)
	}
	svg, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(dotTitles(string(src)), svgTitles(string(svg))); diff != "" {
		t.Errorf("%s does not draw the seed chain's nodes and edges (run with -update, Graphviz installed) (-dot +svg):\n%s", svgPath, diff)
	}
}

// dotTitles are the titles Graphviz gives a digraph of ours: its name, each node's id, each
// edge as `from->to`; sorted.
func dotTitles(src string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^digraph "([^"]+)"|^  "([^"]+)" \[|^  "([^"]+)" -> "([^"]+)";`).FindAllStringSubmatch(src, -1) {
		switch {
		case m[1] != "":
			out = append(out, m[1])
		case m[2] != "":
			out = append(out, m[2])
		default:
			out = append(out, m[3]+"->"+m[4])
		}
	}
	sort.Strings(out)
	return out
}

// svgTitles are the <title>s of an svg Graphviz rendered, unescaped and sorted.
func svgTitles(svg string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<title>([^<]*)</title>`).FindAllStringSubmatch(svg, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	sort.Strings(out)
	return out
}

func writeDoc(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
