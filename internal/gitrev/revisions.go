package gitrev

import (
	"context"
	"fmt"
	"sync"

	"github.com/kubeforensics/suite/internal/exitcode"
)

// Revision is one side of a comparison of two revisions of a repository.
type Revision struct {
	// Rev is the revision as given ("" for the working tree); Commit what it resolved to.
	Rev    string `json:"rev,omitempty"`
	Commit string `json:"commit,omitempty"`
}

// String names the revision for people.
func (r Revision) String() string {
	switch {
	case r.Rev == "" && r.Commit == "":
		return "the working tree"
	case r.Commit == "" || r.Commit == r.Rev:
		return r.Rev
	}
	return r.Rev + " (" + shortCommit(r.Commit) + ")"
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// Revisions are the base and candidate of a comparison, each extracted in the background as
// soon as it is resolved, so extracting the base overlaps with building the working tree.
type Revisions struct {
	Base, Candidate Revision
	// BaseHow says how the base was chosen.
	BaseHow string

	base, cand *pending
}

// pending is a snapshot being extracted.
type pending struct {
	rev  string
	snap *Snapshot
	err  error
	done chan struct{}
}

func extract(ctx context.Context, repo *Repo, rev string) *pending {
	p := &pending{rev: rev, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.snap, p.err = repo.Snapshot(ctx, rev)
	}()
	return p
}

// dir waits for the snapshot and returns its root.
func (p *pending) dir() (string, error) {
	<-p.done
	if p.err != nil {
		return "", exitcode.WithCode(exitcode.Of(p.err), fmt.Errorf("extracting revision %q: %w", p.rev, p.err))
	}
	return p.snap.Dir, nil
}

// OpenRevisions resolves base and cand (base "" is the repository's default base, cand "" the
// working tree) and starts extracting both; an unknown revision is bad input, reported before
// any work. Cancelling ctx stops the extractions (BaseDir and CandidateDir then fail). Close
// releases the snapshots.
func OpenRevisions(ctx context.Context, repo *Repo, base, cand string) (*Revisions, error) {
	r := &Revisions{BaseHow: "given with --base"}
	if base == "" {
		rev, how, err := repo.DefaultBase(ctx)
		if err != nil {
			return nil, err
		}
		base, r.BaseHow = rev, how
	}
	r.Base, r.Candidate = Revision{Rev: base}, Revision{Rev: cand}
	var err error
	if r.Base.Commit, err = repo.Resolve(ctx, base); err != nil {
		return nil, exitcode.WithCode(exitcode.Of(err), fmt.Errorf("base revision %q: %w", base, err))
	}
	if cand != "" {
		if r.Candidate.Commit, err = repo.Resolve(ctx, cand); err != nil {
			return nil, exitcode.WithCode(exitcode.Of(err), fmt.Errorf("candidate revision %q: %w", cand, err))
		}
	}
	if r.Candidate.Commit == r.Base.Commit {
		return nil, exitcode.UsageErrorf("--base %s and --candidate %s are the same commit %s: there is no change to judge", base, cand, shortCommit(r.Base.Commit))
	}
	r.base, r.cand = extract(ctx, repo, base), extract(ctx, repo, cand)
	return r, nil
}

// BaseDir waits for the base snapshot and returns its root.
func (r *Revisions) BaseDir() (string, error) { return r.base.dir() }

// CandidateDir waits for the candidate snapshot and returns its root.
func (r *Revisions) CandidateDir() (string, error) { return r.cand.dir() }

// Close waits for both extractions and removes the snapshots, both at once: each removal
// takes up to removeWait, and one after the other they would hold a stopped run twice as long.
func (r *Revisions) Close() {
	var wg sync.WaitGroup
	for _, p := range []*pending{r.base, r.cand} {
		if p == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-p.done
			if p.snap != nil {
				_ = p.snap.Close()
			}
		}()
	}
	wg.Wait()
}
