// Package resourceset renders what the Flux Operator applies for a ResourceSet
// (fluxcd.controlplane.io/v1) from the repository alone: its inline inputs and the
// ResourceSetInputProviders the repository declares, its templates with the operator's
// delimiters, its common metadata. Inputs that only the network or the cluster knows are
// refused, never guessed.
package resourceset

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
)

// The Flux Operator API (fluxcd.controlplane.io/v1) that ResourceSets belong to.
const (
	operatorGroup = "fluxcd.controlplane.io"
	rsetKind      = "ResourceSet"
	// PruneAnnotation, set to "disabled" (as annotation or label) on a rendered
	// object, keeps the operator from deleting it when the ResourceSet no longer renders it.
	PruneAnnotation = operatorGroup + "/prune"
	// resourceSetReconcileAnnotation "disabled" on a rendered object leaves it out entirely.
	resourceSetReconcileAnnotation = operatorGroup + "/reconcile"
	rsipKind                       = "ResourceSetInputProvider"
	// GroupKind is a ResourceSet's kind with its API group.
	GroupKind = rsetKind + "." + operatorGroup
)

// ErrNetworkInputs means a ResourceSet's inputs come from a provider that reads the network
// (pull requests, branches, OCI tags …) or the cluster, so what it renders cannot be known
// from the repository.
var ErrNetworkInputs = errors.New("inputs come from outside the repository")

// rsetSpec is the part of a ResourceSet's spec that decides what it renders.
type rsetSpec struct {
	CommonMetadata *struct {
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	} `json:"commonMetadata"`
	InputStrategy *struct {
		Name                  string `json:"name"`
		IncludeEmptyProviders bool   `json:"includeEmptyProviders"`
	} `json:"inputStrategy"`
	Inputs     []map[string]any `json:"inputs"`
	InputsFrom []struct {
		Kind     string                `json:"kind"`
		Name     string                `json:"name"`
		Selector *metav1.LabelSelector `json:"selector"`
	} `json:"inputsFrom"`
	Resources         []json.RawMessage `json:"resources"`
	ResourcesTemplate string            `json:"resourcesTemplate"`
	Steps             []struct {
		Name              string            `json:"name"`
		Resources         []json.RawMessage `json:"resources"`
		ResourcesTemplate string            `json:"resourcesTemplate"`
	} `json:"steps"`
	Wait bool `json:"wait"`
}

// inputSource is one source of input sets: the ResourceSet itself (its inline inputs) or a
// ResourceSetInputProvider.
type inputSource struct {
	kind, namespace, name string
	inputs                []map[string]any
}

// Is reports whether obj is a Flux Operator ResourceSet.
func Is(obj *unstructured.Unstructured) bool {
	gvk := obj.GroupVersionKind()
	return gvk.Group == operatorGroup && gvk.Kind == rsetKind
}

func decodeSpec(obj *unstructured.Unstructured, into any) error {
	raw, err := json.Marshal(obj.Object["spec"])
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, into)
}

// Render renders what the Flux Operator applies for rset, with the
// ResourceSetInputProviders the repository declares (rsips): its inputs combined from the
// inline ones and those providers (Flatten or Permute), every resource template rendered per
// input set with the operator's << >> delimiters, objects the operator skips left out,
// duplicates dropped, the owner labels and spec.commonMetadata set. A provider whose inputs
// come from outside the repository fails with ErrNetworkInputs; unresolved lists what an
// object's identity depends on that only the cluster knows (a Static provider's id).
// Its errors do not name the ResourceSet: the caller, which knows it, does (once).
func Render(rset *unstructured.Unstructured, rsips []*unstructured.Unstructured) (objs []*unstructured.Unstructured, unresolved []string, err error) {
	var spec rsetSpec
	if err := decodeSpec(rset, &spec); err != nil {
		return nil, nil, fmt.Errorf("decoding its spec: %w", err)
	}
	providers, err := inputProviders(rset, spec, rsips)
	if err != nil {
		return nil, nil, err
	}
	sets, err := combine(spec, providers)
	if err != nil {
		return nil, nil, err
	}
	if len(spec.InputsFrom) > 0 && len(sets) == 0 {
		return nil, nil, nil // the operator applies an empty set: everything is collected
	}
	objs, err = renderSpec(spec, sets)
	if err != nil {
		return nil, nil, err
	}
	for _, o := range objs {
		meta := map[string]string{
			"resourceset." + operatorGroup + "/name":      rset.GetName(),
			"resourceset." + operatorGroup + "/namespace": rset.GetNamespace(),
		}
		if cm := spec.CommonMetadata; cm != nil {
			o.SetAnnotations(merged(o.GetAnnotations(), cm.Annotations))
			meta = merged(meta, cm.Labels)
		}
		o.SetLabels(merged(o.GetLabels(), meta))
		if strings.Contains(o.GetName()+"/"+o.GetNamespace(), unknownID) {
			unresolved = append(unresolved, fmt.Sprintf("inputs.id of a Static ResourceSetInputProvider (a checksum of its UID) in %s %s", o.GetKind(), o.GetName()))
		}
	}
	return objs, unresolved, nil
}

// unknownID stands for a Static provider's id, a checksum of the object's UID in the cluster.
const unknownID = "UNKNOWN-RSIP-UID"

// inputProviders lists the ResourceSet itself, then the providers it selects in its own
// namespace, ordered as the operator orders them (by kind, namespace, name).
func inputProviders(rset *unstructured.Unstructured, spec rsetSpec, rsips []*unstructured.Unstructured) ([]inputSource, error) {
	self := inputSource{kind: rsetKind, namespace: rset.GetNamespace(), name: rset.GetName()}
	for _, in := range spec.Inputs {
		self.inputs = append(self.inputs, withProvider(in, rset))
	}
	chosen := map[string]*unstructured.Unstructured{}
	for _, ref := range spec.InputsFrom {
		switch {
		case ref.Name != "":
			var found *unstructured.Unstructured
			for _, p := range rsips {
				if p.GetNamespace() == rset.GetNamespace() && p.GetName() == ref.Name {
					found = p
				}
			}
			if found == nil {
				return nil, fmt.Errorf("%s %s/%s is not in the repository", rsipKind, rset.GetNamespace(), ref.Name)
			}
			chosen[found.GetName()] = found
		case ref.Selector != nil:
			sel, err := metav1.LabelSelectorAsSelector(ref.Selector)
			if err != nil {
				return nil, fmt.Errorf("inputsFrom selector: %w", err)
			}
			for _, p := range rsips {
				if p.GetNamespace() == rset.GetNamespace() && sel.Matches(labels.Set(p.GetLabels())) {
					chosen[p.GetName()] = p
				}
			}
		default:
			return nil, fmt.Errorf("an inputsFrom entry has neither name nor selector")
		}
	}
	names := make([]string, 0, len(chosen))
	for n := range chosen {
		names = append(names, n)
	}
	sort.Strings(names)
	out := []inputSource{self}
	for _, n := range names {
		p, err := staticInputs(chosen[n])
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// staticInputs reads a provider whose inputs are in the repository: type Static exports one
// input set, its defaultValues with an id. Every other type reads the network or the cluster.
func staticInputs(o *unstructured.Unstructured) (inputSource, error) {
	var spec struct {
		Type          string         `json:"type"`
		DefaultValues map[string]any `json:"defaultValues"`
	}
	id := o.GetNamespace() + "/" + o.GetName()
	if err := decodeSpec(o, &spec); err != nil {
		return inputSource{}, fmt.Errorf("decoding %s %s: %w", rsipKind, id, err)
	}
	if spec.Type != "Static" {
		return inputSource{}, fmt.Errorf("%s %s is of type %s: %w", rsipKind, id, orDefault(spec.Type, "(none)"), ErrNetworkInputs)
	}
	in := map[string]any{"id": unknownID}
	for k, v := range spec.DefaultValues {
		if k != "id" {
			in[k] = v
		}
	}
	return inputSource{kind: rsipKind, namespace: o.GetNamespace(), name: o.GetName(), inputs: []map[string]any{withProvider(in, o)}}, nil
}

// withProvider is a copy of an input set with the "provider" entry the operator adds.
func withProvider(in map[string]any, from *unstructured.Unstructured) map[string]any {
	out := make(map[string]any, len(in)+1)
	for k, v := range in {
		out[k] = v
	}
	out["provider"] = map[string]any{
		"apiVersion": from.GetAPIVersion(), "kind": from.GetKind(),
		"name": from.GetName(), "namespace": from.GetNamespace(),
	}
	return out
}

// DefaultTimeout is the operator's reconcile timeout when the ResourceSet sets none.
const DefaultTimeout = 5 * time.Minute

// IsInputProvider reports whether obj is a ResourceSetInputProvider.
func IsInputProvider(obj *unstructured.Unstructured) bool {
	gvk := obj.GroupVersionKind()
	return gvk.Group == operatorGroup && gvk.Kind == rsipKind
}

// Timeout is how long the operator waits for rset: its fluxcd.controlplane.io/reconcileTimeout
// annotation when that is a positive duration, else DefaultTimeout.
func Timeout(rset *unstructured.Unstructured) time.Duration {
	if d, err := time.ParseDuration(rset.GetAnnotations()[operatorGroup+"/reconcileTimeout"]); err == nil && d > 0 {
		return d
	}
	return DefaultTimeout
}

// DependsOn lists the Flux Kustomizations rset's spec.dependsOn waits for, as
// "namespace/name", the namespace defaulting to the ResourceSet's own.
func DependsOn(rset *unstructured.Unstructured) []string {
	var out []string
	for _, d := range Dependencies(rset) {
		if d.IsKustomization() {
			out = append(out, d.ID())
		}
	}
	return out
}

// Dependency is one entry of a ResourceSet's spec.dependsOn.
type Dependency struct {
	Group, Kind, Namespace, Name string
	// Ready says the operator waits for the object to be Ready (its readyExpr, when set, or
	// its Ready condition), not only for it to exist.
	Ready bool
}

// ID is the dependency's namespace/name.
func (d Dependency) ID() string { return d.Namespace + "/" + d.Name }

// Dependencies lists rset's spec.dependsOn, each namespace defaulting to the ResourceSet's own.
// The operator does not reconcile rset, so creates none of its objects, until every one exists
// and each with ready: true is Ready.
func Dependencies(rset *unstructured.Unstructured) []Dependency {
	var out []Dependency
	deps, _, _ := unstructured.NestedSlice(rset.Object, "spec", "dependsOn")
	for _, d := range deps {
		m, _ := d.(map[string]any)
		str := func(k string) string { v, _ := m[k].(string); return v }
		ready, _ := m["ready"].(bool)
		group, _, _ := strings.Cut(str("apiVersion"), "/")
		if !strings.Contains(str("apiVersion"), "/") {
			group = "" // the core group: "v1"
		}
		out = append(out, Dependency{Group: group, Kind: str("kind"), Namespace: orDefault(str("namespace"), rset.GetNamespace()), Name: str("name"), Ready: ready})
	}
	return out
}

// IsKustomization reports whether d names a Flux Kustomization.
func (d Dependency) IsKustomization() bool {
	return d.Group == fluxKustomizeGroup && d.Kind == "Kustomization"
}

// IsResourceSet reports whether d names a ResourceSet.
func (d Dependency) IsResourceSet() bool { return d.Group == operatorGroup && d.Kind == rsetKind }

// fluxKustomizeGroup is the API group of Flux Kustomizations.
const fluxKustomizeGroup = "kustomize.toolkit.fluxcd.io"

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// merged sets from's entries over into's, allocating into when needed.
func merged(into, from map[string]string) map[string]string {
	if len(from) == 0 {
		return into
	}
	if into == nil {
		into = map[string]string{}
	}
	for k, v := range from {
		into[k] = v
	}
	return into
}
