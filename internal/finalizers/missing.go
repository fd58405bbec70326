package finalizers

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// notFoundMessage is the API server's NotFound error as controllers pass it on: `secrets
// "name" not found`, `Secret "name" not found`, `serviceaccounts "name" not found` (the kind or
// resource, possibly with its group, then the quoted name).
var notFoundMessage = regexp.MustCompile(`([A-Za-z][A-Za-z0-9.]*) "([a-z0-9]([-a-z0-9.]*[a-z0-9])?)" not found`)

// maxMissingLookups bounds the reads that confirm a missing object.
const maxMissingLookups = 8

// missingObject is an object the stuck object's own word says its controller could not find.
type missingObject struct {
	ref    ObjectRef
	source string
	quote  string
}

// applyMissing makes blockers of the objects the stuck object's own conditions, status message
// or events say its controller needs and cannot find (`serviceaccounts "sa" not found`), once a
// read confirms they do not exist: a cleanup that needs an object that is gone never runs, so
// the finalizer whose remover runs waits for it. The way out: create it again so the cleanup
// can run, or, when what it belonged to is gone for good, remove the finalizer by hand with its
// cost. Objects that exist again are dropped: the controller finds them on its next try.
func (x *Explainer) applyMissing(ctx context.Context, o subject, e *Explanation, w ownWord) {
	targets := slices.IndexFunc(e.Finalizers, removerRuns)
	if targets < 0 {
		return
	}
	missing, unchecked := x.missingObjects(ctx, o, w)
	e.Unchecked = append(e.Unchecked, unchecked...)
	if len(missing) == 0 {
		return
	}
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if !removerRuns(*f) {
			continue
		}
		var fixes []Remediation
		for _, m := range missing {
			f.Blockers = append(f.Blockers, Blocker{Object: m.ref, Code: ReasonMissingObject,
				Reason:  fmt.Sprintf("does not exist, and the object's own %s says its controller needs it: %s", m.source, m.quote),
				Details: []string{"read just now: not found"}})
			fixes = append(fixes, Remediation{Code: ReasonRestoreMissingObject,
				Summary: fmt.Sprintf("Create %s again (as it was) if what it belongs to still exists: %s needs it to run the cleanup of %s, and removes the finalizer itself once it can.", m.ref.String(), f.Controllers[0].Object.String(), o.ref().String())})
		}
		rest := slices.DeleteFunc(slices.Clone(f.Remedies), func(r Remediation) bool { return r.LastResort || r.Code == ReasonStripFinalizer })
		f.Remedies = append(fixes, rest...)
		if f.bypass != nil {
			strip := *f.bypass
			var names []string
			for _, m := range missing {
				names = append(names, m.ref.String())
			}
			strip.Summary = fmt.Sprintf("If %s is gone for good (what it belonged to was deleted), the cleanup can never run: remove finalizer %s by hand. The patch removes only this entry, and the API server refuses it if the list changed since it was read.", quote(names), f.Name)
			f.Remedies = append(f.Remedies, strip)
		}
	}
	// The strip's cost names what the object records outside the cluster.
	nameLeftovers(e, w.obj)
}

// missingObjects finds the NotFound errors in the object's own word and keeps the objects a
// read confirms are missing, resolved in the object's namespace (for a namespaced type).
func (x *Explainer) missingObjects(ctx context.Context, o subject, w ownWord) ([]missingObject, []report.Gap) {
	type said struct{ source, text string }
	var texts []said
	for _, c := range w.conditions {
		texts = append(texts, said{"condition " + c.Type, c.Message})
	}
	for _, s := range w.status {
		texts = append(texts, said{"status", s})
	}
	for _, ev := range w.events {
		texts = append(texts, said{"event " + ev.Reason, ev.Message})
	}
	if w.obj != nil {
		// Controllers also write their last error to plain status fields (`usefulErrorMessage`).
		if st, ok := w.obj.Object["status"].(map[string]any); ok {
			keys := slices.Sorted(maps.Keys(st))
			for _, k := range keys {
				if v, ok := st[k].(string); ok && k != "message" {
					texts = append(texts, said{"status." + k, v})
				}
			}
		}
	}
	var out []missingObject
	var unchecked []report.Gap
	seen := map[string]bool{}
	lookups := 0
	for _, t := range texts {
		for _, m := range notFoundMessage.FindAllStringSubmatch(t.text, -1) {
			res, ok := x.resolveNamed(m[1])
			if !ok {
				continue
			}
			ns := ""
			if res.Namespaced {
				ns = o.obj.GetNamespace()
			}
			ref := refFor(res, ns, m[2])
			if seen[ref.String()] || (res.GroupKind() == o.res.GroupKind() && m[2] == o.obj.GetName()) {
				continue
			}
			seen[ref.String()] = true
			if lookups++; lookups > maxMissingLookups {
				unchecked = append(unchecked, boundGap(report.OpGet, ref.ID(), fmt.Sprintf("more objects named not found by the object's own word than are looked up (bound of %d): %s and on", maxMissingLookups, ref.String())))
				return out, unchecked
			}
			ri := x.c.Metadata.Resource(res.GVR())
			var err error
			if ns != "" {
				_, err = ri.Namespace(ns).Get(ctx, m[2], metav1.GetOptions{})
			} else {
				_, err = ri.Get(ctx, m[2], metav1.GetOptions{})
			}
			switch {
			case apierrors.IsNotFound(err):
				out = append(out, missingObject{ref: ref, source: t.source, quote: strings.TrimSpace(t.text)})
			case err != nil:
				unchecked = append(unchecked, getGap(ref.ID(), "reading "+ref.String()+", which the object's own "+t.source+" says was not found", err))
			}
		}
	}
	return out, unchecked
}

// resolveNamed resolves the kind or resource an error message names (`Secret`, `secrets`,
// `deployments.apps`) to one served resource, the core group's first, as kubectl would.
func (x *Explainer) resolveNamed(word string) (kinds.Resource, bool) {
	r, err := x.catalog.Resolve(word)
	if err != nil {
		return kinds.Resource{}, false
	}
	return r.Resource, true
}
