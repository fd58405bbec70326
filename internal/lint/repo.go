package lint

import (
	"sort"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/gitops"
)

// Tier is one Flux Kustomization of the repository with what its spec.path built to.
type Tier struct {
	// Kustomization is the effective spec, as the build that yields it renders it.
	Kustomization gitops.Kustomization
	// AppliedBy is the Kustomization (namespace/name) whose build yields this one; "" when
	// the entry path yields it and no Kustomization in the repository builds that path.
	AppliedBy string
	// Objects and Files are the build's objects and the repo-relative file of each.
	Objects []*unstructured.Unstructured
	Files   []string
	// Err is set when the path did not build; RemoteURLs names what an offline build lacked.
	Err        error
	RemoteURLs []string
	// Undefined are post-build variables referenced without a default that no source defines.
	// The objects were built with each one left as ${NAME}, where a controller without strict
	// substitution would apply "".
	Undefined []Undefined
	// NotCovered says why the tier was not built (its source is another repository).
	NotCovered string
}

// Undefined is a variable an object references and nothing defines.
type Undefined struct {
	Var    string
	Object string // Kind namespace/name
}

// ID is the tier's namespace/name.
func (t *Tier) ID() string { return t.Kustomization.ID() }

// Repo is a repository's chain as built: the entry path's build and every tier it leads to.
type Repo struct {
	// Root is the directory paths are built from; Entry the path built first.
	Root, Entry string
	// EntryBuild is what the entry path built to, with the Kustomizations it declares.
	EntryBuild *Tier
	// Tiers are keyed by namespace/name.
	Tiers map[string]*Tier
	// Chain is the dependsOn graph of the tiers, the same analysis live mode draws.
	Chain *flux.Chain

	lines lineCache
}

// IDs returns the tier ids, sorted.
func (r *Repo) IDs() []string {
	out := make([]string, 0, len(r.Tiers))
	for id := range r.Tiers {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// BuildFailures lists the tiers whose path did not build, sorted.
func (r *Repo) BuildFailures() []*Tier {
	var out []*Tier
	for _, id := range r.IDs() {
		if t := r.Tiers[id]; t.Err != nil {
			out = append(out, t)
		}
	}
	return out
}

// built returns the tiers that built, in id order.
func (r *Repo) built() []*Tier {
	var out []*Tier
	for _, id := range r.IDs() {
		if t := r.Tiers[id]; t.Err == nil && t.NotCovered == "" {
			out = append(out, t)
		}
	}
	return out
}

// dependsOn reports whether tier a depends on tier b, directly or through others.
func (r *Repo) dependsOn(a, b string) bool {
	seen := map[string]bool{}
	stack := []string{a}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		t := r.Tiers[cur]
		if t == nil || seen[cur] {
			continue
		}
		seen[cur] = true
		for _, d := range t.Kustomization.DependsOn {
			if d == b {
				return true
			}
			stack = append(stack, d)
		}
	}
	return false
}

// dependents counts the tiers that depend on id, directly or through others.
func (r *Repo) dependents(id string) []string {
	var out []string
	for _, other := range r.IDs() {
		if other != id && r.dependsOn(other, id) {
			out = append(out, other)
		}
	}
	return out
}

// objectRef is "Kind namespace/name" (or "Kind name" for cluster-scoped objects).
func objectRef(o *unstructured.Unstructured) string {
	if o.GetNamespace() == "" {
		return o.GetKind() + " " + o.GetName()
	}
	return o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
}

func fileAt(t *Tier, i int) string {
	if i < len(t.Files) {
		return t.Files[i]
	}
	return ""
}

// chain draws the tiers as the live chain does.
func (r *Repo) chain() {
	d := flux.DeclaredObjects{Sources: map[string]bool{}, HelmReleases: map[string][]helmv2.HelmRelease{}}
	addSources := func(t *Tier) {
		for _, o := range t.Objects {
			if o.GroupVersionKind().Group == "source.toolkit.fluxcd.io" {
				d.Sources[o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName()] = true
			}
		}
	}
	addSources(r.EntryBuild)
	for _, id := range r.IDs() {
		t := r.Tiers[id]
		var ks kustomizev1.Kustomization
		if t.Kustomization.Object != nil {
			_ = runtime.DefaultUnstructuredConverter.FromUnstructured(t.Kustomization.Object.Object, &ks)
		}
		d.Kustomizations = append(d.Kustomizations, ks)
		addSources(t)
		for _, o := range t.Objects {
			if isHelmRelease(o) {
				var hr helmv2.HelmRelease
				if runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &hr) == nil {
					d.HelmReleases[id] = append(d.HelmReleases[id], hr)
				}
			}
		}
	}
	r.Chain = flux.BuildDeclared(d)
}

func isHelmRelease(o *unstructured.Unstructured) bool {
	gvk := o.GroupVersionKind()
	return gvk.Group == "helm.toolkit.fluxcd.io" && gvk.Kind == "HelmRelease"
}
