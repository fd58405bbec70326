package saferetire

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"time"

	"github.com/kubeforensics/suite/internal/charts"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/report"
)

// maxPullCharts bounds the charts one pull fetches: a repository is untrusted input.
const maxPullCharts = 500

// ChartsPullRequest is one `safe-retire charts pull`: the revisions whose declarations to pull, and
// where to.
type ChartsPullRequest struct {
	// Repo is a directory in the repository's git working tree.
	Repo string
	// Revisions are read for declarations ("" or none: the working tree).
	Revisions []string
	// TrustedRevision, when set, is the only revision whose source URLs are fetched from.
	TrustedRevision string
	// List only lists the declarations; nothing is fetched.
	List bool
	// NetworkTimeout bounds one request (an index, a tag list, a chart).
	NetworkTimeout time.Duration
	// Cache is the chart cache filled; nil with List.
	Cache *charts.Cache
	// Clock stamps the report; nil is the system clock.
	Clock report.Clock
	// Log receives progress; nil discards it.
	Log io.Writer
}

func (req *ChartsPullRequest) log() io.Writer {
	if req.Log == nil {
		return io.Discard
	}
	return req.Log
}

// PullCharts reads what each revision of req declares and pulls every chart into req.Cache (with
// req.List, only lists them), bounded per request by req.NetworkTimeout and in number by
// maxPullCharts. A chart that cannot be had is named in the result (UNKNOWN, exit 2).
func PullCharts(ctx context.Context, req ChartsPullRequest) (*ChartsPullResult, error) {
	repo, err := gitrev.OpenRepo(req.Repo)
	if err != nil {
		return nil, err
	}
	revs := req.Revisions
	if len(revs) == 0 {
		revs = []string{""}
	}
	res := &ChartsPullResult{Repo: repo.Dir, Charts: []charts.Pulled{}, Skipped: []charts.Skip{}}
	declared := map[string]*charts.Declared{}
	seen := map[string][]string{}
	for _, rev := range revs {
		scan, err := scanRevision(ctx, repo, rev)
		if err != nil {
			return nil, err
		}
		res.Revisions = append(res.Revisions, pullRevName(rev))
		res.Skipped = append(res.Skipped, scan.Skipped...)
		for _, d := range scan.Charts {
			id := charts.DeclaredID(d)
			if declared[id] == nil {
				dd := d
				declared[id] = &dd
			} else {
				declared[id].Files = mergeSorted(declared[id].Files, d.Files)
			}
			seen[id] = append(seen[id], pullRevName(rev))
		}
	}
	ids := make([]string, 0, len(declared))
	all := make([]charts.Declared, 0, len(declared))
	for id, d := range declared {
		ids = append(ids, id)
		all = append(all, *d)
	}
	sort.Slice(ids, func(i, j int) bool { return chartOrder(declared[ids[i]].Ref) < chartOrder(declared[ids[j]].Ref) })
	res.Key = charts.DeclaredKey(all)
	p := &charts.Puller{Cache: req.Cache, Timeout: req.NetworkTimeout}
	if req.TrustedRevision != "" && !req.List {
		scan, err := scanRevision(ctx, repo, req.TrustedRevision)
		if err != nil {
			return nil, err
		}
		p.Trusted, res.TrustedRevision = scan.URLs, req.TrustedRevision
	}
	for i, id := range ids {
		d := *declared[id]
		var pulled charts.Pulled
		switch {
		case req.List:
			pulled = charts.Pulled{Chart: d.Ref.Chart, Version: d.Ref.Version, Source: d.Ref.Source, URL: d.Ref.URL, Files: d.Files, Status: charts.PullDeclared}
		case i >= maxPullCharts:
			pulled = charts.Pulled{Chart: d.Ref.Chart, Version: d.Ref.Version, Source: d.Ref.Source, URL: d.Ref.URL, Files: d.Files,
				Status: charts.PullUnavailable, Reason: fmt.Sprintf("more than %d charts are declared: the rest are not pulled", maxPullCharts)}
		default:
			fmt.Fprintf(req.log(), "# pulling %s\n", output.Sanitize(d.Ref.String()))
			pulled = p.Pull(ctx, d)
		}
		pulled.Revisions = seen[id]
		res.Charts = append(res.Charts, pulled)
	}
	if req.Cache != nil {
		res.Cache = req.Cache.Dir()
	}
	res.finish(req.Clock, req.List)
	return res, nil
}

// scanRevision reads what rev (the working tree when "") declares.
func scanRevision(ctx context.Context, repo *gitrev.Repo, rev string) (*charts.Scan, error) {
	snap, err := repo.Snapshot(ctx, rev)
	if err != nil {
		return nil, err
	}
	scan, serr := charts.ScanDeclared(snap.Dir)
	if cerr := snap.Close(); cerr != nil && serr == nil {
		serr = cerr
	}
	if serr != nil {
		return nil, exitcode.WithCode(exitcode.Unknown, fmt.Errorf("%s: %w", pullRevName(rev), serr))
	}
	return scan, nil
}

func pullRevName(rev string) string {
	if rev == "" {
		return "(working tree)"
	}
	return rev
}

func chartOrder(r charts.Ref) string { return r.Chart + "\x00" + r.Source + "\x00" + r.Version }

func mergeSorted(a, b []string) []string {
	out := append([]string{}, a...)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}
