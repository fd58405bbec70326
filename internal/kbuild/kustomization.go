package kbuild

import (
	"errors"
	"fmt"
	"time"

	"github.com/fluxcd/cli-utils/pkg/object"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/kustomize"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/gitrev"
)

// kustomizeGroup is the API group of Flux Kustomizations (not kustomize's own
// kustomize.config.k8s.io Kustomization, which is a build file, not an object).
const kustomizeGroup = "kustomize.toolkit.fluxcd.io"

// originAnnotation is where kustomize records the file an object came from.
const originAnnotation = "config.kubernetes.io/origin"

// Kustomization is a Flux Kustomization (kustomize.toolkit.fluxcd.io/v1) as building needs it.
type Kustomization struct {
	Namespace, Name string
	// Path is spec.path, cleaned and relative to the source root ("." for the root).
	Path string
	// Prune and Wait are spec.prune and spec.wait.
	Prune, Wait bool
	// Timeout is what kustomize-controller uses: spec.timeout, else spec.interval minus 30s,
	// and never under 30s.
	Timeout time.Duration
	// DependsOn lists spec.dependsOn as "namespace/name", the namespace defaulting to the
	// Kustomization's own.
	DependsOn []string
	// SourceKind, SourceNamespace and SourceName are spec.sourceRef, the namespace defaulting
	// to the Kustomization's own.
	SourceKind, SourceNamespace, SourceName string
	// Object is the whole object (postBuild, patches, images …), as Build hands it to the
	// generator.
	Object *unstructured.Unstructured
	// File is the repo-relative file the object was found in, when it was found in a build of
	// the repo and the file is known.
	File string
}

// ID is the Kustomization's "namespace/name", the form DependsOn uses.
func (k Kustomization) ID() string { return k.Namespace + "/" + k.Name }

// Source is spec.sourceRef as "Kind/namespace/name".
func (k Kustomization) Source() string {
	return k.SourceKind + "/" + k.SourceNamespace + "/" + k.SourceName
}

// KustomizationsIn returns the Flux Kustomizations among objs: only top-level objects of
// apiVersion kustomize.toolkit.fluxcd.io/* and kind Kustomization, never a string that merely
// looks like one inside another object. File stays empty: Result.Kustomizations knows
// the files of a build. A Kustomization that does not decode is left out and named in the
// error (one per object, joined); the others are returned all the same.
func KustomizationsIn(objs []*unstructured.Unstructured) ([]Kustomization, error) {
	return KustomizationsWithFiles(objs, nil)
}

// KustomizationsWithFiles is KustomizationsIn over a build's objects and the file of each
// (Result.Files): each Kustomization's File is set.
func KustomizationsWithFiles(objs []*unstructured.Unstructured, files []string) ([]Kustomization, error) {
	var out []Kustomization
	var errs []error
	for i, obj := range objs {
		if !IsFluxKustomization(obj) {
			continue
		}
		ks, err := kustomizationOf(obj)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if i < len(files) {
			ks.File = files[i]
		}
		out = append(out, ks)
	}
	return out, errors.Join(errs...)
}

// DecodeError is a Flux Kustomization of a build that did not decode: which one, and why.
type DecodeError struct {
	Namespace, Name string
	Err             error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("Kustomization %s/%s: %v", e.Namespace, e.Name, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// IsFluxKustomization reports whether obj is a Flux Kustomization of any version.
func IsFluxKustomization(obj *unstructured.Unstructured) bool {
	gvk := obj.GroupVersionKind()
	return gvk.Group == kustomizeGroup && gvk.Kind == "Kustomization"
}

// kustomizationOf decodes obj with the controller's own API types, so defaults such as the
// timeout are computed exactly as kustomize-controller computes them. It is decoded as the
// parent's kustomize-controller applies it (asApplied).
func kustomizationOf(obj *unstructured.Unstructured) (Kustomization, error) {
	var typed kustomizev1.Kustomization
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(asApplied(obj).Object, &typed); err != nil {
		return Kustomization{}, &DecodeError{Namespace: obj.GetNamespace(), Name: obj.GetName(), Err: err}
	}
	ns := typed.Namespace
	ks := Kustomization{
		Namespace:       ns,
		Name:            typed.Name,
		Path:            CleanPath(typed.Spec.Path),
		Prune:           typed.Spec.Prune,
		Wait:            typed.Spec.Wait,
		Timeout:         typed.GetTimeout(),
		SourceKind:      typed.Spec.SourceRef.Kind,
		SourceNamespace: orDefault(typed.Spec.SourceRef.Namespace, ns),
		SourceName:      typed.Spec.SourceRef.Name,
		Object:          obj,
	}
	for _, d := range typed.Spec.DependsOn {
		ks.DependsOn = append(ks.DependsOn, orDefault(d.Namespace, ns)+"/"+d.Name)
	}
	return ks, nil
}

// asApplied is obj with the labels kustomize-controller applies: a label written as an unquoted
// YAML boolean or number (`enabled: false`) stays one in kustomize's output, and the
// controller, setting its owner labels (fluxcd/pkg/ssa ResourceManager.SetOwnerLabels), reads
// the labels as strings with Unstructured.GetLabels, which yields none when any is not a
// string: the object is applied with the owner labels only, never refused. The other fields
// are obj's own.
func asApplied(obj *unstructured.Unstructured) *unstructured.Unstructured {
	if _, _, err := unstructured.NestedNullCoercingStringMap(obj.Object, "metadata", "labels"); err == nil {
		return obj
	}
	c := obj.DeepCopy()
	c.SetLabels(c.GetLabels())
	return c
}

// CleanPath makes a spec.path relative to the source root the way kustomize-controller's
// secure join does: "./clusters/prod/", "/clusters/prod" and "clusters/x/../prod" are all
// "clusters/prod"; "" is ".". It never climbs above the root.
func CleanPath(p string) string { return gitrev.CleanPath(p) }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// ObjectID is Flux's inventory id of an object: <namespace>_<name>_<group>_<kind>, as
// fluxcd/cli-utils object.ObjMetadata.String() writes it (":" in RBAC names becomes "__").
func ObjectID(obj *unstructured.Unstructured) string {
	return object.UnstructuredToObjMetadata(obj).String()
}

// SubstituteFromConfigMaps names the ConfigMaps spec.postBuild.substituteFrom reads, in order
// (in the Kustomization's namespace, as the controller reads them).
func (k Kustomization) SubstituteFromConfigMaps() []string {
	if k.Object == nil {
		return nil
	}
	refs, _, _ := unstructured.NestedSlice(k.Object.Object, "spec", "postBuild", "substituteFrom")
	var out []string
	for _, ref := range refs {
		m, _ := ref.(map[string]any)
		kind, _ := m["kind"].(string)
		name, _ := m["name"].(string)
		if kind == "ConfigMap" && name != "" {
			out = append(out, name)
		}
	}
	return out
}

// SubstituteSource is one reference of spec.postBuild.substituteFrom.
type SubstituteSource struct {
	// Kind is ConfigMap or Secret; ID is "Kind/namespace/name", the namespace the
	// Kustomization's own, as the controller reads it (the key of Options.Missing).
	Kind, Name, ID string
	// Optional: the controller skips it when it is not found.
	Optional bool
}

// SubstituteFrom lists the references of spec.postBuild.substituteFrom, in order; one that
// does not decode is left out (the build reports it).
func (k Kustomization) SubstituteFrom() []SubstituteSource {
	if k.Object == nil {
		return nil
	}
	refs, _, _ := unstructured.NestedSlice(k.Object.Object, "spec", "postBuild", "substituteFrom")
	var out []SubstituteSource
	for _, raw := range refs {
		m, ok := raw.(map[string]any)
		var ref kustomize.SubstituteReference
		if !ok || runtime.DefaultUnstructuredConverter.FromUnstructured(m, &ref) != nil || ref.Name == "" {
			continue
		}
		out = append(out, SubstituteSource{Kind: ref.Kind, Name: ref.Name, Optional: ref.Optional,
			ID: ref.Kind + "/" + k.Object.GetNamespace() + "/" + ref.Name})
	}
	return out
}
