package chain

import (
	"fmt"
	"testing"

	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/lint"
	"github.com/kubeforensics/suite/internal/report"
)

// TestVerdictWithGaps checks that a failed read makes either result UNKNOWN, that a finding at
// --fail-on still wins over it in --repo mode, and that drill warnings alone do not.
func TestVerdictWithGaps(t *testing.T) {
	gap := []report.Gap{{Op: report.OpList, Subject: report.TypeID("gitrepositories.source.toolkit.fluxcd.io"), Reason: report.GapForbidden, What: "listing gitrepositories.source.toolkit.fluxcd.io", Error: "forbidden"}}
	finding := []lint.Finding{{Rule: "crd-order", Severity: lint.Error}}
	cases := []struct {
		name, want string
		finish     func() string
	}{
		{"live read failed", "UNKNOWN", func() string { r := &Result{Incomplete: gap}; r.finish(nil); return r.Verdict }},
		{"drill warning only", "HEALTHY", func() string {
			r := &Result{Unchecked: []report.Gap{{Op: report.OpDiscover, Reason: report.GapTimeout, What: "API discovery", Error: "timeout"}}}
			r.finish(nil)
			return r.Verdict
		}},
		{"controller down", "STALE", func() string {
			r := &Result{Liveness: &flux.Liveness{Checked: true, Controllers: []flux.Controller{{Name: "source-controller", Found: true}}}}
			r.finish(nil)
			return r.Verdict
		}},
		{"liveness not verified, otherwise healthy", "UNKNOWN", func() string {
			r := &Result{Liveness: &flux.Liveness{Unchecked: gap}}
			r.finish(nil)
			return r.Verdict
		}},
		{"liveness not verified, failing", "FAILING", func() string {
			r := &Result{Liveness: &flux.Liveness{Unchecked: gap}, Chain: flux.Chain{RootCauses: []flux.RootCause{{Kustomization: "a"}}}}
			r.finish(nil)
			return r.Verdict
		}},
		{"progressing", "PROGRESSING 0", func() string {
			r := &Result{Liveness: &flux.Liveness{Checked: true}, Chain: flux.Chain{Progressing: []flux.RootCause{{Kustomization: "a"}},
				Kustomizations: []*flux.Node{{ID: "a", State: flux.Progressing}}}}
			r.finish(nil)
			return fmt.Sprint(r.Verdict, " ", r.ExitCode)
		}},
		{"progressing, --fail-on-progressing", "PROGRESSING 1", func() string {
			r := &Result{Liveness: &flux.Liveness{Checked: true}, Chain: flux.Chain{Progressing: []flux.RootCause{{Kustomization: "a"}},
				Kustomizations: []*flux.Node{{ID: "a", State: flux.Progressing}}}}
			r.finish(nil)
			r.failOnProgressing(true)
			return fmt.Sprint(r.Verdict, " ", r.ExitCode)
		}},
		{"repo, live read failed", "UNKNOWN", func() string { r := &RepoResult{Incomplete: gap, FailOn: lint.Error}; r.finish(nil); return r.Verdict }},
		{"repo, a finding wins", "FINDINGS", func() string {
			r := &RepoResult{Incomplete: gap, Lint: finding, FailOn: lint.Error}
			r.finish(nil)
			return r.Verdict
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.finish(); got != c.want {
				t.Errorf("verdict %s, want %s", got, c.want)
			}
		})
	}
}

// The summaries count Kustomizations by state and lint findings by --fail-on.
func TestSummaries(t *testing.T) {
	r := &Result{Chain: flux.Chain{
		Tiers:          [][]string{{"a"}, {"b", "c"}},
		Kustomizations: []*flux.Node{{ID: "a", State: flux.Failing}, {ID: "b", State: flux.Waiting}, {ID: "c", State: flux.Ready}},
		RootCauses:     []flux.RootCause{{Kustomization: "a"}},
	}}
	r.finish(nil)
	if want := (Summary{Kustomizations: 3, Tiers: 2, Ready: 1, Failing: 1, Waiting: 1, RootCauses: 1}); r.Summary != want {
		t.Errorf("live summary %+v, want %+v", r.Summary, want)
	}
	if r.Reporter.Name != "flux-chain" || r.Timestamp == "" {
		t.Errorf("envelope %+v %q", r.Reporter, r.Timestamp)
	}
	rr := &RepoResult{FailOn: lint.Error, Lint: []lint.Finding{{Rule: "crd-order", Severity: lint.Error}, {Rule: "x", Severity: lint.Warning}},
		BuildFailures: []lint.BuildFailure{{}}, NotCovered: []report.Gap{{What: "t"}}}
	rr.finish(nil)
	if want := (RepoSummary{Findings: 2, Failing: 1, NotJudged: 2}); rr.Summary != want {
		t.Errorf("repo summary %+v, want %+v", rr.Summary, want)
	}
}
