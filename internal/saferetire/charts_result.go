package saferetire

import (
	"github.com/kubeforensics/suite/internal/charts"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/report"
)

// ChartsPullResult is what one `safe-retire charts pull` did: the charts the revisions declare
// and what pulling each came to, the HelmReleases whose chart the files do not name, and the key
// of a CI cache that holds them.
type ChartsPullResult struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	report.Envelope
	Summary ChartsPullSummary `json:"summary"`
	// Repo is the repository's top; Revisions those read ("(working tree)" for the checkout).
	Repo      string   `json:"repo"`
	Revisions []string `json:"revisions"`
	// TrustedRevision, when set, is the revision whose source URLs alone were fetched from.
	TrustedRevision string `json:"trustedRevision,omitempty"`
	// Cache is the chart cache filled ("" with --list).
	Cache string `json:"cache,omitempty"`
	// Key digests the charts declared (source, chart, version as written): an actions/cache key.
	Key     string          `json:"key"`
	Charts  []charts.Pulled `json:"charts"`
	Skipped []charts.Skip   `json:"skipped"`
	// Verdict is PULLED (every chart had), LISTED (--list) or UNKNOWN (a chart unavailable or
	// refused); ExitCode maps it: 0, 0, 2.
	Verdict  string `json:"verdict"`
	ExitCode int    `json:"exitCode"`
}

// ChartsPullSummary counts the charts by what pulling them came to.
type ChartsPullSummary struct {
	Declared    int `json:"declared"`
	Downloaded  int `json:"downloaded"`
	Cached      int `json:"cached"`
	Unavailable int `json:"unavailable"`
	Refused     int `json:"refused"`
	Skipped     int `json:"skipped"`
}

func (r *ChartsPullResult) finish(clock report.Clock, listOnly bool) {
	r.APIVersion, r.Kind = chartsAPIVersion, "ChartsPullResult"
	r.Sign(toolName)
	r.Stamp(clock.Now())
	s := ChartsPullSummary{Declared: len(r.Charts), Skipped: len(r.Skipped)}
	for _, c := range r.Charts {
		switch c.Status {
		case charts.PullDownloaded:
			s.Downloaded++
		case charts.PullCached:
			s.Cached++
		case charts.PullUnavailable:
			s.Unavailable++
		case charts.PullRefused:
			s.Refused++
		}
	}
	r.Summary = s
	r.Verdict, r.ExitCode = "PULLED", int(exitcode.OK)
	switch {
	case s.Unavailable+s.Refused > 0:
		r.Verdict, r.ExitCode = "UNKNOWN", int(exitcode.Unknown)
	case listOnly:
		r.Verdict = "LISTED"
	}
}
