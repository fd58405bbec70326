package sarif_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/output"
	kfreport "github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/sarif"
)

// Every gap reason renders: in text as its line, in JSON as the one shape, and in SARIF as a
// result of its own rule (incomplete-REASON) carrying op, reason and subject as properties.
func TestGapReasonsRender(t *testing.T) {
	var gaps []kfreport.Gap
	var fs []sarif.Finding
	for _, r := range kfreport.GapReasons() {
		g := kfreport.Gap{Op: kfreport.OpList, Subject: kfreport.TypeID("backups.velero.io"), Reason: r, What: "listing backups.velero.io (" + string(r) + ")", Error: "because " + string(r)}
		gaps = append(gaps, g)
		fs = append(fs, sarif.GapFinding(g))
	}
	rep := sarif.Report{Tool: "kubectl-safe-retire", Version: "dev", Category: "kubeforensics/safe-retire/clusters/prod",
		Rules: sarif.GapRules(), Findings: fs, Anchor: "clusters/prod/kustomization.yaml", Verdict: "UNKNOWN", ExitCode: 2}
	log, _ := write(t, rep)
	results := log.Runs[0].Results
	if len(results) != len(gaps) {
		t.Fatalf("%d results for %d gaps", len(results), len(gaps))
	}
	root := &output.Node{}
	output.AddIncomplete(root, gaps, output.Palette{})
	var text strings.Builder
	if err := root.Render(&text, output.Palette{}); err != nil {
		t.Fatal(err)
	}
	for i, g := range gaps {
		t.Run(string(g.Reason), func(t *testing.T) {
			res := results[i]
			if res.RuleID != "incomplete-"+string(g.Reason) || res.Level != sarif.Warning || res.Message.Text != g.String() {
				t.Errorf("result %+v", res)
			}
			if res.Properties["reason"] != string(g.Reason) || res.Properties["op"] != "list" {
				t.Errorf("properties %v", res.Properties)
			}
			if !strings.Contains(text.String(), g.String()+"\n") {
				t.Errorf("text does not hold %q:\n%s", g.String(), text.String())
			}
			b, err := json.Marshal(g)
			if err != nil {
				t.Fatal(err)
			}
			var back map[string]any
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if back["reason"] != string(g.Reason) || back["op"] != "list" || back["what"] != g.What || back["error"] != g.Error || back["subject"] == nil {
				t.Errorf("json %s", b)
			}
		})
	}
	// A rule for every reason, each once.
	seen := map[string]bool{}
	for _, r := range log.Runs[0].Tool.Driver.Rules {
		if seen[r.ID] {
			t.Errorf("rule %s twice", r.ID)
		}
		seen[r.ID] = true
	}
	for _, r := range kfreport.GapReasons() {
		if !seen["incomplete-"+string(r)] {
			t.Errorf("no rule for reason %s", r)
		}
	}
}
