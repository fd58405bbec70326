package finalizers

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// maxRenamedItems bounds the objects of the stuck object's type read to tell whether its
// finalizer's name is still the one its controller writes.
const maxRenamedItems = 500

// renamedTo returns, for a finalizer `domain/rest`, the other finalizers of the list that keep
// `rest` under another domain (`metacontroller.io/x` for `metacontroller.app/x`).
func renamedTo(name string, finalizers []string) []string {
	d, rest, ok := strings.Cut(name, "/")
	if !ok || rest == "" || finalizerDomain(name) == "" {
		return nil
	}
	var out []string
	for _, f := range finalizers {
		fd, frest, ok := strings.Cut(f, "/")
		if ok && frest == rest && fd != d && finalizerDomain(f) != "" {
			out = append(out, f)
		}
	}
	return out
}

// renamedFinalizer tells a finalizer whose name its running controller no longer writes: the
// same finalizer under another domain is on the type's objects that are not being deleted (or
// on the stuck object itself), and no such object carries this one. A release that renamed its
// finalizer (a new domain after a move) removes only its new name: the old one stays on what
// the old release made. It returns why, "" when the objects read do not show it.
func (x *Explainer) renamedFinalizer(ctx context.Context, o subject, name string) (string, []report.Gap) {
	newNames := map[string]int{}
	for _, f := range renamedTo(name, o.obj.GetFinalizers()) {
		newNames[f]++
	}
	if _, rest, ok := strings.Cut(name, "/"); !ok || rest == "" || finalizerDomain(name) == "" {
		return "", nil
	}
	// Read once per type and command: every stuck object of the type asks the same question.
	l, err := cached(x, "renamed/"+o.res.QualifiedName(), func() (*metav1.PartialObjectMetadataList, error) {
		return x.c.Metadata.Resource(o.res.GVR()).List(ctx, metav1.ListOptions{Limit: maxRenamedItems})
	})
	if err != nil {
		return "", []report.Gap{listGap(typeID(o.res, ""), "listing "+o.res.QualifiedName()+" for the finalizer names its live objects carry", err)}
	}
	live := 0
	for _, it := range l.Items {
		if it.UID == o.obj.GetUID() || it.DeletionTimestamp != nil {
			continue
		}
		for _, f := range it.Finalizers {
			if f == name {
				return "", nil
			}
		}
		if got := renamedTo(name, it.Finalizers); len(got) > 0 {
			live++
			for _, f := range got {
				newNames[f]++
			}
		}
	}
	if len(newNames) != 1 || (live == 0 && len(renamedTo(name, o.obj.GetFinalizers())) == 0) {
		return "", nil
	}
	var renamed string
	for f := range newNames {
		renamed = f
	}
	where := fmt.Sprintf("%d of its type's objects that are not being deleted carry", live)
	if live == 0 {
		where = "the object itself carries"
	}
	return fmt.Sprintf("%s %s instead, the same finalizer under another domain, and none carries %s: its running controller writes and removes the new name only, and nothing will remove the old one", where, renamed, name), nil
}

// applyRenamed makes a finalizer whose remover runs orphaned when that remover writes the same
// finalizer under another name now (renamedFinalizer): removing the old entry by hand is the
// way out, since the running release already finalizes the object under its new name.
func (x *Explainer) applyRenamed(ctx context.Context, o subject, f *Finalizer, k known) {
	x.orphanWhen(ctx, o, f, k, "a name its controller no longer uses", x.renamedFinalizer)
}
