package sarif_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/sarif"
	"github.com/kubeforensics/suite/internal/sarif/sariftest"
)

var rules = []sarif.Rule{
	{ID: "prune-persistent", Level: sarif.Error, Summary: "Flux prunes persistent state.", Help: "Protect it first."},
	{ID: "tier-not-built", Level: sarif.Warning, Summary: "A tier did not build.", Help: "Vendor the remote base."},
	{ID: "prune-stateless", Level: sarif.Note, Summary: "Pruned, stateless.", Help: "Nothing to do."},
}

func write(t *testing.T, r sarif.Report) (sarif.Log, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := sarif.Write(&buf, r); err != nil {
		t.Fatal(err)
	}
	sariftest.Validate(t, buf.Bytes())
	var log sarif.Log
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	return log, buf.Bytes()
}

func report(fs ...sarif.Finding) sarif.Report {
	return sarif.Report{Tool: "kubectl-safe-retire", Version: "dev", Category: "kubeforensics/safe-retire/clusters/prod",
		Rules: rules, Findings: fs, Anchor: "clusters/prod/kustomization.yaml", Verdict: "UNSAFE", ExitCode: 1}
}

var claim = sarif.Finding{Rule: "prune-persistent", Level: sarif.Error, Message: "Kustomization flux-system/apps prunes PersistentVolumeClaim headlamp/headlamp",
	File: "k8s/apps/headlamp/pvc.yaml", Line: 2, Identity: "flux-system/apps headlamp_headlamp__PersistentVolumeClaim"}

func TestWrite(t *testing.T) {
	log, _ := write(t, report(claim, sarif.Finding{Rule: "tier-not-built", Level: sarif.Warning, Message: "tier flux-system/infra did not build", Identity: "flux-system/infra"}))
	run := log.Runs[0]
	if run.AutomationDetails.ID != "kubeforensics/safe-retire/clusters/prod/" {
		t.Errorf("automationDetails.id %q: want the category and a trailing slash", run.AutomationDetails.ID)
	}
	if len(run.Tool.Driver.Rules) != 3 || run.Tool.Driver.Rules[0].Help == nil || run.Tool.Driver.Rules[0].Name != "PrunePersistent" {
		t.Errorf("rules %+v", run.Tool.Driver.Rules)
	}
	if len(run.Results) != 2 {
		t.Fatalf("results %+v", run.Results)
	}
	got := run.Results[0].Locations[0].PhysicalLocation
	if got.ArtifactLocation.URI != "k8s/apps/headlamp/pvc.yaml" || got.Region == nil || got.Region.StartLine != 2 {
		t.Errorf("location %+v", got)
	}
	if anchor := run.Results[1].Locations[0].PhysicalLocation; anchor.ArtifactLocation.URI != "clusters/prod/kustomization.yaml" || anchor.Region == nil || anchor.Region.StartLine != 1 {
		t.Errorf("a finding without a file is placed at the anchor, without a line: %+v", anchor)
	}
	if *run.Invocations[0].ExitCode != 1 || len(run.Invocations[0].ToolExecutionNotifications) != 0 {
		t.Errorf("invocation %+v", run.Invocations[0])
	}
}

// A fingerprint moves with the rule, the file and the identity, never with the line; two
// findings with one identity get distinct ones.
func TestFingerprints(t *testing.T) {
	fp := func(fs ...sarif.Finding) []string {
		log, _ := write(t, report(fs...))
		var out []string
		for _, r := range log.Runs[0].Results {
			out = append(out, r.PartialFingerprints[sarif.FingerprintKey])
		}
		return out
	}
	moved := claim
	moved.Line = 40
	other := claim
	other.Identity = "flux-system/apps headlamp_other__PersistentVolumeClaim"
	base := fp(claim)[0]
	if got := fp(moved)[0]; got != base {
		t.Errorf("the fingerprint changed with the line: %s, was %s", got, base)
	}
	if got := fp(other)[0]; got == base {
		t.Errorf("two objects share a fingerprint: %s", got)
	}
	if twice := fp(claim, claim); twice[0] != base || twice[1] != base+":2" {
		t.Errorf("duplicates %q, want %s and %s:2", twice, base, base)
	}
}

// An UNKNOWN verdict never gives a log without a warning: a log with no results must not be
// read as SAFE.
func TestUnknownNeverEmpty(t *testing.T) {
	r := report()
	r.Verdict, r.ExitCode = "UNKNOWN", 2
	log, _ := write(t, r)
	res := log.Runs[0].Results
	if len(res) != 1 || res[0].RuleID != sarif.UnknownRule.ID || res[0].Level != sarif.Warning {
		t.Fatalf("results %+v, want one %s warning", res, sarif.UnknownRule.ID)
	}
	r.Findings = []sarif.Finding{{Rule: "tier-not-built", Level: sarif.Warning, Message: "x", Identity: "x"}}
	if log, _ := write(t, r); len(log.Runs[0].Results) != 1 || log.Runs[0].Results[0].RuleID != "tier-not-built" {
		t.Errorf("a gap already says why: %+v", log.Runs[0].Results)
	}
}

func TestLimits(t *testing.T) {
	var fs []sarif.Finding
	for i := range 30 {
		level, rule := sarif.Note, "prune-stateless"
		switch {
		case i%10 == 0:
			level, rule = sarif.Error, "prune-persistent"
		case i%10 == 1:
			level, rule = sarif.Warning, "tier-not-built"
		}
		fs = append(fs, sarif.Finding{Rule: rule, Level: level, Message: fmt.Sprintf("finding %d %x", i, sha256.Sum256([]byte(fmt.Sprint(i)))), File: fmt.Sprintf("f%d.yaml", i), Identity: fmt.Sprint(i)})
	}
	cases := []struct {
		name   string
		limits sarif.Limits
		want   int
		why    string
	}{
		{"results per run", sarif.Limits{Results: 10}, 10, "at most 10 results per run"},
		{"gzip size", sarif.Limits{GzipBytes: 2000}, -1, "bytes gzip-compressed"},
		{"within", sarif.Limits{}, 30, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := report(fs...)
			r.Limits = tc.limits
			log, b := write(t, r)
			run := log.Runs[0]
			if tc.want >= 0 && len(run.Results) != tc.want {
				t.Errorf("%d results, want %d", len(run.Results), tc.want)
			}
			levels := map[string]int{}
			for _, res := range run.Results {
				levels[res.Level]++
			}
			if levels[sarif.Error] != 3 || levels[sarif.Warning] != 3 {
				t.Errorf("kept %v: every error and warning goes before any note", levels)
			}
			notes := run.Invocations[0].ToolExecutionNotifications
			switch {
			case tc.why == "" && len(notes) > 0:
				t.Errorf("nothing was left out: %+v", notes)
			case tc.why != "" && (len(notes) != 1 || !strings.Contains(notes[0].Message.Text, tc.why) || notes[0].Level != sarif.Warning):
				t.Errorf("notifications %+v, want one warning saying %q", notes, tc.why)
			}
			if tc.limits.GzipBytes > 0 && (len(run.Results) == 30 || gzipSize(t, b) > tc.limits.GzipBytes) {
				t.Errorf("%d results in %d bytes gzip-compressed, limit %d", len(run.Results), gzipSize(t, b), tc.limits.GzipBytes)
			}
		})
	}
}

func TestUndeclaredRule(t *testing.T) {
	err := sarif.Write(&bytes.Buffer{}, report(sarif.Finding{Rule: "no-such-rule", Level: sarif.Error, Message: "x"}))
	if err == nil || !strings.Contains(err.Error(), "no-such-rule") {
		t.Errorf("err %v, want the undeclared rule named", err)
	}
}

// Text from repositories is escaped, and paths are URI references.
func TestEscaping(t *testing.T) {
	f := claim
	f.Message = "evil\x1b[31m\n::error::forged"
	f.File = "k8s/my apps/pvc.yaml"
	log, b := write(t, report(f))
	res := log.Runs[0].Results[0]
	if strings.ContainsAny(res.Message.Text, "\x1b\n") {
		t.Errorf("message not escaped: %q", res.Message.Text)
	}
	if uri := res.Locations[0].PhysicalLocation.ArtifactLocation.URI; uri != "k8s/my%20apps/pvc.yaml" {
		t.Errorf("uri %q", uri)
	}
	if bytes.Contains(b, []byte("\x1b")) {
		t.Error("raw escape in the log")
	}
}

func gzipSize(t *testing.T, b []byte) int {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Len()
}

// The schema check can fail: a log without runs, or with a result level SARIF does not have.
func TestSchemaRejects(t *testing.T) {
	for _, bad := range []string{
		`{"version": "2.1.0"}`,
		`{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"message": {"text": "x"}, "level": "fatal"}]}]}`,
	} {
		if err := sariftest.Check([]byte(bad)); err == nil {
			t.Errorf("the schema accepts %s", bad)
		}
	}
}

func TestFileURI(t *testing.T) {
	cases := []struct{ file, want string }{
		{"k8s/apps/pvc.yaml", "k8s/apps/pvc.yaml"},
		{"./k8s/../apps/a b.yaml", "apps/a%20b.yaml"},
		{"c:d/x.yaml", "./c:d/x.yaml"},
		{"../../etc/passwd", "etc/passwd"},
		{"a/100%.yaml", "a/100%25.yaml"},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			f := claim
			f.File = tc.file
			log, _ := write(t, report(f))
			if got := log.Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI; got != tc.want {
				t.Errorf("uri %q, want %q", got, tc.want)
			}
		})
	}
}
