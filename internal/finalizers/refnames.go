package finalizers

import (
	"context"
	"regexp"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// Bounds of the names read from the object's own word.
const (
	// maxNameLookups bounds the reads made to resolve names found in messages.
	maxNameLookups = 16
	// namesAfterKind is how many words after a kind are tried as names ("NodeClaim termination
	// for default-4jf2r").
	namesAfterKind = 4
)

// waitWords mark a message that speaks of what the deletion waits for: only such condition
// and event messages are searched for names, so that "provisioned by StorageClass standard"
// in a healthy condition is never taken for a blocker.
var waitWords = regexp.MustCompile(`(?i)delet|block|in use|used by|still|refer|attach|depend|wait|protect|finaliz|terminat|remain|prevent`)

// nameToken is a word that could be an object's name, optionally `namespace/name`.
var nameToken = regexp.MustCompile(`^(?:([a-z0-9]([-a-z0-9]*[a-z0-9])?)/)?([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$`)

// stopWords are lowercase words of prose that are never tried as names.
var stopWords = map[string]bool{"the": true, "a": true, "an": true, "is": true, "are": true, "was": true, "be": true, "been": true, "being": true,
	"for": true, "on": true, "of": true, "to": true, "in": true, "by": true, "with": true, "and": true, "or": true, "not": true, "has": true,
	"have": true, "still": true, "that": true, "this": true, "it": true, "its": true, "as": true, "at": true, "from": true, "objects": true,
	"object": true, "one": true, "more": true, "termination": true, "deletion": true, "resources": true, "resource": true, "used": true,
	"referenced": true, "attached": true, "waiting": true, "until": true, "all": true, "any": true, "no": true, "will": true}

// namedObject is an object a condition or event of the stuck object names.
type namedObject struct {
	res             kinds.Resource
	namespace, name string
	source          string
}

// candidateName is a kind (or resource) and a word after it that may be an object's name.
type candidateName struct {
	kind, namespace, name, source string
}

// namesIn returns the kind-and-name pairs a message offers: a kind the server serves followed,
// within a few words, by name-shaped words (quoted or not, `ns/name` included), or a
// `kind/name` or `resource/name` token.
func namesIn(msg, source string, isKind func(string) bool) []candidateName {
	var out []candidateName
	words := messageWords(msg)
	for i, w := range words {
		if kind, rest, ok := strings.Cut(w, "/"); ok && isKind(kind) {
			if m := nameToken.FindStringSubmatch(rest); m != nil {
				out = append(out, candidateName{kind: kind, namespace: m[1], name: m[3], source: source})
			}
			continue
		}
		kind := strings.TrimSuffix(strings.TrimSuffix(w, "(s)"), "s")
		if !isKind(kind) && !isKind(w) {
			continue
		}
		if isKind(w) {
			kind = w
		}
		for j := i + 1; j < len(words) && j <= i+namesAfterKind; j++ {
			tok := words[j]
			if isKind(tok) {
				break
			}
			if stopWords[strings.ToLower(tok)] {
				continue
			}
			if m := nameToken.FindStringSubmatch(tok); m != nil && len(m[3]) > 1 {
				out = append(out, candidateName{kind: kind, namespace: m[1], name: m[3], source: source})
			}
		}
	}
	return out
}

// namedInOwnWord resolves the objects the stuck object's own conditions and recent events
// name, in messages that speak of waiting: each kind to a resource (the object's own group
// first, else the one group that serves it), each name to an existing object (in the object's
// namespace, or the namespace given, or, for a cluster-scoped object, any namespace). Words
// that name nothing are dropped; failed reads are returned as unchecked.
func (x *Explainer) namedInOwnWord(ctx context.Context, o subject, w ownWord) ([]namedObject, []report.Gap) {
	isKind := func(k string) bool {
		if k == "" || k[0] < 'A' || k[0] > 'Z' {
			return false
		}
		_, ok := x.kindResource(o.res.Group, k)
		return ok
	}
	var cands []candidateName
	for _, m := range waitingMessages(w) {
		cands = append(cands, namesIn(m.text, m.source, isKind)...)
	}
	var lookups []namedLookup
	seen := map[string]bool{}
	for _, c := range cands {
		res, _ := x.kindResource(o.res.Group, c.kind)
		ns := c.namespace
		if ns == "" && res.Namespaced {
			ns = o.obj.GetNamespace()
		}
		key := res.QualifiedName() + "/" + ns + "/" + c.name
		if seen[key] || (res.GroupKind() == o.res.GroupKind() && c.name == o.obj.GetName()) {
			continue
		}
		seen[key] = true
		lookups = append(lookups, namedLookup{res: res, ns: ns, name: c.name, word: c.kind, source: c.source})
	}
	many := func(namedLookup) string { return "names in the object's own conditions and events" }
	return x.lookUpNamed(ctx, lookups, many, "named by")
}

// kindResource resolves a kind or a resource name to a resource: in group first, else the
// only group that serves it.
func (x *Explainer) kindResource(group, kind string) (kinds.Resource, bool) {
	if r, ok := x.resource(group, kind); ok {
		return r, true
	}
	if cands := x.catalog.ForKind(kind); len(cands) == 1 {
		return cands[0], true
	}
	return kinds.Resource{}, false
}

// findNamed returns the namespaces in which an object of res named name exists ("" for a
// cluster-scoped one). With ns "" for a namespaced type, every namespace is searched by name.
func (x *Explainer) findNamed(ctx context.Context, res kinds.Resource, ns, name string) ([]string, error) {
	ri := x.c.Metadata.Resource(res.GVR())
	switch {
	case !res.Namespaced:
		_, err := ri.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return []string{""}, err
	case ns != "":
		_, err := ri.Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return []string{ns}, nil
	}
	l, err := ri.List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name, Limit: 10})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, it := range l.Items {
		out = append(out, it.Namespace)
	}
	return out, nil
}
