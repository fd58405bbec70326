package sarif

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// Limits bound a log to what code scanning accepts. GitHub's (docs "SARIF results exceed one or
// more limits" and "SARIF file is too large"): 25,000 results per run, 10 MB per gzip-compressed
// upload, 20 runs per file and 1,000 locations per result; the writer makes one run with one
// location per result, so only the first two can be reached.
type Limits struct {
	// Results is the most results a run may hold.
	Results int
	// GzipBytes is the most bytes the log may take gzip-compressed.
	GzipBytes int
}

// DefaultLimits are GitHub code scanning's.
var DefaultLimits = Limits{Results: 25000, GzipBytes: 10 << 20}

// Write writes r as an indented SARIF 2.1.0 log. Results beyond the limits are left out, the
// least severe first (notes, then warnings, then errors; suppressed ones before any), and the
// run's invocation says how many of each and why, as a warning notification: a log that
// was cut never looks complete.
func Write(w io.Writer, r Report) error {
	lim := r.Limits
	if lim.Results <= 0 {
		lim.Results = DefaultLimits.Results
	}
	if lim.GzipBytes <= 0 {
		lim.GzipBytes = DefaultLimits.GzipBytes
	}
	log, err := r.log()
	if err != nil {
		return err
	}
	run := &log.Runs[0]
	all := run.Results
	order := priority(all)
	keep := min(len(all), lim.Results)
	var b []byte
	for {
		run.Results = kept(all, order, keep)
		run.Invocations[0].ToolExecutionNotifications = leftOut(all, order, keep, lim)
		if b, err = json.MarshalIndent(log, "", "  "); err != nil {
			return fmt.Errorf("encoding sarif: %w", err)
		}
		size, err := gzipSize(b)
		if err != nil {
			return err
		}
		if size <= lim.GzipBytes {
			break
		}
		if keep == 0 {
			return fmt.Errorf("sarif: the log takes %d bytes gzip-compressed without any result, over the limit of %d", size, lim.GzipBytes)
		}
		keep /= 2
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// priority orders result indexes most important first: errors, warnings, notes; a suppressed
// result after every standing one; ties in their given order.
func priority(rs []Result) []int {
	rank := func(r Result) int {
		n := map[string]int{Error: 0, Warning: 1, Note: 2}[r.Level]
		if len(r.Suppressions) > 0 {
			n += 3
		}
		return n
	}
	order := make([]int, len(rs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return rank(rs[a]) - rank(rs[b]) })
	return order
}

// kept are the first keep results by priority, in their given order.
func kept(rs []Result, order []int, keep int) []Result {
	idx := slices.Clone(order[:keep])
	slices.Sort(idx)
	out := make([]Result, 0, keep)
	for _, i := range idx {
		out = append(out, rs[i])
	}
	return out
}

// leftOut is the notification naming what was not kept, nil when everything was.
func leftOut(rs []Result, order []int, keep int, lim Limits) []Notification {
	if keep == len(rs) {
		return nil
	}
	count := map[string]int{}
	for _, i := range order[keep:] {
		count[rs[i].Level]++
	}
	why := fmt.Sprintf("at most %d results per run", lim.Results)
	if keep < lim.Results {
		why = fmt.Sprintf("at most %d bytes gzip-compressed", lim.GzipBytes)
	}
	text := fmt.Sprintf("%d of %d results were left out to keep within code scanning's limits (%s): %d error, %d warning, %d note; the tool's json output has them all.",
		len(rs)-keep, len(rs), why, count[Error], count[Warning], count[Note])
	return []Notification{{Level: Warning, Message: Message{Text: text}}}
}

func gzipSize(b []byte) (int, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		return 0, fmt.Errorf("compressing sarif: %w", err)
	}
	if err := zw.Close(); err != nil {
		return 0, fmt.Errorf("compressing sarif: %w", err)
	}
	return buf.Len(), nil
}
