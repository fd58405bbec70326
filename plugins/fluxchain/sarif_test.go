package fluxchain_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/lint"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/sarif"
	"github.com/kubeforensics/suite/internal/sarif/sariftest"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/internal/testsupport/golden"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/plugins/fluxchain"
)

// TestRepoSARIF keeps flux-chain --repo -o sarif in testdata/<case>.sarif, each validated
// against the SARIF 2.1.0 schema: the seed incident's pull request (the claim's manifest
// deleted from the incident's repository: the chain lints clean), the seeded fixture with
// findings, and the remote fixture, whose tier that does not build offline makes the verdict
// UNKNOWN and must be a result.
func TestRepoSARIF(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "")
	seedPR := func(t *testing.T) string {
		r := gittest.New(t, incident.RepoFiles())
		r.Write(incident.ClaimRemoval())
		return r.Dir
	}
	cases := []struct {
		name string
		repo func(t *testing.T) string
		code int
		// levels are the levels of the results, in order.
		levels string
	}{
		{"seed-pr", seedPR, 0, ""},
		{"repo-seeded", func(t *testing.T) string { return copyRepo(t, "seeded") }, 1, ""},
		{"repo-remote", func(t *testing.T) string { return copyRepo(t, "remote") }, 2, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.repo(t)
			out, errOut, code := runRepo(t, "--repo", dir, "-o", "sarif")
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.code, out, errOut)
			}
			sariftest.Validate(t, []byte(out))
			goldens.Assert(t, tc.name+".sarif", out, golden.Literal(dir, "REPO"))
			var log sarif.Log
			if err := json.Unmarshal([]byte(out), &log); err != nil {
				t.Fatal(err)
			}
			checkRepoSARIF(t, log, tc.code)
			if again, _, _ := runRepo(t, "--repo", dir, "-o", "sarif"); again != out {
				t.Errorf("a second run gives another log:\n%s", again)
			}
		})
	}
}

// checkRepoSARIF: one rule per lint rule and gap, every result located with a fingerprint,
// a warning in an UNKNOWN run, an error in a failing one.
func checkRepoSARIF(t *testing.T, log sarif.Log, code int) {
	t.Helper()
	run := log.Runs[0]
	if len(run.Tool.Driver.Rules) != len(lint.Rules())+3+len(report.GapReasons()) {
		t.Errorf("%d rules, want one per lint rule, the three unjudged tiers and objects, and one per gap reason", len(run.Tool.Driver.Rules))
	}
	documented := documentedGaps(t)
	levels := map[string]int{}
	for _, res := range run.Results {
		levels[res.Level]++
		if len(res.Locations) != 1 || res.Locations[0].PhysicalLocation.ArtifactLocation.URI == "" || res.PartialFingerprints[sarif.FingerprintKey] == "" {
			t.Errorf("result %s without location or fingerprint: %+v", res.RuleID, res)
		}
		if strings.Contains(res.RuleID, "tier-") || strings.Contains(res.RuleID, "-read") || strings.Contains(res.RuleID, "undecoded") {
			if !documented[res.RuleID] {
				t.Errorf("gap rule %q is not in docs/sarif.md", res.RuleID)
			}
		}
	}
	switch {
	case code == 2 && levels[sarif.Warning]+levels[sarif.Error] == 0:
		t.Errorf("an UNKNOWN run without a warning reads as CLEAN: %+v", run.Results)
	case code == 1 && levels[sarif.Error] == 0:
		t.Errorf("a failing run without an error: %+v", run.Results)
	}
	if run.AutomationDetails == nil || !strings.HasPrefix(run.AutomationDetails.ID, "kubeforensics/flux-chain/") {
		t.Errorf("automationDetails %+v", run.AutomationDetails)
	}
}

func documentedGaps(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "sarif.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z0-9-]+)` \\|").FindAllStringSubmatch(string(b), -1) {
		out[m[1]] = true
	}
	return out
}

// -o sarif is for --repo only: the live chain refuses it before connecting.
func TestSARIFOnlyRepo(t *testing.T) {
	out, errOut, code := runRepo(t, "-o", "sarif", "--kubeconfig", "/nonexistent")
	if code != 3 || !strings.Contains(errOut, "-o sarif is for linting a repository") {
		t.Errorf("exit %d, want 3 naming -o sarif\n%s\n%s", code, out, errOut)
	}
}

// A suppressed finding stays in the log with its reason as a suppression (code scanning shows
// it dismissed, not gone), and every gap of an UNKNOWN result is a warning of its own.
func TestRepoSARIFSuppressedAndGaps(t *testing.T) {
	res := &fluxchain.RepoResult{Repo: t.TempDir(), Path: "clusters/prod", Verdict: "UNKNOWN", ExitCode: 2,
		Suppressed: []lint.Finding{{Rule: "suspend-committed", Severity: lint.Warning, Kustomization: "flux-system/apps", File: "clusters/prod/apps.yaml", Line: 7,
			Message: "Kustomization flux-system/apps is committed with suspend: true", Suppressed: &lint.Suppressed{Reason: "migration window", By: ".flux-chain.yaml"}}},
		BuildFailures: []lint.BuildFailure{{Kustomization: "flux-system/infra", Path: "./infra", Error: "accumulating resources"}},
		NotCovered: []report.Gap{{Op: report.OpBuild, Subject: report.ObjectID{Group: "kustomize.toolkit.fluxcd.io", Kind: "Kustomization", Namespace: "flux-system", Name: "tenant"},
			Reason: report.GapNotRead, What: "flux-system/tenant", Error: "its source is GitRepository/flux-system/tenant"}},
		Undecoded: []report.Gap{{Op: report.OpDecode, Subject: report.ObjectID{Group: "kustomize.toolkit.fluxcd.io", Kind: "Kustomization", Namespace: "flux-system", Name: "bad"},
			Reason: report.GapDecodeError, What: "Kustomization flux-system/bad", Error: "spec.timeout: not a duration"}},
		Incomplete: []report.Gap{{Op: report.OpList, Subject: report.TypeID("kustomizations.kustomize.toolkit.fluxcd.io"), Reason: report.GapForbidden,
			What: "listing kustomizations.kustomize.toolkit.fluxcd.io", Error: "forbidden"}},
	}
	var buf bytes.Buffer
	if err := fluxchain.PrintRepoSARIF(&buf, res); err != nil {
		t.Fatal(err)
	}
	sariftest.Validate(t, buf.Bytes())
	var log sarif.Log
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range log.Runs[0].Results {
		entry := r.RuleID + ":" + r.Level
		if len(r.Suppressions) > 0 {
			entry += ":suppressed " + r.Suppressions[0].Justification
		}
		got = append(got, entry)
	}
	want := []string{"suspend-committed:warning:suppressed migration window (.flux-chain.yaml)", "tier-not-built:warning", "tier-not-covered:warning", "object-undecoded:warning", "incomplete-forbidden:warning"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("results\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
