package finalizers

import (
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// ReasonReadyOrRemoveAwaited is the step that brings back to ready the object the stuck
// object's controller waits for, or deletes it when what it stands for is gone for good.
const ReasonReadyOrRemoveAwaited report.Reason = "ready-or-remove-awaited"

// Bounds of the awaited-names rule.
const (
	// maxAwaitedLookups bounds the reads that resolve names the object records and awaits.
	maxAwaitedLookups = 8
	// maxNamesWalk bounds the spec fields visited for lists of names.
	maxNamesWalk = 2000
)

// recordedName is one name the stuck object records in a list of names in its spec
// (`placement.clusterNames: [c1]`, `clusters: [{name: c1}]`), with the stem of the list's field
// (`cluster`): what kind of thing the names are.
type recordedName struct {
	path, stem, name string
}

// awaitedName is a recorded name that the object's own word (a condition or recent event that
// speaks of waiting) repeats: the thing the object's controller says it waits for.
type awaitedName struct {
	recordedName
	source, quote string
}

// recordedNames walks spec (bounded) for lists of names: a list of name-shaped strings, or of
// maps each with a `name`, under a field whose stem (its name less a Names/Refs/s suffix) is at
// least three letters long.
func recordedNames(spec map[string]any) []recordedName {
	var out []recordedName
	visited := 0
	var walk func(path []string, v any)
	walk = func(path []string, v any) {
		if visited++; visited > maxNamesWalk || len(path) > maxDanglingDepth {
			return
		}
		switch t := v.(type) {
		case map[string]any:
			for k, c := range t {
				walk(append(slices.Clone(path), k), c)
			}
		case []any:
			stem := listStem(path[len(path)-1])
			for _, c := range t {
				name, _ := c.(string)
				if m, ok := c.(map[string]any); ok {
					name, _ = m["name"].(string)
					walk(path, m)
				}
				if len(stem) >= 3 && validName(name) {
					out = append(out, recordedName{path: strings.Join(path, "."), stem: stem, name: name})
				}
			}
		}
	}
	walk([]string{"spec"}, spec)
	sort.Slice(out, func(i, j int) bool { return out[i].path+out[i].name < out[j].path+out[j].name })
	return slices.Compact(out)
}

// listStem is what a list field's name says its entries are: `clusterNames`, `clusterRefs` and
// `clusters` → cluster.
func listStem(field string) string {
	f := strings.ToLower(field)
	for _, s := range []string{"names", "refs", "s"} {
		if strings.HasSuffix(f, s) && len(f) > len(s) {
			return strings.TrimSuffix(f, s)
		}
	}
	return f
}

// awaitedNames returns the recorded names that a waiting message of the object's own word
// repeats as a word of its own ("waiting for clusters c1 to become ready").
func awaitedNames(w ownWord, recorded []recordedName) []awaitedName {
	msgs := waitingMessages(w)
	var out []awaitedName
	for _, r := range recorded {
		for _, m := range msgs {
			if len(r.name) > 1 && !stopWords[r.name] && slices.Contains(messageWords(m.text), r.name) {
				out = append(out, awaitedName{recordedName: r, source: m.source, quote: m.text})
				break
			}
		}
	}
	return out
}

// ownMessage is one message of the object's own word, with where it comes from
// ("condition Ready", "event DeleteFailed").
type ownMessage struct{ source, text string }

// waitingMessages are the messages of the object's conditions and recent events that speak of
// what the deletion waits for (waitWords).
func waitingMessages(w ownWord) []ownMessage {
	var out []ownMessage
	for _, c := range w.conditions {
		if c.Message != "" && waitWords.MatchString(c.Type+" "+c.Reason+" "+c.Message) {
			out = append(out, ownMessage{"condition " + c.Type, c.Message})
		}
	}
	for _, e := range w.events {
		if waitWords.MatchString(e.Reason + " " + e.Message) {
			out = append(out, ownMessage{"event " + e.Reason, e.Message})
		}
	}
	return out
}

// messageWords splits a message into words, less the quotes and punctuation around them.
func messageWords(msg string) []string {
	words := strings.FieldsFunc(msg, func(r rune) bool {
		return r == ' ' || r == ',' || r == '[' || r == ']' || r == '(' || r == ')' || r == '\n' || r == '\t' || r == ';'
	})
	for i, w := range words {
		words[i] = strings.Trim(w, `"'.:`+"`")
	}
	return words
}

// familyKinds are the kinds whose name ends in stem (`FederatedCluster` for cluster) served in
// group or in a group of the same product: one that shares its parent domain when that parent
// is a product's own (at least three labels: `federation.k8s.io` for `types.federation.k8s.io`
// and `core.federation.k8s.io`; a bare `k8s.io` or `x-k8s.io` is shared by many projects).
func (x *Explainer) familyKinds(group, stem string) []kinds.Resource {
	parent := ""
	if _, p, ok := strings.Cut(group, "."); ok && strings.Count(p, ".") >= 2 {
		parent = p
	}
	var out []kinds.Resource
	for _, r := range x.catalog.Preferred() {
		if strings.Contains(r.Resource, "/") || !strings.HasSuffix(strings.ToLower(r.Kind), stem) {
			continue
		}
		if _, p, _ := strings.Cut(r.Group, "."); r.Group == group || (parent != "" && p == parent) {
			out = append(out, r)
		}
	}
	return out
}

// notReady says why an object does not report itself ready ("" when it does): no condition of
// a success type (Ready, Available, …) is True.
func notReady(obj *unstructured.Unstructured) string {
	conds, _ := statusOf(obj)
	var said []string
	for _, c := range conds {
		if c.Status == "True" && conditionTypeHas(c.Type, successWords) {
			return ""
		}
		s := c.Type + "=" + c.Status
		if c.Reason != "" {
			s += " (" + c.Reason + ")"
		}
		if c.Message != "" {
			s += ": " + c.Message
		}
		said = append(said, s)
	}
	if len(said) == 0 {
		return "it records no condition that says it is ready"
	}
	return "no condition says it is ready; its conditions: " + strings.Join(said, "; ")
}
