package execute

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeforensics/suite/internal/retire"
)

// Bound is the version of its object a live step may act on. Set (a confirmed plan's pin), the
// step acts on that version or not at all: the object it re-reads must be at that UID and
// resourceVersion, and its request carries both as preconditions, so an edit that lands between
// the re-read and the request is refused by the API server (409 Conflict) rather than deleted.
// Zero (a step confirmed on a terminal, or an object an earlier step of the same run acted on,
// whose new version nobody reviewed), the step is bound to the version it re-reads itself: the
// request still acts only on the version its own checks passed on.
type Bound struct {
	UID             types.UID
	ResourceVersion string
}

// reviewed tells whether b pins a version a review covered.
func (b Bound) reviewed() bool { return b.ResourceVersion != "" }

// ChangedError is a live step that did nothing because its object is not at the version the
// step is bound to: the re-read found another version, or the API server refused the request's
// precondition. Callers tell it from other stops with errors.As.
type ChangedError struct {
	Object retire.Ref
	// Reviewed is true when the version was a review's (a set Bound), false when it was the
	// version the step re-read.
	Reviewed bool
	// Was is the version bound to; UID and ResourceVersion are the object's now, both "" when
	// it is gone.
	Was             Bound
	UID             types.UID
	ResourceVersion string
	// Differs names the parts that differ between the version the step checked and now (of
	// labels, annotations, spec, ownerReferences, finalizers, deletionTimestamp, status); nil
	// when the version checked was not read (the re-read found the change).
	Differs []string
	// Err is the API server's refusal; nil when the re-read found the change first.
	Err error
}

func (c *ChangedError) Error() string {
	what := "checked"
	if c.Reviewed {
		what = "reviewed"
	}
	var b strings.Builder
	switch {
	case c.UID == "":
		fmt.Fprintf(&b, "%s is gone (resourceVersion %s %s)", c.Object, c.Was.ResourceVersion, what)
	case c.UID != c.Was.UID:
		fmt.Fprintf(&b, "%s was replaced: UID %s %s, now %s", c.Object, c.Was.UID, what, c.UID)
	default:
		fmt.Fprintf(&b, "%s changed: resourceVersion %s %s, now %s", c.Object, c.Was.ResourceVersion, what, c.ResourceVersion)
	}
	if len(c.Differs) > 0 {
		fmt.Fprintf(&b, " (%s differ)", strings.Join(c.Differs, ", "))
	}
	if c.Err != nil {
		fmt.Fprintf(&b, "; the API server refused the request: %v", c.Err)
	}
	return b.String()
}

func (c *ChangedError) Unwrap() error { return c.Err }

// preconditions are the preconditions of a request acting on obj, the version the step just
// re-read and checked: b's UID and resourceVersion when b is set, after checking obj is at
// them; obj's own otherwise.
func preconditions(ref retire.Ref, b Bound, obj metav1.Object) (*metav1.Preconditions, error) {
	uid, rv := obj.GetUID(), obj.GetResourceVersion()
	if b.reviewed() && (uid != b.UID || rv != b.ResourceVersion) {
		return nil, &ChangedError{Object: ref, Reviewed: true, Was: b, UID: uid, ResourceVersion: rv}
	}
	return &metav1.Preconditions{UID: &uid, ResourceVersion: &rv}, nil
}

// conflict turns the API server's Conflict on a request bound to checked into a ChangedError
// that names what changed, from a re-read with get; any other error is returned as it is.
func conflict(ctx context.Context, ref retire.Ref, b Bound, checked map[string]any, err error,
	get func(context.Context) (map[string]any, error)) error {
	if !apierrors.IsConflict(err) {
		return err
	}
	was := Bound{UID: types.UID(stringAt(checked, "metadata", "uid")), ResourceVersion: stringAt(checked, "metadata", "resourceVersion")}
	c := &ChangedError{Object: ref, Reviewed: b.reviewed(), Was: was, Err: err}
	now, gerr := get(ctx)
	switch {
	case apierrors.IsNotFound(gerr):
	case gerr != nil:
		return fmt.Errorf("%w (re-reading %s to name the change: %v)", c, ref, gerr)
	default:
		c.UID, c.ResourceVersion = types.UID(stringAt(now, "metadata", "uid")), stringAt(now, "metadata", "resourceVersion")
		c.Differs = differs(checked, now)
	}
	return c
}

// differs names the parts of an object that differ between was and now.
func differs(was, now map[string]any) []string {
	parts := []struct {
		name string
		path []string
	}{
		{"labels", []string{"metadata", "labels"}},
		{"annotations", []string{"metadata", "annotations"}},
		{"spec", []string{"spec"}},
		{"ownerReferences", []string{"metadata", "ownerReferences"}},
		{"finalizers", []string{"metadata", "finalizers"}},
		{"deletionTimestamp", []string{"metadata", "deletionTimestamp"}},
		{"status", []string{"status"}},
	}
	var out []string
	for _, p := range parts {
		a, _, _ := unstructured.NestedFieldNoCopy(was, p.path...)
		b, _, _ := unstructured.NestedFieldNoCopy(now, p.path...)
		if !equality.Semantic.DeepEqual(a, b) {
			out = append(out, p.name)
		}
	}
	if len(out) == 0 {
		out = append(out, "fields other than labels, annotations, spec, ownerReferences, finalizers and status")
	}
	return out
}

func stringAt(obj map[string]any, path ...string) string {
	s, _, _ := unstructured.NestedString(obj, path...)
	return s
}
