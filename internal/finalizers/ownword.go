package finalizers

import (
	"context"
	"regexp"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// maxEvents bounds the events shown per object, newest first.
const maxEvents = 5

// ownWord is what the object and the components acting on it say about its deletion: its
// status conditions and message, the events recorded since the deletion was requested, and
// the managers that wrote to it since.
type ownWord struct {
	conditions []Condition
	status     []string
	events     []Event
	// writes are the field managers that updated the object after its deletion was requested,
	// with when they last did.
	writes map[string]time.Time
	// obj is the object as read in full, nil when it was not.
	obj *unstructured.Unstructured
}

// readOwnWord reads the object in full (status included) when readsStatus allows, and its
// events. Reads that failed are returned.
func (x *Explainer) readOwnWord(ctx context.Context, o subject, requested time.Time) (ownWord, []report.Gap) {
	var w ownWord
	var gaps []report.Gap
	if readsStatus(o) {
		obj, err := x.fullObject(ctx, o.res, o.obj)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			gaps = append(gaps, getGap(o.ref().ID(), "reading the status of "+o.ref().String(), err))
		default:
			w.conditions, w.status = statusOf(obj)
			w.obj = obj
			w.writes = writesSince(obj.GetManagedFields(), requested)
		}
	}
	events, err := x.eventsAbout(ctx, o, requested)
	if err != nil {
		gaps = append(gaps, listGap(objectID("", "v1", "events", o.obj.GetNamespace(), ""), "listing the events of "+o.ref().String(), err))
	}
	w.events = events
	return withoutNamespaceLifecycle(o, w), gaps
}

// fullObject reads the object in full, not older than the version its metadata was read at.
// A read a sweep started when its LIST met the object (prefetchFull) is taken, once, instead of
// made again.
func (x *Explainer) fullObject(ctx context.Context, res kinds.Resource, obj metav1.Object) (*unstructured.Unstructured, error) {
	if pending, ok := x.prefetched.LoadAndDelete(fullKey(res, obj)); ok {
		r := <-pending.(chan fullRead)
		return r.obj, r.err
	}
	return x.readFull(ctx, res, obj)
}

// readFull reads the object in full, from the API server's watch cache when it has the version
// already read (asListed).
func (x *Explainer) readFull(ctx context.Context, res kinds.Resource, obj metav1.Object) (*unstructured.Unstructured, error) {
	ri := x.c.Dynamic.Resource(res.GVR()).Namespace(obj.GetNamespace())
	return asListed(ctx, obj.GetResourceVersion(), func(opts metav1.GetOptions) (*unstructured.Unstructured, error) {
		return ri.Get(ctx, obj.GetName(), opts)
	})
}

// readsStatus says whether the object's full body is read for its status: only for custom and
// add-on API groups, whose controllers write their word there. Core objects have explainers that
// read what they need, and a Secret's or ConfigMap's data is never the object's word.
func readsStatus(o subject) bool { return o.res.Group != "" }

// statusOf returns status.conditions and the status message and phase, as written.
func statusOf(obj *unstructured.Unstructured) ([]Condition, []string) {
	var conds []Condition
	raw, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		c := conditionWords(m)
		if ts, _, _ := unstructured.NestedString(m, "lastTransitionTime"); ts != "" {
			if t, err := time.Parse(time.RFC3339, ts); err == nil {
				t = t.UTC()
				c.LastTransition = &t
			}
		}
		if c.Type != "" {
			conds = append(conds, c)
		}
	}
	var status []string
	for _, field := range []string{"phase", "state", "message"} {
		if v, ok, _ := unstructured.NestedString(obj.Object, "status", field); ok && v != "" {
			status = append(status, "status."+field+": "+v)
		}
	}
	return conds, status
}

// writesSince returns each field manager that updated the object after t. Both times have a
// precision of one second: a write in the second of the deletion request (the object's
// creation, when it was created and deleted at once) is not counted.
func writesSince(mf []metav1.ManagedFieldsEntry, t time.Time) map[string]time.Time {
	out := map[string]time.Time{}
	for _, e := range mf {
		if e.Time == nil || !e.Time.Time.Truncate(time.Second).After(t.Truncate(time.Second)) {
			continue
		}
		name := e.Manager
		if e.Subresource != "" {
			name += " (" + e.Subresource + ")"
		}
		if cur, ok := out[name]; !ok || e.Time.Time.After(cur) {
			out[name] = e.Time.Time.UTC()
		}
	}
	return out
}

// eventsAbout returns the events recorded about the object (by UID) since t, newest first.
// Events about a cluster-scoped object are recorded in namespace default. A namespace's events
// are listed once per command and shared by every object explained in it.
func (x *Explainer) eventsAbout(ctx context.Context, o subject, t time.Time) ([]Event, error) {
	ns := o.obj.GetNamespace()
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	all, err := x.namespaceEvents(ctx, ns)
	if err != nil {
		return nil, err
	}
	var out []Event
	for _, ev := range all {
		last := eventTime(ev)
		if ev.InvolvedObject.UID != o.obj.GetUID() || last.Before(t.Truncate(time.Second)) {
			continue
		}
		out = append(out, Event{Type: ev.Type, Reason: ev.Reason, Message: ev.Message, Source: eventSource(ev), Count: ev.Count, Last: last})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Last.After(out[j].Last) })
	if len(out) > maxEvents {
		out = out[:maxEvents]
	}
	return out, nil
}

// namespaceEvents lists the events of a namespace once per command, page by page.
func (x *Explainer) namespaceEvents(ctx context.Context, ns string) ([]corev1.Event, error) {
	return cached(x, "events/"+ns, func() ([]corev1.Event, error) {
		return pagedList(func(opts metav1.ListOptions) ([]corev1.Event, string, error) {
			list, err := x.c.Kube.CoreV1().Events(ns).List(ctx, opts)
			if err != nil {
				return nil, "", err
			}
			return list.Items, list.Continue, nil
		})
	})
}

func eventTime(ev corev1.Event) time.Time {
	switch {
	case ev.Series != nil && !ev.Series.LastObservedTime.IsZero():
		return ev.Series.LastObservedTime.UTC()
	case !ev.LastTimestamp.IsZero():
		return ev.LastTimestamp.UTC()
	case !ev.EventTime.IsZero():
		return ev.EventTime.UTC()
	}
	return ev.CreationTimestamp.UTC()
}

func eventSource(ev corev1.Event) string {
	if ev.ReportingController != "" {
		return ev.ReportingController
	}
	return ev.Source.Component
}

// dependentsRe finds the list an operator gives of what it waits for, in the form Rook's
// controllers write ("... will not be deleted until all dependents are removed: CephBlockPool:
// [replicapool], CephFilesystem: [myfs]"): a kind, then its object names in brackets.
var dependentsRe = regexp.MustCompile(`([A-Z][A-Za-z0-9]*): \[([^\]]*)\]`)

// namedDependent is an object the stuck object's own status or events say it waits for.
type namedDependent struct {
	kind, name, source string
}

// namedDependents returns the dependents named in a condition or event message that says the
// deletion waits for dependents; the source names where it was read.
func (w ownWord) namedDependents() []namedDependent {
	var out []namedDependent
	seen := map[string]bool{}
	add := func(msg, source string) {
		i := strings.Index(strings.ToLower(msg), "dependents")
		if i < 0 {
			return
		}
		for _, m := range dependentsRe.FindAllStringSubmatch(msg[i:], -1) {
			for _, name := range strings.FieldsFunc(m[2], func(r rune) bool { return r == ' ' || r == ',' }) {
				if key := m[1] + "/" + name; !seen[key] {
					seen[key] = true
					out = append(out, namedDependent{kind: m[1], name: name, source: source})
				}
			}
		}
	}
	for _, c := range w.conditions {
		if c.Status == "True" {
			add(c.Message, "condition "+c.Type)
		}
	}
	for _, e := range w.events {
		add(e.Message, "event "+e.Reason)
	}
	return out
}

// dependentBlockers resolves the dependents the object names to objects in its group (else
// any group serving that kind) and namespace, and explains the ones being deleted in turn.
func (x *Explainer) dependentBlockers(ctx context.Context, o subject, deps []namedDependent) ([]Blocker, []report.Gap) {
	var out []Blocker
	var gaps []report.Gap
	for _, d := range deps {
		res, ok := x.resource(o.res.Group, d.kind)
		if !ok {
			if cands := x.catalog.ForKind(d.kind); len(cands) == 1 {
				res, ok = cands[0], true
			}
		}
		reason := "named by the object's own " + d.source + " as a dependent its deletion waits for"
		if !ok {
			ref := ObjectRef{Resource: strings.ToLower(d.kind), Kind: d.kind, Namespace: o.obj.GetNamespace(), Name: d.name}
			out = append(out, Blocker{Object: ref, Code: ReasonNamedDependent, Reason: reason, Details: []string{"kind " + d.kind + " is not one the server serves under a single name"}})
			continue
		}
		b := Blocker{Object: refFor(res, o.obj.GetNamespace(), d.name), Code: ReasonNamedDependent, Reason: reason}
		cur, err := x.c.Metadata.Resource(res.GVR()).Namespace(b.Object.Namespace).Get(ctx, d.name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			b.Details = []string{"no longer exists: the controller should notice on its next attempt"}
		case err != nil:
			gaps = append(gaps, getGap(b.Object.ID(), "reading "+b.Object.String(), err))
		default:
			b.GitOps, b.labels = gitOpsOwner(cur.GetLabels()), cur.GetLabels()
			if cur.GetDeletionTimestamp() == nil {
				b.Details = []string{"exists and is not being deleted"}
			} else if o.depth < maxDepth {
				b.Terminating = x.explain(ctx, res, cur, o.depth+1)
			}
		}
		out = append(out, b)
	}
	sortBlockers(out)
	return out, gaps
}
