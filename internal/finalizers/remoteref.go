package finalizers

import (
	"context"
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// remoteRefs returns, by path, the spec fields that are named exactly like a kind of the
// object's group but name a thing in the system the controller manages, not an object of that
// kind, each with why: the field is bare (`workspace`, no `Ref` or `Name` suffix: it does not
// call itself a reference), the object it would name does not exist, no object of that kind
// exists anywhere in the cluster, and the object's own status records the thing by an
// identifier of that other system (`status.workspaceID: ws-5yq…`, or `status.workspace.id`)
// that is not the name. A controller records what it made or found elsewhere by that system's
// identifier; a Kubernetes object is found by its name. Such a field is no missing object; the
// stalled verdict names it as evidence. Reads are cached; a failed one leaves the field read as
// a reference, as before.
func (x *Explainer) remoteRefs(ctx context.Context, o subject, w ownWord) map[string]string {
	out, _ := cached(x, "remoterefs/"+o.ref().String(), func() (map[string]string, error) {
		out := map[string]string{}
		if w.obj == nil || o.res.Group == "" {
			return out, nil
		}
		spec, _ := w.obj.Object["spec"].(map[string]any)
		status, _ := w.obj.Object["status"].(map[string]any)
		if spec == nil || status == nil {
			return out, nil
		}
		for _, r := range specReferences(spec, x.referableKinds(o.res.Group), o.obj.GetNamespace()) {
			field := lastField(r.path)
			if r.node || field != strings.ToLower(r.res.Kind) {
				continue
			}
			idPath, id := recordedID(status, field)
			if id == "" || id == r.name {
				continue
			}
			ref := r.ref()
			_, err := cached(x, "exists/"+ref.String(), func() (*metav1.PartialObjectMetadata, error) {
				return x.c.Metadata.Resource(r.res.GVR()).Namespace(ref.Namespace).Get(ctx, r.name, metav1.GetOptions{})
			})
			if !apierrors.IsNotFound(err) {
				continue
			}
			n, err := cached(x, "any/"+r.res.GVR().String(), func() (int, error) {
				l, err := x.c.Metadata.Resource(r.res.GVR()).List(ctx, metav1.ListOptions{Limit: 1})
				if err != nil {
					return 0, err
				}
				return len(l.Items), nil
			})
			if err != nil || n > 0 {
				continue
			}
			out[r.path] = fmt.Sprintf("%s names %q in the system the controller manages, not a %s object: the object's status records it by that system's identifier (%s: %s), and no %s exists anywhere in the cluster", r.path, r.name, r.res.Kind, idPath, id, r.res.GroupKind().String())
		}
		return out, nil
	})
	return out
}

// remoteNotes are remoteRefs' reasons, sorted.
func (x *Explainer) remoteNotes(ctx context.Context, o subject, w ownWord) []string {
	var out []string
	for _, why := range x.remoteRefs(ctx, o, w) {
		out = append(out, why)
	}
	sort.Strings(out)
	return out
}

// recordedID finds the identifier the status records for what a spec field names: a top-level
// status field named for it with an ID suffix (`workspaceID`, `workspaceId`, `workspace_id`), or
// its `id` (`status.workspace.id`). It returns the path and the value, "" when none.
func recordedID(status map[string]any, field string) (string, string) {
	for k, v := range status {
		lower := strings.ToLower(k)
		if s, ok := v.(string); ok && s != "" && (lower == field+"id" || lower == field+"_id") {
			return "status." + k, s
		}
		if m, ok := v.(map[string]any); ok && lower == field {
			if s, _, _ := unstructured.NestedString(m, "id"); s != "" {
				return "status." + k + ".id", s
			}
		}
	}
	return "", ""
}
