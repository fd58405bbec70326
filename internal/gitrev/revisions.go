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

// Revisions are the base and candidate of a comparison, each opened in the background once
// resolved (the tree listed, no file read or written; a candidate commit after the base, whose
// listing it reuses), so opening the base overlaps with reading the working tree.
type Revisions struct {
	Base, Candidate Revision
	// BaseHow says how the base was chosen.
	BaseHow string

	base, cand *pending
	cat        *catFile // resolves, lists and reads both revisions
}

// pending is a revision being opened.
type pending struct {
	ctx   context.Context
	rev   string
	files Files
	tree  *Tree // nil for the working tree
	err   error
	done  chan struct{}
}

// open starts reading rev, which cat resolved to commit ("" for both: the working tree), once
// after (if not nil) is open: its listing has read, through the same cat, the tree objects and
// blob sizes the two revisions share, which rev's listing then does not ask git for again.
func open(ctx context.Context, repo *Repo, cat *catFile, rev, commit string, after *pending) *pending {
	p := &pending{ctx: ctx, rev: rev, done: make(chan struct{})}
	if rev == "" {
		p.files = Disk(repo.Dir)
		close(p.done)
		return p
	}
	go func() {
		defer close(p.done)
		if after != nil {
			<-after.done
		}
		p.tree, p.err = repo.openTree(ctx, cat, false, rev, commit)
		if p.err == nil {
			p.files = p.tree
		}
	}()
	return p
}

// get waits for the revision and returns its files.
func (p *pending) get() (Files, error) {
	<-p.done
	if p.err != nil {
		return nil, exitcode.WithCode(exitcode.Of(p.err), fmt.Errorf("reading revision %q: %w", p.rev, p.err))
	}
	return p.files, nil
}

// dir waits for the revision, writes it out and returns its root.
func (p *pending) dir() (string, error) {
	f, err := p.get()
	if err != nil {
		return "", err
	}
	if err := f.OnDisk(p.ctx); err != nil {
		return "", exitcode.WithCode(exitcode.Of(err), fmt.Errorf("extracting revision %q: %w", p.rev, err))
	}
	return f.Root(), nil
}

// OpenRevisions resolves base and cand (base "" is the repository's default base, cand "" the
// working tree) and starts listing both; an unknown revision is bad input, reported before
// any work. One `git cat-file --batch-command` process resolves, lists and reads both; the
// candidate is listed after the base, asking git only for what the base's listing did not read.
// Cancelling ctx stops the reads (BaseFiles, CandidateFiles and later reads then fail). Close
// releases the revisions.
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
	r.cat = newCatFile(ctx, repo)
	fail := func(which, rev string, err error) (*Revisions, error) {
		r.cat.close()
		return nil, exitcode.WithCode(exitcode.Of(err), fmt.Errorf("%s revision %q: %w", which, rev, err))
	}
	var err error
	if r.Base.Commit, err = repo.resolveWith(ctx, r.cat, base); err != nil {
		return fail("base", base, err)
	}
	if cand != "" {
		if r.Candidate.Commit, err = repo.resolveWith(ctx, r.cat, cand); err != nil {
			return fail("candidate", cand, err)
		}
	}
	if r.Candidate.Commit == r.Base.Commit {
		r.cat.close()
		return nil, exitcode.UsageErrorf("--base %s and --candidate %s are the same commit %s: there is no change to judge", base, cand, shortCommit(r.Base.Commit))
	}
	r.base = open(ctx, repo, r.cat, base, r.Base.Commit, nil)
	r.cand = open(ctx, repo, r.cat, cand, r.Candidate.Commit, r.base)
	return r, nil
}

// BaseFiles waits for the base revision and returns its files, read from git's objects.
func (r *Revisions) BaseFiles() (Files, error) { return r.base.get() }

// CandidateFiles waits for the candidate revision and returns its files: the working tree
// on disk, or a commit read from git's objects.
func (r *Revisions) CandidateFiles() (Files, error) { return r.cand.get() }

// BaseDir waits for the base revision, writes it out (once) and returns its root, for a
// reader that needs the disk; BaseFiles reads it without writing.
func (r *Revisions) BaseDir() (string, error) { return r.base.dir() }

// CandidateDir is BaseDir for the candidate.
func (r *Revisions) CandidateDir() (string, error) { return r.cand.dir() }

// Close waits for both revisions and releases them, both at once: each removal of what was
// written out takes up to removeWait, and one after the other they would hold a stopped run
// twice as long.
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
			if p.tree != nil {
				_ = p.tree.Close()
			}
		}()
	}
	wg.Wait()
	if r.cat != nil {
		r.cat.close()
	}
}
