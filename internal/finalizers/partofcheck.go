package finalizers

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// maxPartOfChecks bounds the other objects whose field is looked up to corroborate an inferred
// part-of reference.
const maxPartOfChecks = 4

// corroboratePartOf weighs an inferred part-of reference (partOfReference) whose whole does not
// exist against the other objects of the same kind: when the same field of one of them names a
// whole that exists (read, at most maxPartOfChecks of them), the field is shown to hold names of
// wholes in this cluster, and the confidence is medium, with the count. Otherwise it stays low:
// the others may be stuck the same way, or there are none. The kind is read in full once per
// command (shared with the referrer search); a list or read that fails is returned as a gap and
// leaves the confidence low.
func (x *Explainer) corroboratePartOf(ctx context.Context, o subject, r outRef) (outRef, []report.Gap) {
	items, _, err := x.listFull(ctx, o.res, "")
	if err != nil {
		return r, []report.Gap{listGap(typeID(o.res, ""), fmt.Sprintf("listing %s to see whether their %s names %s objects that exist", o.res.QualifiedName(), r.path, r.res.Kind), err)}
	}
	key := strings.TrimPrefix(r.path, "spec.")
	var gaps []report.Gap
	checked, named := 0, 0
	for i := range items {
		u := &items[i]
		if u.GetName() == o.obj.GetName() && u.GetNamespace() == o.obj.GetNamespace() {
			continue
		}
		spec, _ := u.Object["spec"].(map[string]any)
		v, _ := spec[key].(string)
		if !validName(v) {
			continue
		}
		if checked >= maxPartOfChecks {
			break
		}
		checked++
		ref := refFor(r.res, u.GetNamespace(), v)
		_, err := cached(x, "exists/"+ref.String(), func() (*metav1.PartialObjectMetadata, error) {
			return x.c.Metadata.Resource(r.res.GVR()).Namespace(ref.Namespace).Get(ctx, v, metav1.GetOptions{})
		})
		switch {
		case err == nil:
			named++
		case !apierrors.IsNotFound(err):
			gaps = append(gaps, getGap(ref.ID(), fmt.Sprintf("reading %s, which %s of %s names, to corroborate the inferred reference", ref.String(), r.path, refFor(o.res, u.GetNamespace(), u.GetName()).String()), err))
		}
	}
	if named > 0 {
		r.inferred = strings.Replace(r.inferred, "confidence low", "confidence medium", 1) +
			fmt.Sprintf("; and %s of %d of the %d other %s objects read names a %s that exists", r.path, named, checked, o.res.Kind, r.res.Kind)
	}
	return r, gaps
}
