package lint

import (
	"fmt"
	"slices"
	"strings"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/report"
)

// Repo is a repository's chain as built (gitops.Tree: the entry path's build and every tier
// it leads to) with the dependsOn graph drawn from it.
type Repo struct {
	*gitops.Tree
	// Chain is the dependsOn graph of the tiers, the same analysis live mode draws.
	Chain *flux.Chain

	// Undecoded are the Flux objects whose spec did not decode (a Kustomization, a
	// HelmRelease), as gaps: the chain holds what could be read of them, and the result is
	// incomplete.
	Undecoded []report.Gap

	lines lineCache
	// upstream caches Chain.Upstream per tier for dependsOn.
	upstream map[string][]string
	// live is the comparison with a cluster, set by Compare.
	live *liveState
	// chartCRDs are the group/Kinds of the CRDs each HelmRelease (namespace/name) installs, as
	// its rendered chart shows (RenderCRDs); what a HelmRelease not in it installs is not known.
	chartCRDs map[string][]string
	// Bootstrap is what the repository installs outside Flux (Load reads it).
	Bootstrap *Bootstrap
	// unknownDeps are the indexes in Chain.Findings of the missing dependencies that may exist
	// all the same (unknownNotAbsent): information, never an error.
	unknownDeps map[int]bool
}

// dependsOn reports whether tier a depends on tier b, directly or through others.
func (r *Repo) dependsOn(a, b string) bool {
	if r.upstream == nil {
		r.upstream = map[string][]string{}
	}
	up, ok := r.upstream[a]
	if !ok {
		up = r.upstreamOf(a)
		r.upstream[a] = up
	}
	_, found := slices.BinarySearch(up, b)
	return found
}

// dependents lists the tiers that depend on id, directly or through others.
func (r *Repo) dependents(id string) []string { return r.Chain.Downstream(id) }

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
	// So do the ExternalArtifacts the repository's ArtifactGenerators make from it.
	for _, src := range r.GeneratedSources() {
		d.Sources[src] = true
	}
	for _, id := range r.IDs() {
		t := r.Tiers[id]
		// A ResourceSet's tier is not a Kustomization: what it renders joins the chain (its
		// Kustomizations are tiers of their own), the ResourceSet itself draws no node.
		if t.Owner == "" {
			d.Kustomizations = append(d.Kustomizations, r.decodeKustomization(t))
		}
		addSources(t)
		for _, o := range t.Objects {
			if !isHelmRelease(o) {
				continue
			}
			var hr helmv2.HelmRelease
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &hr); err != nil {
				gvk := o.GroupVersionKind()
				r.Undecoded = append(r.Undecoded, report.Gap{Op: report.OpDecode, Reason: report.GapDecodeError,
					Subject: report.ObjectID{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Namespace: o.GetNamespace(), Name: o.GetName()},
					What:    fmt.Sprintf("%s (in %s)", objectRef(o), id), Error: err.Error()})
				continue
			}
			d.HelmReleases[id] = append(d.HelmReleases[id], hr)
		}
	}
	d.Inherited = r.inherited()
	r.Chain = flux.BuildDeclared(d)
	r.unknownNotAbsent()
}

// unseenTiers are the tiers that did not build or come from another source, sorted: what they
// declare is not known.
func (r *Repo) unseenTiers() []string {
	var unseen []string
	for _, id := range r.IDs() {
		if t := r.Tiers[id]; t.Err != nil || t.NotCovered != "" {
			unseen = append(unseen, id)
		}
	}
	return unseen
}

// unknownNotAbsent says, in the chain's findings, that a dependency or a source no tier that
// built declares is unknown while some tier did not build (or comes from another source): it
// may be declared there, so "does not exist" and "not found" are not known
// (tvories/k8s-gitops: cluster-crds, not built offline for its remote CRDs, declares the
// cluster-crds-external-snapshotter that rook-ceph-snapshot-controller depends on).
//
// So is a dependency named after its own namespace (flux-system/flux-system) when no
// Kustomization the repository declares builds the entry path: the root that syncs it was
// made outside the repository, and flux bootstrap and the Flux Operator both name that root
// after its namespace (sulibot/home-ops: clusters/production's kustomization.yaml leaves out
// the flux-system/ directory whose gotk-sync.yaml bootstrap applied, and eight tiers depend on
// flux-system).
func (r *Repo) unknownNotAbsent() {
	r.unknownDeps = map[int]bool{}
	unseen := r.unseenTiers()
	why := "unknown, not absent: no tier that built declares it, and " + joinSorted(unseen) +
		" did not build here (or come from another source), so it may be declared there"
	roots := r.outsideRoots()
	for i, f := range r.Chain.Findings {
		switch {
		case f.Kind == flux.FindingMissingDependency && roots[f.Message] != "":
			r.Chain.Findings[i].Message = strings.Replace(f.Message, ", which does not exist; it will never become ready",
				": unknown, not absent: no Kustomization the repository declares builds the entry path "+r.Entry+
					", so the root that syncs it was made outside the repository, and flux bootstrap and the Flux Operator name it after its namespace, as "+roots[f.Message]+" is", 1)
			r.unknownDeps[i] = true
		case len(unseen) == 0:
		case f.Kind == flux.FindingMissingDependency:
			r.Chain.Findings[i].Message = strings.Replace(f.Message, ", which does not exist; it will never become ready", ": "+why, 1)
			r.unknownDeps[i] = true
		case f.Kind == flux.FindingMissingSource:
			r.Chain.Findings[i].Message = strings.Replace(f.Message, " was not found", " was not found: "+why, 1)
		}
	}
}

// outsideRoots are, by the message of the chain's missing-dependency finding that names it,
// the missing dependencies named after their own namespace, when no Kustomization the
// repository declares builds the entry path (see unknownNotAbsent); none when one does.
func (r *Repo) outsideRoots() map[string]string {
	out := map[string]string{}
	nodes := map[string]bool{}
	for _, n := range r.Chain.Kustomizations {
		nodes[n.ID] = true
		if n.Path == r.Entry {
			return out
		}
	}
	for _, n := range r.Chain.Kustomizations {
		for _, dep := range n.DependsOn {
			ns, name, _ := strings.Cut(dep, "/")
			if !nodes[dep] && ns == name {
				out["depends on "+flux.KustomizationRef(dep)+", which does not exist; it will never become ready"] = dep
			}
		}
	}
	return out
}

// decodeKustomization is the tier's Kustomization with the controller's types. One that does
// not decode is recorded on Undecoded and drawn from what gitops read of it (name, path,
// dependsOn, source), so the chain keeps its place and its edges.
func (r *Repo) decodeKustomization(t *Tier) kustomizev1.Kustomization {
	var ks kustomizev1.Kustomization
	var err error
	if t.Kustomization.Object == nil {
		err = fmt.Errorf("no object")
	} else {
		err = runtime.DefaultUnstructuredConverter.FromUnstructured(t.Kustomization.Object.Object, &ks)
	}
	if err == nil {
		return ks
	}
	r.Undecoded = append(r.Undecoded, report.Gap{Op: report.OpDecode, Reason: report.GapDecodeError,
		Subject: report.ObjectID{Group: kustomizev1.GroupVersion.Group, Kind: kustomizev1.KustomizationKind, Namespace: t.Kustomization.Namespace, Name: t.Kustomization.Name},
		What:    "Kustomization " + t.ID(), Error: err.Error()})
	k := t.Kustomization
	ks = kustomizev1.Kustomization{}
	ks.Namespace, ks.Name = k.Namespace, k.Name
	ks.Spec.Path, ks.Spec.Prune, ks.Spec.Wait = k.Path, k.Prune, k.Wait
	ks.Spec.SourceRef.Kind, ks.Spec.SourceRef.Namespace, ks.Spec.SourceRef.Name = k.SourceKind, k.SourceNamespace, k.SourceName
	for _, dep := range k.DependsOn {
		ns, name, _ := strings.Cut(dep, "/")
		ks.Spec.DependsOn = append(ks.Spec.DependsOn, kustomizev1.DependencyReference{Namespace: ns, Name: name})
	}
	return ks
}

func isHelmRelease(o *unstructured.Unstructured) bool {
	gvk := o.GroupVersionKind()
	return gvk.Group == "helm.toolkit.fluxcd.io" && gvk.Kind == "HelmRelease"
}
