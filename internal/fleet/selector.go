// Package fleet runs one plugin's read-only analysis over several kubeconfig contexts: it
// parses the context selection (--contexts, --all-contexts), reads the kubeconfig's contexts,
// gives each selected context its own connection flags, runs the contexts with bounded
// parallelism and a per-context timeout, and gathers one entry per context into a report
// envelope whose exit code is the worst of all. An unreachable, forbidden or timed-out context
// is an UNKNOWN entry naming the reason, never a failure of the run.
//
// Its boundary: it knows kubeconfig contexts, processes of many reads and the envelope; it
// knows nothing of what a plugin computes. A plugin hands it one function per context and a
// summary of its own Result.
package fleet

import (
	"regexp"
	"strings"

	"github.com/kubeforensics/suite/internal/exitcode"
)

// Selector chooses contexts by name. Its text form is the value of --contexts: patterns
// separated by commas, each an RE2 regular expression matched against the whole context name;
// a pattern that starts with `^` excludes what it matches. A context is selected when an
// inclusion matches it and no exclusion does. `prod-.*,^prod-legacy` selects every context
// starting with prod- except prod-legacy. A comma inside (), [] or {} or escaped as `\,` does
// not separate patterns, so `eu-[a-z]{2,3}` is one pattern.
type Selector struct {
	// Text is the selection as given: `--contexts=...` or `--all-contexts`.
	Text    string
	include []*regexp.Regexp
	exclude []*regexp.Regexp
	// included are the inclusion patterns as written, in the order of include.
	included []string
	all      bool
}

// All selects every context of the kubeconfig.
func All() *Selector {
	return &Selector{Text: "--all-contexts", all: true}
}

// ParseSelector parses the value of --contexts. Bad input (an empty pattern, a regular
// expression that does not compile, only exclusions) is a usage error (exit 3).
func ParseSelector(s string) (*Selector, error) {
	sel := &Selector{Text: "--contexts=" + s}
	parts := splitPatterns(s)
	for _, p := range parts {
		exclude := strings.HasPrefix(p, "^")
		body := strings.TrimPrefix(p, "^")
		if body == "" {
			return nil, exitcode.UsageErrorf("--contexts %q: an empty pattern (patterns are separated by commas; ^ starts an exclusion)", s)
		}
		re, err := regexp.Compile("^(?:" + body + ")$")
		if err != nil {
			return nil, exitcode.UsageErrorf("--contexts pattern %q: %w", p, err)
		}
		if exclude {
			sel.exclude = append(sel.exclude, re)
		} else {
			sel.include, sel.included = append(sel.include, re), append(sel.included, p)
		}
	}
	if len(sel.include) == 0 {
		// A leading ^ is an exclusion here, not a regexp anchor (every pattern is anchored):
		// `^prod` alone would select nothing the operator meant.
		return nil, exitcode.UsageErrorf("--contexts %q has no inclusion: a pattern starting with ^ excludes (patterns always match the whole name); to select all but some, write '.*,^NAME'", s)
	}
	return sel, nil
}

// Match reports whether the context named name is selected.
func (s *Selector) Match(name string) bool {
	if s.all {
		return true
	}
	for _, re := range s.exclude {
		if re.MatchString(name) {
			return false
		}
	}
	for _, re := range s.include {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

// Unmatched returns the inclusion patterns that select none of names: most likely a typo the
// operator should hear about.
func (s *Selector) Unmatched(names []string) []string {
	var out []string
	for i, re := range s.include {
		hit := false
		for _, n := range names {
			hit = hit || re.MatchString(n)
		}
		if !hit {
			out = append(out, s.included[i])
		}
	}
	return out
}

// splitPatterns splits s at the commas that separate patterns: not inside (), [] or {}, and
// not escaped with a backslash (the backslash is dropped from `\,`).
func splitPatterns(s string) []string {
	var (
		out   []string
		cur   strings.Builder
		depth int
		class bool
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			if s[i+1] == ',' {
				cur.WriteByte(',')
			} else {
				cur.WriteByte(c)
				cur.WriteByte(s[i+1])
			}
			i++
			continue
		case class:
			class = c != ']'
		case c == '[':
			class = true
		case c == '(' || c == '{':
			depth++
		case (c == ')' || c == '}') && depth > 0:
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
			continue
		}
		cur.WriteByte(c)
	}
	return append(out, strings.TrimSpace(cur.String()))
}
