package finalizers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubeforensics/suite/internal/kinds"
)

// reasonKind is a kind the object's own condition reason says is not found.
type reasonKind struct {
	res    kinds.Resource
	reason string
	source string
}

// notFoundReasons reads the object's own condition reasons of the form `<Kind>NotFound`
// (`DestinationNotFound`) as its controller saying an object of that kind is missing. The kind
// is resolved among the kinds served in the object's own API group first (a product names its
// own kinds so), else as kubectl would (resolve); a word that is no served kind says nothing.
func notFoundReasons(conds []Condition, own map[string]kinds.Resource, resolve func(string) (kinds.Resource, bool)) []reasonKind {
	var out []reasonKind
	for _, c := range conds {
		word, ok := strings.CutSuffix(c.Reason, "NotFound")
		if !ok || word == "" {
			continue
		}
		res, found := own[strings.ToLower(word)]
		if !found {
			res, found = resolve(word)
		}
		if !found {
			continue
		}
		out = append(out, reasonKind{res: res, reason: c.Reason, source: "condition " + c.Type})
	}
	return out
}

// corroborateByReason joins the object's own condition reasons to the missing objects its
// references name (applyDangling): a missing-object blocker of a kind a reason `<Kind>NotFound`
// names is what the controller itself says it cannot find. The blocker says so and comes first,
// with its fix to create it again; the other missing objects, which the controller does not name,
// follow. Nothing is added when no reference names an object of that kind: the reason alone does
// not say which object.
func corroborateByReason(f *Finalizer, said []reasonKind) {
	if len(said) == 0 || len(f.Blockers) < 1 {
		return
	}
	var named []string
	for i := range f.Blockers {
		b := &f.Blockers[i]
		if b.Code != ReasonMissingObject {
			continue
		}
		for _, r := range said {
			if b.Object.Group == r.res.Group && b.Object.Resource == r.res.Resource {
				b.Reason += fmt.Sprintf("; the object's own %s says so (reason %s)", r.source, r.reason)
				named = append(named, b.Object.String())
				break
			}
		}
	}
	if len(named) == 0 {
		return
	}
	first := func(s string) bool {
		return slices.ContainsFunc(named, func(n string) bool { return strings.Contains(s, n) })
	}
	slices.SortStableFunc(f.Blockers, func(a, b Blocker) int { return rankFirst(first(a.Object.String()), first(b.Object.String())) })
	slices.SortStableFunc(f.Remedies, func(a, b Remediation) int {
		return rankFirst(a.Code == ReasonRestoreMissingObject && first(a.Summary), b.Code == ReasonRestoreMissingObject && first(b.Summary))
	})
}

// rankFirst orders a before b when only a is marked.
func rankFirst(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

// applyReasonNotFound corroborates every finalizer's missing-object blockers with the object's
// own condition reasons (corroborateByReason).
func (x *Explainer) applyReasonNotFound(o subject, e *Explanation, w ownWord) {
	said := notFoundReasons(w.conditions, x.referableKinds(o.res.Group), x.resolveNamed)
	for i := range e.Finalizers {
		corroborateByReason(&e.Finalizers[i], said)
	}
}
