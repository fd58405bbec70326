package saferetire

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/output"
	sr "github.com/kubeforensics/suite/internal/saferetire"
)

// digestRecipeMarker precedes, in docs/safe-retire.md, the code block that reproduces a plan's
// digest from the json output.
const digestRecipeMarker = "<!-- plan-digest-recipe -->\n```sh\n"

// DigestRecipe runs the recipe docs/safe-retire.md gives for checking a digest, word for word,
// on report (a dry run's json output saved as result.json) and returns what it prints, as
// `sha256:<hex>`. The test fails when the doc holds no recipe or jq is missing.
func DigestRecipe(t *testing.T, report []byte) string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/safe-retire.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), digestRecipeMarker)
	script, _, closed := strings.Cut(rest, "```\n")
	if !ok || !closed {
		t.Fatalf("docs/safe-retire.md has no code block after %q", digestRecipeMarker)
	}
	if _, err := exec.LookPath("jq"); err != nil {
		t.Fatalf("the documented recipe needs jq: %v", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "result.json"), report, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-ec", script)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the recipe failed: %v\n%s\n%s", err, script, stderr.String())
	}
	hex, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	return "sha256:" + hex
}

// The documented recipe gives the digest the tool computes from the json output as it is
// printed (keys sorted, `&` HTML-escaped), for a plan with the characters the encodings differ
// on: `<`, `>`, `&`, quotes and a backslash.
func TestDigestRecipeOnPrintedJSON(t *testing.T) {
	p := sr.LivePlan{Context: "prod", Server: "https://prod:6443", Base: "3f2a1b0", Candidate: "9c4e7d2",
		Objects: []sr.PlanObject{{Object: "PersistentVolumeClaim a/data", UID: "0b6c", ResourceVersion: "48213"}, {Object: "Pod a/web-0"}},
		Steps: []sr.PlanStep{{Step: "evict Pod a/web-0", Command: `echo '{"a":"<b>"}' | kubectl create --raw /x -f - && echo "\d"`},
			{Step: "delete PersistentVolumeClaim a/data", Command: "kubectl delete pvc data -n a"}}}
	want, err := p.Digest()
	if err != nil {
		t.Fatal(err)
	}
	var report bytes.Buffer
	if err := output.PrintJSON(&report, map[string]any{"confirm": sr.Confirmation{Digest: want, Plan: p}}); err != nil {
		t.Fatal(err)
	}
	if got := DigestRecipe(t, report.Bytes()); got != want {
		t.Fatalf("the documented recipe gives %s, the tool %s, on\n%s", got, want, report.String())
	}
}
