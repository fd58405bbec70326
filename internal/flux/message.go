package flux

import (
	"regexp"
	"strings"
)

// Failure is what a Kustomization's Ready message says about why it fails, parsed from the
// formats kustomize-controller v1.9 writes:
//
//	health check failed after <dur>: timeout waiting for: [<item>, …]
//	health check failed after <dur>: failed early due to stalled resources: [<item>, …]
//	… no matches for kind "X" in version "group/v1" …
//	dependency 'ns/name' is not ready
//	dependency 'ns/name' revision is not up to date
//	dependency 'ns/name' is not ready according to readyExpr eval
//
// where an item is `Kind/ns/name status: '<kstatus>'[: <error>]` (no ns part when
// cluster-scoped) or `can't determine status for Kind/ns/name`. Anything else leaves every
// field empty: the raw message is always kept by the caller.
type Failure struct {
	// After is the duration of the health check, as printed (`20m0.036985668s`).
	After string `json:"after,omitempty"`
	// Mode is "timeout" or "stalled" for a health-check failure.
	Mode    string       `json:"mode,omitempty"`
	Objects []ObjectItem `json:"objects,omitempty"`
	// MissingKinds are kinds the API server did not know when the tier was applied.
	MissingKinds []MissingKind `json:"missingKinds,omitempty"`
	// Dependency and DependencyRevision are set for the two dependency messages.
	Dependency         string `json:"dependency,omitempty"`
	DependencyRevision bool   `json:"dependencyRevision,omitempty"`
	// ReadyExpr is set when the dependency failed the dependent's readyExpr (Flux 2.7+).
	ReadyExpr bool `json:"readyExpr,omitempty"`
}

// ObjectItem is one object a health check named.
type ObjectItem struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Status is the kstatus the controller last saw (InProgress, Failed, Terminating, NotFound,
	// Unknown); empty when it could not determine one.
	Status string `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
}

// MissingKind is a `no matches for kind` error: a custom resource applied before its CRD.
type MissingKind struct {
	Kind    string `json:"kind"`
	Version string `json:"version,omitempty"`
}

var (
	healthRe = regexp.MustCompile(`^health check failed after (\S+): (timeout waiting for|failed early due to stalled resources): \[(.*)\]$`)
	// itemStartRe finds where each item begins; an item's error may itself contain ", ".
	itemStartRe   = regexp.MustCompile(`(?:^|, )(?:can't determine status for )?[A-Za-z][A-Za-z0-9]*/[^\s/]+(?:/[^\s/]+)? status: '|(?:^|, )can't determine status for `)
	itemRe        = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9]*)/([^\s/]+)(?:/([^\s/]+))? status: '([^']*)'(?:: (.*))?$`)
	undeterminedR = regexp.MustCompile(`^can't determine status for ([A-Za-z][A-Za-z0-9]*)/([^\s/]+)(?:/([^\s/,]+))?$`)
	noMatchRe     = regexp.MustCompile(`no matches for kind "([^"]+)"(?: in version "([^"]*)")?`)
	dependencyRe  = regexp.MustCompile(`^dependency '([^']+)' (is not ready according to readyExpr eval|is not ready|revision is not up to date)`)
)

// ParseFailure parses a Ready=False message. It never fails: unknown text yields a zero Failure.
func ParseFailure(msg string) Failure {
	var f Failure
	msg = strings.TrimSpace(msg)
	if m := healthRe.FindStringSubmatch(msg); m != nil {
		f.After = m[1]
		f.Mode = "timeout"
		if strings.HasPrefix(m[2], "failed early") {
			f.Mode = "stalled"
		}
		f.Objects = parseItems(m[3])
	}
	seen := map[MissingKind]bool{}
	for _, m := range noMatchRe.FindAllStringSubmatch(msg, -1) {
		mk := MissingKind{Kind: m[1], Version: m[2]}
		if !seen[mk] {
			seen[mk] = true
			f.MissingKinds = append(f.MissingKinds, mk)
		}
	}
	if m := dependencyRe.FindStringSubmatch(msg); m != nil {
		f.Dependency = m[1]
		f.DependencyRevision = strings.HasPrefix(m[2], "revision")
		f.ReadyExpr = strings.HasSuffix(m[2], "readyExpr eval")
	}
	return f
}

// parseItems splits the bracketed list at the start of each item and parses every piece.
func parseItems(list string) []ObjectItem {
	starts := itemStartRe.FindAllStringIndex(list, -1)
	var items []ObjectItem
	for i, s := range starts {
		from := s[0]
		if strings.HasPrefix(list[from:], ", ") {
			from += 2
		}
		to := len(list)
		if i+1 < len(starts) {
			to = starts[i+1][0]
		}
		if it, ok := parseItem(list[from:to]); ok {
			items = append(items, it)
		}
	}
	return items
}

// parseItem reads one `Kind/ns/name status: 'S'[: err]` or `can't determine status for …`.
func parseItem(s string) (ObjectItem, bool) {
	if m := undeterminedR.FindStringSubmatch(s); m != nil {
		return splitRef(m[1], m[2], m[3], ""), true
	}
	m := itemRe.FindStringSubmatch(s)
	if m == nil {
		return ObjectItem{}, false
	}
	it := splitRef(m[1], m[2], m[3], m[4])
	it.Error = m[5]
	return it, true
}

// splitRef builds an item from Kind/a[/b]: two parts are ns/name, one is a cluster-scoped name.
func splitRef(kind, a, b, status string) ObjectItem {
	if b == "" {
		return ObjectItem{Kind: kind, Name: a, Status: status}
	}
	return ObjectItem{Kind: kind, Namespace: a, Name: b, Status: status}
}

// Ref renders the item the way the controller does, `Kind/ns/name`.
func (o ObjectItem) Ref() string {
	if o.Namespace == "" {
		return o.Kind + "/" + o.Name
	}
	return o.Kind + "/" + o.Namespace + "/" + o.Name
}
