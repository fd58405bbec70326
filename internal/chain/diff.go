package chain

import (
	"context"
	"fmt"
	"strings"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/lint"
	"github.com/kubeforensics/suite/internal/sarif"
)

// The scopes of --fail-on: the findings the candidate adds over --base, or all of them.
const (
	FailOnNew = "new"
	FailOnAll = "all"
)

// RepoDiff is what a pull request changes in the lint (--base): the findings the candidate
// (the working tree) adds over the base revision, those it fixes, and how many of its findings
// the base has too. Findings are matched by their SARIF fingerprint (rule, file and what they
// are about, never a line), so moving lines neither adds nor fixes one.
type RepoDiff struct {
	// Base is the revision as given; BaseCommit the commit it resolved to.
	Base       string `json:"base"`
	BaseCommit string `json:"baseCommit"`
	// Added are the candidate's findings the base does not have; Fixed the base's findings
	// the candidate does not have.
	Added []lint.Finding `json:"added"`
	Fixed []lint.Finding `json:"fixed"`
	// Existing counts the candidate's findings the base has too (the rest of lint).
	Existing int `json:"existing"`
	// FailOn is which findings fail the run: new (the added ones) or all.
	FailOn string `json:"failOn"`
	// BaseNote says why the base had no chain to lint (every finding is then added); "" when
	// it had one.
	BaseNote string `json:"baseNote,omitempty"`

	// existing are the candidate's findings the base has too, for the printers.
	existing []lint.Finding
}

// Sentence is "this pull request adds N, fixes M; K were already there".
func (d *RepoDiff) Sentence() string {
	return fmt.Sprintf("this pull request adds %d, fixes %d; %d were already there", len(d.Added), len(d.Fixed), d.Existing)
}

// ExistingFindings are the candidate's findings the base has too.
func (d *RepoDiff) ExistingFindings() []lint.Finding { return d.existing }

// fingerprint is the finding's SARIF partialFingerprint (without the ":n" of a repeat).
func fingerprint(f lint.Finding) string {
	return sarif.Fingerprint(f.Rule, f.File, Identity(f))
}

// Identity is what a finding is about, for its SARIF fingerprint: its tiers, then its objects.
func Identity(f lint.Finding) string {
	return strings.Join(f.Tiers(), ",") + " " + strings.Join(Objects(f), ",")
}

// Objects are the objects a finding names: its list, else its one object.
func Objects(f lint.Finding) []string {
	if len(f.Objects) == 0 && f.Object != "" {
		return []string{f.Object}
	}
	return f.Objects
}

// diffFindings splits head's findings into added and existing by base's, and lists base's that
// head fixed. Equal fingerprints are matched one for one, so a second copy of a finding is added.
func diffFindings(base, head []lint.Finding) (added, existing, fixed []lint.Finding) {
	left := map[string]int{}
	for _, f := range base {
		left[fingerprint(f)]++
	}
	for _, f := range head {
		if fp := fingerprint(f); left[fp] > 0 {
			left[fp]--
			existing = append(existing, f)
			continue
		}
		added = append(added, f)
	}
	seen := map[string]int{}
	for _, f := range head {
		seen[fingerprint(f)]++
	}
	for _, f := range base {
		if fp := fingerprint(f); seen[fp] > 0 {
			seen[fp]--
			continue
		}
		fixed = append(fixed, f)
	}
	return nonNil(added), existing, nonNil(fixed)
}

func nonNil(fs []lint.Finding) []lint.Finding {
	if fs == nil {
		return []lint.Finding{}
	}
	return fs
}

// ParseFailOn reads --fail-on: a severity, a scope (new or all), or both as "new,warning".
// The scope is new with --base and all without; new without --base is bad input.
func ParseFailOn(v string, withBase bool) (lint.Severity, string, error) {
	sev, scope := lint.Error, FailOnAll
	if withBase {
		scope = FailOnNew
	}
	for _, part := range strings.Split(v, ",") {
		switch part = strings.TrimSpace(part); part {
		case "":
		case FailOnNew, FailOnAll:
			scope = part
		default:
			s, err := lint.ParseSeverity(part)
			if err != nil {
				return "", "", fmt.Errorf("unknown value %q: use new or all, error, warning or info, or both as new,warning", part)
			}
			sev = s
		}
	}
	if scope == FailOnNew && !withBase {
		return "", "", fmt.Errorf("new needs --base: without a base revision every finding is the candidate's")
	}
	return sev, scope, nil
}

// lintBase lints the base revision as the working tree was linted (same layout, entry path and
// settings) and sets res.Diff. A base without the entry path or without a Flux chain has no
// findings, and the diff says so.
func lintBase(ctx context.Context, r RepoRequest, res *RepoResult, s lint.Settings) error {
	snap, err := r.Repo.Snapshot(ctx, r.Base)
	if err != nil {
		return err
	}
	defer snap.Close()
	d := &RepoDiff{Base: r.Base, BaseCommit: snap.Commit, FailOn: r.FailScope}
	var base []lint.Finding
	l := r.Layout
	out, err := computeRepo(ctx, l.Dir(snap.Dir), snap.Dir, l.Entry, r.AllowNetwork, nil, s, r.Charts)
	switch {
	case exitcode.Of(err) == exitcode.Usage:
		d.BaseNote = "the base has no Flux chain at entry path " + l.Entry + ": " + err.Error()
	case err != nil:
		return fmt.Errorf("linting the base revision %s: %w", r.Base, err)
	default:
		for _, f := range out.Lint {
			f.File = l.FromTop(f.File)
			base = append(base, f)
		}
	}
	d.Added, d.existing, d.Fixed = diffFindings(base, res.Lint)
	d.Existing = len(d.existing)
	res.Diff = d
	return nil
}

// failing are the findings --fail-on counts: the added ones with --base and new, else all.
func (r *RepoResult) failing() []lint.Finding {
	if r.Diff != nil && r.Diff.FailOn == FailOnNew {
		return r.Diff.Added
	}
	return r.Lint
}
