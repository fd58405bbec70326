// Package inventory identifies objects the way a Flux inventory does: Ref, read from a built or
// live object (RefOf) or an inventory id (ParseID), written back as an id, a kubectl resource or
// a gap's subject. internal/retire and internal/retire/helmjudge both speak it; it imports
// neither.
package inventory

import (
	"fmt"
	"strings"

	"github.com/fluxcd/cli-utils/pkg/object"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/report"
)

// Ref identifies one object the way a Flux inventory does.
type Ref struct {
	Group     string `json:"group,omitempty"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// RefOf is the identity of a built or live object.
func RefOf(u *unstructured.Unstructured) Ref {
	gvk := u.GroupVersionKind()
	return Ref{Group: gvk.Group, Kind: gvk.Kind, Namespace: u.GetNamespace(), Name: u.GetName()}
}

// ParseID reads a Flux inventory id with fluxcd/cli-utils' object package, as Flux writes it:
// `<namespace>_<name>_<group>_<kind>`, a ":" in the name written "__".
func ParseID(id string) (Ref, error) {
	m, err := object.ParseObjMetadata(id)
	if err != nil {
		return Ref{}, fmt.Errorf("inventory id %q: %w", id, err)
	}
	if m.Name == "" || m.GroupKind.Kind == "" {
		return Ref{}, fmt.Errorf("inventory id %q names no object: want <namespace>_<name>_<group>_<kind>", id)
	}
	return Ref{Namespace: m.Namespace, Name: m.Name, Group: m.GroupKind.Group, Kind: m.GroupKind.Kind}, nil
}

// IDs is the set of the inventory ids of objs.
func IDs(objs []*unstructured.Unstructured) map[string]bool {
	m := make(map[string]bool, len(objs))
	for _, o := range objs {
		m[RefOf(o).ID()] = true
	}
	return m
}

// ID is the Flux inventory id, e.g. `headlamp_headlamp__PersistentVolumeClaim`, written by
// fluxcd/cli-utils' object package (`system:foo` is `system__foo`).
func (r Ref) ID() string {
	return object.ObjMetadata{Namespace: r.Namespace, Name: r.Name, GroupKind: schema.GroupKind{Group: r.Group, Kind: r.Kind}}.String()
}

// Resource is the type as kubectl accepts it: `persistentvolumeclaim`, `customresourcedefinition.apiextensions.k8s.io`.
func (r Ref) Resource() string {
	s := strings.ToLower(r.Kind)
	if r.Group != "" {
		s += "." + r.Group
	}
	return s
}

// String renders `PersistentVolumeClaim headlamp/headlamp` (no namespace part when cluster-scoped).
func (r Ref) String() string {
	if r.Namespace == "" {
		return r.Kind + " " + r.Name
	}
	return r.Kind + " " + r.Namespace + "/" + r.Name
}

// GroupKind is `Kind.group`, or `Kind` for the core group.
func (r Ref) GroupKind() string {
	if r.Group == "" {
		return r.Kind
	}
	return r.Kind + "." + r.Group
}

// GapID is the object as a gap's subject.
func (r Ref) GapID() report.ObjectID {
	return report.ObjectID{Group: r.Group, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}
}
