package saferetire

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kubeforensics/suite/internal/cache"
)

// The records of reviewed plans let a refused --confirm name what changed: a digest alone
// cannot. A record is the plan's canonical encoding, stored under its digest; it is believed
// only when its bytes hash to the digest asked for, so a record cannot misstate what was
// reviewed, whoever wrote the directory. A record that is missing (a dry run on another
// machine) only makes the refusal less specific.
const (
	// maxPlanRecordBytes bounds a record read back.
	maxPlanRecordBytes = 4 << 20
	// planRecordAge is how long a record is kept.
	planRecordAge = 7 * 24 * time.Hour
)

// DefaultPlanDir is kubeforensics/plans under $XDG_CACHE_HOME, else ~/.cache; "" without an
// absolute one.
func DefaultPlanDir(getenv func(string) string) string { return cache.Dir(getenv, cache.Plans) }

// planRecords names the records in their errors.
const planRecords = "plan records"

// recordPlan stores p's encoding b under digest in dir (mode 0600), and removes records older
// than planRecordAge.
func recordPlan(dir, digest string, b []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("plan records: %w", err)
	}
	if err := cache.CheckDir(planRecords, dir); err != nil {
		return err // a directory others may write is not written to, as the other caches
	}
	tmp, err := os.CreateTemp(dir, ".plan-*")
	if err != nil {
		return fmt.Errorf("plan records: %w", err)
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), recordPath(dir, digest))
	}
	if werr != nil {
		return errors.Join(fmt.Errorf("plan records: %w", werr), os.Remove(tmp.Name()))
	}
	return expirePlans(dir, time.Now().Add(-planRecordAge))
}

// expirePlans removes the records in dir last written before cutoff.
func expirePlans(dir string, cutoff time.Time) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("plan records: %w", err)
	}
	var errs []error
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || !strings.HasSuffix(e.Name(), ".json") || !info.ModTime().Before(cutoff) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func recordPath(dir, digest string) string {
	return filepath.Join(dir, strings.TrimPrefix(digest, "sha256:")+".json")
}

// reviewedPlan reads the record of digest from dir; ok is false when there is none that hashes
// to digest.
func reviewedPlan(dir, digest string) (p LivePlan, ok bool) {
	if dir == "" {
		return LivePlan{}, false
	}
	path := recordPath(dir, digest)
	if cache.CheckDir(planRecords, dir) != nil {
		return LivePlan{}, false
	}
	if info, err := os.Lstat(path); err != nil || cache.CheckFile(planRecords, info, path) != nil {
		return LivePlan{}, false
	}
	f, err := os.Open(path)
	if err != nil {
		return LivePlan{}, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPlanRecordBytes))
	if err != nil || digestOf(b) != digest {
		return LivePlan{}, false
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return LivePlan{}, false
	}
	return p, true
}

// planChanges names what differs between the plan reviewed and the plan now, most telling
// first; at most a few, then how many more.
func planChanges(was, now LivePlan) []string {
	var out []string
	if was.Context != now.Context || was.Server != now.Server {
		out = append(out, fmt.Sprintf("the connection is context %q (%s) now, was context %q (%s)", now.Context, now.Server, was.Context, was.Server))
	}
	if was.Base != now.Base {
		out = append(out, fmt.Sprintf("the base is commit %s now, was %s", orNone(now.Base), orNone(was.Base)))
	}
	if was.Candidate != now.Candidate {
		out = append(out, fmt.Sprintf("the candidate is %s now, was %s", revName(now.Candidate), revName(was.Candidate)))
	}
	out = append(out, objectChanges(was.Objects, now.Objects)...)
	if len(out) == 0 {
		out = append(out, stepChanges(was.Steps, now.Steps)...)
	}
	const most = 5
	if len(out) > most {
		out = append(out[:most], fmt.Sprintf("%d more change(s)", len(out)-most))
	}
	return out
}

func objectChanges(was, now []PlanObject) []string {
	before := map[string]PlanObject{}
	for _, o := range was {
		before[o.Object] = o
	}
	var out []string
	inNow := map[string]bool{}
	for _, o := range now {
		inNow[o.Object] = true
		b, ok := before[o.Object]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s is new in the plan", o.Object))
		case o.UID == "" && b.UID != "":
			out = append(out, fmt.Sprintf("%s no longer exists", o.Object))
		case o.UID != b.UID:
			out = append(out, fmt.Sprintf("%s was replaced: UID %s now, was %s", o.Object, orNone(o.UID), orNone(b.UID)))
		case o.ResourceVersion != b.ResourceVersion:
			out = append(out, fmt.Sprintf("%s changed: resourceVersion %s now, was %s", o.Object, o.ResourceVersion, b.ResourceVersion))
		}
	}
	for _, o := range was {
		if !inNow[o.Object] {
			out = append(out, fmt.Sprintf("%s is no longer in the plan", o.Object))
		}
	}
	return out
}

func stepChanges(was, now []PlanStep) []string {
	for i := 0; i < len(was) && i < len(now); i++ {
		if was[i] != now[i] {
			return []string{fmt.Sprintf("step %d is now %q (%s), was %q (%s)", i+1, now[i].Step, now[i].Command, was[i].Step, was[i].Command)}
		}
	}
	if len(was) != len(now) {
		return []string{fmt.Sprintf("the plan has %d step(s) now, had %d", len(now), len(was))}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func revName(commit string) string {
	if commit == "" {
		return "the working tree"
	}
	return "commit " + commit
}
