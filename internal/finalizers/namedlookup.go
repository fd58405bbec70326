package finalizers

import (
	"context"
	"fmt"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// namedLookup is one name the stuck object's own word gives, to look up: the resource and
// namespace findNamed takes, the word it was given with (a kind, for a gap's words) and the
// part of the object it was read from.
type namedLookup struct {
	res          kinds.Resource
	ns, name     string
	word, source string
}

// lookUpNamed finds the objects the lookups name (findNamed), in order, at most maxNameLookups
// of them; the reads that failed, and the lookups past the bound, are returned as gaps. many says
// in a gap's words what the bound left unread, from the first lookup past it ("names in the
// object's own conditions and events"); namedBy how the object gives a name ("named by").
func (x *Explainer) lookUpNamed(ctx context.Context, lookups []namedLookup, many func(namedLookup) string, namedBy string) ([]namedObject, []report.Gap) {
	var out []namedObject
	var gaps []report.Gap
	for i, l := range lookups {
		id := typeID(l.res, l.ns).Named(l.name)
		if i >= maxNameLookups {
			gaps = append(gaps, boundGap(report.OpGet, id, fmt.Sprintf("more %s than are looked up (bound of %d): %s %s and on were not resolved", many(l), maxNameLookups, l.word, l.name)))
			break
		}
		found, err := x.findNamed(ctx, l.res, l.ns, l.name)
		if err != nil {
			gaps = append(gaps, getGap(id, "resolving "+l.word+" "+l.name+" "+namedBy+" the object's own "+l.source, err))
			continue
		}
		for _, f := range found {
			out = append(out, namedObject{res: l.res, namespace: f, name: l.name, source: l.source})
		}
	}
	return out, gaps
}
