package fluxchain

import (
	"testing"

	"github.com/kubeforensics/suite/internal/lint"
	"github.com/kubeforensics/suite/internal/output"
)

// TestVerdictWithGaps checks that a failed read makes either result UNKNOWN, that a finding at
// --fail-on still wins over it in --repo mode, and that drill warnings alone do not.
func TestVerdictWithGaps(t *testing.T) {
	gap := []output.Gap{{What: "listing gitrepositories.source.toolkit.fluxcd.io", Reason: "forbidden"}}
	finding := []lint.Finding{{Rule: "crd-order", Severity: lint.Error}}
	cases := []struct {
		name, want string
		finish     func() string
	}{
		{"live read failed", "UNKNOWN", func() string { r := &Result{Incomplete: gap}; r.finish(nil); return r.Verdict }},
		{"drill warning only", "HEALTHY", func() string {
			r := &Result{Warnings: []string{"API discovery: timeout"}}
			r.finish(nil)
			return r.Verdict
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
