package lint

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Severity ranks a finding: error breaks convergence, warning makes an outage likely or
// silent, info is advice.
type Severity string

// The severities, most severe first.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Info    Severity = "info"
)

// Rank orders severities: error 3, warning 2, info 1, anything else 0.
func (s Severity) Rank() int {
	switch s {
	case Error:
		return 3
	case Warning:
		return 2
	case Info:
		return 1
	}
	return 0
}

// ParseSeverity reads a --fail-on value.
func ParseSeverity(s string) (Severity, error) {
	switch Severity(s) {
	case Error, Warning, Info:
		return Severity(s), nil
	}
	return "", fmt.Errorf("unknown severity %q: use error, warning or info", s)
}

// Rule is one check of the chain.
type Rule struct {
	ID       string
	Severity Severity
	// Why is the failure the rule prevents, in one line; Fix is the change that removes it.
	Why, Fix string
	// check finds the rule's failures in a repository, with the settings of the run.
	check func(*Repo, Rule, Settings) []Finding
}

// Finding is one place where a rule fails.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// Kustomization is the tier (namespace/name) the finding is about; "" for the entry path.
	Kustomization string `json:"kustomization,omitempty"`
	// Kustomizations lists every tier with the same finding when one cause (a component or
	// file several tiers include) yields it in more than one; Kustomization is the first.
	Kustomizations []string `json:"kustomizations,omitempty"`
	// Object is the object at fault as "Kind namespace/name"; Objects lists every object
	// when one cause yields the finding for several (Object is then the first reported).
	Object  string   `json:"object,omitempty"`
	Objects []string `json:"objects,omitempty"`
	// File and Line are where the finding is fixed (repo-relative, 1-based); Line is 0 when
	// the object could not be located in the file.
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
	Why     string `json:"why"`
	Fix     string `json:"fix"`
	// Suppressed is set on the findings a suppression silenced.
	Suppressed *Suppressed `json:"suppressed,omitempty"`
}

// Location is "file:line", "file" or "".
func (f Finding) Location() string {
	switch {
	case f.File == "":
		return ""
	case f.Line > 0:
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return f.File
}

// Tiers are the tiers the finding is about: Kustomizations, else Kustomization ("" for the
// entry path).
func (f Finding) Tiers() []string {
	if len(f.Kustomizations) > 0 {
		return f.Kustomizations
	}
	return []string{f.Kustomization}
}

// Rules returns every rule in documentation order.
func Rules() []Rule {
	return []Rule{
		ruleCRDOrder, ruleTimeout, ruleSubstitution, ruleSOPS, ruleSuspend, ruleSourceDeadlock,
		ruleRemoteBase, ruleDependsOnParent, ruleHealthCheckDownstream, ruleDriftCNI, ruleLeafInGate,
		ruleDependencies,
		ruleLiveNotInCluster, ruleLiveNotInRepo, ruleLiveSpecDrift, ruleLiveCRDOutsideGit,
	}
}

// Run applies every rule, without settings or suppressions, and returns the findings sorted
// by severity, file, line and rule (see Check).
func Run(r *Repo) []Finding {
	out := runRules(r, Settings{})
	sortFindings(out)
	return out
}

func runRules(r *Repo, s Settings) []Finding {
	out := []Finding{}
	for _, rule := range Rules() {
		out = append(out, rule.check(r, rule, s)...)
	}
	return out
}

// sortFindings orders findings by severity (most severe first), file, line, rule and message.
func sortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(b.Severity.Rank(), a.Severity.Rank()),
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Message, b.Message))
	})
}

// AtLeast counts the findings at or above severity min.
func AtLeast(fs []Finding, min Severity) int {
	n := 0
	for _, f := range fs {
		if f.Severity.Rank() >= min.Rank() {
			n++
		}
	}
	return n
}

// finding fills a finding from its rule; the location comes from the tier's files.
func (rule Rule) finding(ks, object, file string, line int, format string, args ...any) Finding {
	return Finding{Rule: rule.ID, Severity: rule.Severity, Kustomization: ks, Object: object,
		File: file, Line: line, Message: fmt.Sprintf(format, args...), Why: rule.Why, Fix: rule.Fix}
}

// joinSorted is a sorted, comma-separated list.
func joinSorted(items []string) string {
	return strings.Join(slices.Sorted(slices.Values(items)), ", ")
}
