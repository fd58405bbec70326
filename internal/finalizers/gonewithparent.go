package finalizers

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// goneAlready is what the stuck object stands on that is missing while its parent is being
// deleted: one missing-object blocker per typed reference that names an object that does not
// exist.
type goneAlready struct {
	blockers []Blocker
	names    []string
}

// said words the gone objects for the strip's summary ("" when there are none).
func (g goneAlready) said() string {
	if len(g.names) == 0 {
		return ""
	}
	return ", and what the object stands on is gone already (" + quote(g.names) + ")"
}

// goneWithParent answers "can it ever come back?" for the objects the stuck object stands on,
// once what it belongs to (its owner, or the object it is part of) is itself being deleted: the
// typed references of its spec (any field holding `kind`, `name` and its group as `apiVersion`
// or `apiGroup`, whatever the field is called: an infrastructure, a bootstrap or a template
// reference) that name an object that does not exist cannot come back: whether it went with
// that teardown or was never made, nothing creates it again while the parent is being deleted. Each is a missing-object blocker that
// cannot be restored, so no "create it again" is offered: the way out stays the strip the going
// parent already leads with. Bounded as danglingRefs, reads cached; a read that fails is a gap.
// Without a parent being deleted a typed reference outside a target field proves nothing (a
// class or parameters object the product never needed), and is left to danglingRefs' rules.
func (x *Explainer) goneWithParent(ctx context.Context, o subject, w ownWord, going []goingReferent) (goneAlready, []report.Gap) {
	var parents []string
	skip := map[string]bool{o.ref().String(): true}
	for _, g := range going {
		skip[g.ref.String()] = true
		if g.parent {
			parents = append(parents, g.ref.String())
		}
	}
	if len(parents) == 0 {
		return goneAlready{}, nil
	}
	spec, _ := x.refSpec(ctx, o, w)
	if spec == nil {
		return goneAlready{}, nil
	}
	var refs []outRef
	walkSpecFields(spec, func(_, path string, v any, _ bool) bool {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		r, ok := typedReference(m, forStatedKind(x.catalog), o.obj.GetNamespace())
		if ok {
			r.path = path
			refs = append(refs, r)
		}
		return ok
	})
	sortByPath(refs)
	var out goneAlready
	var gaps []report.Gap
	looked := 0
	for _, r := range refs {
		ref := r.ref()
		if skip[ref.String()] {
			continue
		}
		skip[ref.String()] = true
		if looked++; looked > maxDanglingLookups {
			gaps = append(gaps, boundGap(report.OpGet, o.ref().ID(), fmt.Sprintf("more typed references in the object's spec than are looked up (bound of %d): %s (%s) and on", maxDanglingLookups, ref.String(), r.path)))
			break
		}
		_, err := cached(x, "exists/"+ref.String(), func() (*metav1.PartialObjectMetadata, error) {
			return x.c.Metadata.Resource(r.res.GVR()).Namespace(ref.Namespace).Get(ctx, r.name, metav1.GetOptions{})
		})
		switch {
		case apierrors.IsNotFound(err):
			out.names = append(out.names, ref.String())
			out.blockers = append(out.blockers, Blocker{Object: ref, Code: ReasonMissingObject, Details: []string{"read just now: not found"},
				Reason: fmt.Sprintf("%s names %s, which does not exist: nothing creates it again while %s, which the object belongs to, is being deleted, so the cleanup that works through it cannot finish", r.path, ref.String(), strings.Join(parents, " and "))})
		case err != nil:
			gaps = append(gaps, getGap(ref.ID(), "reading "+ref.String()+", which the object's "+r.path+" names", err))
		}
	}
	return out, gaps
}
