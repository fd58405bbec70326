package lint

import (
	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/gitops"
)

// Repo is a repository's chain as built (gitops.Tree: the entry path's build and every tier
// it leads to) with the dependsOn graph drawn from it.
type Repo struct {
	*gitops.Tree
	// Chain is the dependsOn graph of the tiers, the same analysis live mode draws.
	Chain *flux.Chain

	lines lineCache
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

func fileAt(t *Tier, i int) string { return t.FileAt(i) }

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
	// The repository's own source exists by definition (it is being read): a bootstrap tool
	// creates it, with the root Kustomization, in the cluster only.
	if r.Source != "" {
		d.Sources[r.Source] = true
	}
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
