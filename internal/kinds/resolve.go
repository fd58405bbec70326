package kinds

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/exitcode"
)

// Resolution is the outcome of resolving one input: the resource, plus the same-named resources
// of other groups that the core group shadowed (`pods` also answers in metrics.k8s.io).
type Resolution struct {
	Resource Resource   `json:"resource"`
	Shadowed []Resource `json:"shadowed,omitempty"`
}

// Resolve maps what an operator typed to exactly one resource.
//
// Accepted spellings: plural, singular, kind (any case) or short name, each optionally
// qualified by group (`backups.velero.io`, `backup.velero.io`) or by version and group
// (`Backup.v1.velero.io`, `backups.v1.velero.io`). A bare name that several groups serve is
// refused with an *AmbiguousError, except that the core group wins over others, as kubectl
// has always done for `pods` and `events`; the shadowed candidates are reported.
// An unknown name yields an *UnknownKindError with the closest spellings.
func (c *Catalog) Resolve(input string) (Resolution, error) {
	in := strings.TrimSpace(input)
	if in == "" || strings.ContainsAny(in, "/ _") {
		return Resolution{}, exitcode.UsageErrorf("%q is not a resource type", input)
	}
	head, qual, qualified := strings.Cut(in, ".")
	head = strings.ToLower(head)
	var matches []Resource
	for _, r := range c.resources {
		if !matchesName(r, head) {
			continue
		}
		if qualified && qual != r.Group && qual != r.Version+"."+r.Group {
			continue
		}
		matches = append(matches, r)
	}
	// One candidate per group and resource; a version qualifier already narrowed the version,
	// otherwise the first entry (the preferred version) stands for the group.
	byGR := map[schema.GroupResource]Resource{}
	var order []schema.GroupResource
	for _, r := range matches {
		gr := schema.GroupResource{Group: r.Group, Resource: r.Resource}
		if _, ok := byGR[gr]; !ok {
			byGR[gr] = r
			order = append(order, gr)
		}
	}
	cands := make([]Resource, 0, len(order))
	for _, gr := range order {
		cands = append(cands, byGR[gr])
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].QualifiedName() < cands[j].QualifiedName() })
	switch {
	case len(cands) == 1:
		return Resolution{Resource: cands[0]}, nil
	case len(cands) == 0:
		return Resolution{}, c.unknown(in)
	}
	if !qualified {
		if core, rest, ok := splitCore(cands); ok {
			return Resolution{Resource: core, Shadowed: rest}, nil
		}
	}
	amb := &AmbiguousError{Input: in}
	for _, r := range cands {
		amb.Candidates = append(amb.Candidates, Candidate{Resource: r})
	}
	return Resolution{}, amb
}

func matchesName(r Resource, name string) bool {
	for _, n := range r.names() {
		if n == name {
			return true
		}
	}
	return false
}

// splitCore returns the single core-group candidate and the others, if there is exactly one.
func splitCore(cands []Resource) (Resource, []Resource, bool) {
	var core []Resource
	var rest []Resource
	for _, r := range cands {
		if r.Group == "" {
			core = append(core, r)
		} else {
			rest = append(rest, r)
		}
	}
	if len(core) != 1 {
		return Resource{}, nil, false
	}
	return core[0], rest, true
}

// ResolveGroupKind resolves a group and kind, as an ownerReference or a Flux inventory id
// names them, to the preferred resource serving it.
func (c *Catalog) ResolveGroupKind(gk schema.GroupKind) (Resource, error) {
	if r, ok := c.ForGroupKind(gk); ok {
		return r, nil
	}
	if c.GroupFailed(gk.Group) {
		return Resource{}, exitcode.UnknownErrorf("kind %s: discovery of group %q failed, so it cannot be resolved", gk, gk.Group)
	}
	return Resource{}, exitcode.UsageErrorf("the server does not serve kind %s", gk)
}

// Candidate is one of the resources an ambiguous name could mean, with how many objects it
// holds in the scope of the command (nil when the count could not be read).
type Candidate struct {
	Resource Resource `json:"resource"`
	Count    *int     `json:"count,omitempty"`
	CountErr string   `json:"countError,omitempty"`
}

// AmbiguousError refuses a name that several groups serve. It is bad input (exit 3).
type AmbiguousError struct {
	Input      string      `json:"input"`
	Scope      string      `json:"scope,omitempty"`
	Candidates []Candidate `json:"candidates"`
}

// Error lists every candidate fully qualified, with its object count when known.
func (e *AmbiguousError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q is ambiguous: %d resource types answer to it; name one fully qualified:", e.Input, len(e.Candidates))
	width := 0
	for _, c := range e.Candidates {
		width = max(width, len(c.Resource.QualifiedName()))
	}
	for _, c := range e.Candidates {
		fmt.Fprintf(&b, "\n  %-*s  %s", width, c.Resource.QualifiedName(), c.describeCount(e.Scope))
	}
	return b.String()
}

func (c Candidate) describeCount(scope string) string {
	kind := c.Resource.Kind + "." + c.Resource.Version
	if c.Resource.Group != "" {
		kind += "." + c.Resource.Group
	}
	switch {
	case c.Count != nil && scope != "":
		return fmt.Sprintf("%5d objects %s  (kind %s)", *c.Count, scope, kind)
	case c.CountErr != "":
		return fmt.Sprintf("count unknown: %s  (kind %s)", c.CountErr, kind)
	}
	return "(kind " + kind + ")"
}

// Unwrap makes the refusal bad input (exit 3) for package exitcode.
func (e *AmbiguousError) Unwrap() error { return exitcode.WithCode(exitcode.Usage, nil) }

// UnknownKindError reports a name no discovered resource answers to.
type UnknownKindError struct {
	Input       string   `json:"input"`
	Suggestions []string `json:"suggestions,omitempty"`
	// FailedGroups are groups whose discovery failed: the kind may live there.
	FailedGroups []string `json:"failedGroups,omitempty"`
}

// Error names the input, the closest spellings and any groups that could not be discovered.
func (e *UnknownKindError) Error() string {
	msg := fmt.Sprintf("the server has no resource type %q", e.Input)
	if len(e.Suggestions) > 0 {
		msg += "; did you mean " + strings.Join(e.Suggestions, ", ") + "?"
	}
	if len(e.FailedGroups) > 0 {
		msg += fmt.Sprintf(" (discovery failed for %s, so it may be served there)", strings.Join(e.FailedGroups, ", "))
	}
	return msg
}

// Unwrap maps an unknown kind to bad input, or to UNKNOWN when some discovery failed and the
// kind might be served by a group that could not be read.
func (e *UnknownKindError) Unwrap() error {
	if len(e.FailedGroups) > 0 {
		return exitcode.WithCode(exitcode.Unknown, nil)
	}
	return exitcode.WithCode(exitcode.Usage, nil)
}

func (c *Catalog) unknown(in string) error {
	e := &UnknownKindError{Input: in, Suggestions: c.closest(strings.ToLower(in), 3)}
	for _, f := range c.Failed {
		e.FailedGroups = append(e.FailedGroups, f.GroupVersion)
	}
	return e
}
