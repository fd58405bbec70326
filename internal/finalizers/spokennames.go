package finalizers

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// maxSpokenLookups bounds the names read from lower-case kind words (spokenNames).
const maxSpokenLookups = 8

// spokenName is a name the object's own word gives after a lower-case word that names one kind
// of the object's product ("waiting for clusters c1", "still used by routes web-1").
type spokenName struct {
	res                   kinds.Resource
	word, namespace, name string
	source, quote         string
}

// identifierLike reports a name that prose would not write as a word: it holds a letter and a
// digit, a dash or a dot (`c1`, `web-1`, `db.prod`; not `ready`, not a status code `409`). Only
// such names are taken after a lower-case kind word, so that "clusters to become ready" names
// nothing.
func identifierLike(s string) bool {
	return strings.ContainsAny(s, "0123456789-.") && strings.ContainsFunc(s, func(r rune) bool { return r >= 'a' && r <= 'z' })
}

// spokenKind resolves a lower-case word of a message to the one kind of the object's product
// (its group and the groups that share its product's parent domain, familyKinds) whose name
// ends in the word made singular (`clusters` → FederatedCluster). Words under four letters,
// prose words, and words that two kinds of the product end in name nothing.
func (x *Explainer) spokenKind(group, word string) (kinds.Resource, bool) {
	if word == "" || word != strings.ToLower(word) || stopWords[word] {
		return kinds.Resource{}, false
	}
	var fam []kinds.Resource
	for _, stem := range singulars(word) {
		if len(stem) < 4 || !isLetters(stem) {
			continue
		}
		for _, r := range x.familyKinds(group, stem) {
			if !slices.ContainsFunc(fam, func(f kinds.Resource) bool { return f.GroupKind() == r.GroupKind() }) {
				fam = append(fam, r)
			}
		}
	}
	if len(fam) != 1 {
		return kinds.Resource{}, false
	}
	return fam[0], true
}

func isLetters(s string) bool {
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// spokenMessages are the messages of the object's own word that speak of waiting
// (waitingMessages), and its status.message when that does too — in their prose: a waiting word
// inside a name ("fc-deleting-hr/podinfo.v2" in "upgrade succeeded for release …") is not the
// controller speaking of waiting.
func spokenMessages(w ownWord) []ownMessage {
	var msgs []ownMessage
	for _, m := range waitingMessages(w) {
		if speaksOfWaiting(m.text) {
			msgs = append(msgs, m)
		}
	}
	if w.obj != nil {
		if m, ok, _ := unstructured.NestedString(w.obj.Object, "status", "message"); ok && m != "" && speaksOfWaiting(m) {
			msgs = append(msgs, ownMessage{"status.message", m})
		}
	}
	return msgs
}

// speaksOfWaiting reports a message whose prose — its words less the identifier-like names and
// paths (identifierLike, `namespace/name`) — holds a waiting word (waitWords).
func speaksOfWaiting(msg string) bool {
	var prose []string
	for _, word := range messageWords(msg) {
		if identifierLike(word) || strings.Contains(word, "/") {
			continue
		}
		prose = append(prose, word)
	}
	return waitWords.MatchString(strings.Join(prose, " "))
}

// spokenNames returns the identifier-like names (identifierLike) that follow, within a few
// words, a lower-case word naming one kind of the object's product (spokenKind), in the
// messages of its own word that speak of waiting. Names the object's spec records in a list are
// left to the awaited-names rule, which reads them with their list; the object itself is never
// named.
func (x *Explainer) spokenNames(o subject, w ownWord) []spokenName {
	recorded := map[string]bool{}
	if w.obj != nil {
		spec, _ := w.obj.Object["spec"].(map[string]any)
		for _, r := range recordedNames(spec) {
			recorded[r.name] = true
		}
	}
	var out []spokenName
	seen := map[string]bool{}
	for _, m := range spokenMessages(w) {
		words := messageWords(m.text)
		for i, word := range words {
			res, ok := x.spokenKind(o.res.Group, word)
			if !ok {
				continue
			}
			for j := i + 1; j < len(words) && j <= i+namesAfterKind; j++ {
				if _, kind := x.spokenKind(o.res.Group, words[j]); kind {
					break
				}
				mt := nameToken.FindStringSubmatch(words[j])
				if mt == nil || !identifierLike(mt[3]) || recorded[mt[3]] {
					continue
				}
				if res.GroupKind() == o.res.GroupKind() && mt[3] == o.obj.GetName() {
					continue
				}
				key := res.QualifiedName() + "/" + mt[1] + "/" + mt[3]
				if seen[key] {
					continue
				}
				seen[key] = true
				out = append(out, spokenName{res: res, word: word, namespace: mt[1], name: mt[3], source: m.source, quote: m.text})
			}
		}
	}
	return out
}

// spokenObjects resolves the spoken names (bounded): a name held by exactly one object of its
// kind (in the namespace the message gives, else in every namespace) that does not report
// itself ready, or is being deleted, is what the controller says it waits for (a named object,
// a blocker through the who-refers-to-me rule). One that reports itself ready and is not being
// deleted is not named. A name no object holds, or that several hold, is evidence and no
// blocker: it is returned as an unchecked gap quoting the words, since the thing may live
// outside the cluster or the words may name something else.
func (x *Explainer) spokenObjects(ctx context.Context, o subject, w ownWord) ([]namedObject, []report.Gap) {
	var out []namedObject
	var gaps []report.Gap
	for i, s := range x.spokenNames(o, w) {
		id := typeID(s.res, s.namespace).Named(s.name)
		if i >= maxSpokenLookups {
			gaps = append(gaps, boundGap(report.OpGet, id, fmt.Sprintf("more names in the object's own word than are looked up (bound of %d): %s %s and on were not resolved", maxSpokenLookups, s.word, s.name)))
			break
		}
		nss, err := x.findNamed(ctx, s.res, s.namespace, s.name)
		if err != nil {
			gaps = append(gaps, getGap(id, "resolving "+s.word+" "+s.name+" named by the object's own "+s.source, err))
			continue
		}
		slices.Sort(nss)
		nss = slices.Compact(nss)
		said := fmt.Sprintf("the object's own %s names %s %s (%q)", s.source, s.word, s.name, clip(s.quote, maxFailureMessage))
		if len(nss) != 1 {
			reason, held := report.GapNotFound, "no "+s.res.Kind+" of that name exists"
			if len(nss) > 1 {
				reason, held = report.GapUnsupported, fmt.Sprintf("%d objects of kind %s hold that name (namespaces %s)", len(nss), s.res.Kind, strings.Join(nss, ", "))
			}
			gaps = append(gaps, report.Gap{Op: report.OpJudge, Subject: id, Reason: reason,
				What: said + ", and " + held + ": what the controller says it waits for is not resolved to one object, and is not taken for a blocker"})
			continue
		}
		ref := refFor(s.res, nss[0], s.name)
		obj, err := x.c.Dynamic.Resource(s.res.GVR()).Namespace(nss[0]).Get(ctx, s.name, metav1.GetOptions{})
		if err != nil {
			gaps = append(gaps, getGap(ref.ID(), "reading "+ref.String()+" for its conditions", err))
			continue
		}
		if obj.GetDeletionTimestamp() == nil && notReady(obj) == "" {
			continue
		}
		out = append(out, namedObject{res: s.res, namespace: nss[0], name: s.name, source: s.source})
	}
	return out, gaps
}

// clip shortens s to at most n bytes, marking the cut. The cut falls at a whole character:
// cluster text is quoted with %q, which would print half a character as an escape.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
