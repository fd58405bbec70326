package lint

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/kbuild"
)

// Live is what a cluster runs, read by the caller (lint never contacts a cluster), for the
// live-* rules that compare it with the repository.
type Live struct {
	// Namespace limits the comparison of Kustomizations to one namespace; "" compares all.
	Namespace      string
	Kustomizations []kustomizev1.Kustomization
	// CRDs is nil when they could not be listed: then live-crd-outside-git says nothing.
	CRDs []apiextensionsv1.CustomResourceDefinition
}

// LiveDiff is what the comparison found. Every difference it lists is also a finding of a
// live-* rule, so --fail-on judges it like any other.
type LiveDiff struct {
	// InBoth counts the Kustomizations both the repository and the cluster have.
	InBoth int `json:"inBoth"`
	// NotInCluster and NotInRepo are Kustomizations (fully qualified) only one side has.
	// NotInRepo holds only those built from the repository's own source.
	NotInCluster []string `json:"notInCluster"`
	NotInRepo    []string `json:"notInRepo"`
	// SpecDrift are the Kustomizations whose effective spec.path or dependsOn differ.
	SpecDrift []SpecDrift `json:"specDrift"`
	// CRDsOnlyLive are CRDs whose kinds the repository's objects use and that only the
	// cluster has.
	CRDsOnlyLive []LiveCRD `json:"crdsOnlyLive"`
	// NotCompared are the cluster's Kustomizations built from another source than the
	// repository's (another repository declares them).
	NotCompared []string `json:"notCompared,omitempty"`
}

// SpecDrift is one field of a Kustomization that differs between repository and cluster.
type SpecDrift struct {
	Kustomization string `json:"kustomization"`
	Field         string `json:"field"`
	Repo          string `json:"repo"`
	Cluster       string `json:"cluster"`
}

// LiveCRD is a CRD only the cluster has, with the repository's objects that use its kind.
type LiveCRD struct {
	// Name is the CRD's name (plural.group), e.g. backups.velero.io.
	Name   string   `json:"name"`
	Kind   string   `json:"kind"`
	UsedBy []string `json:"usedBy"`
	// Installer is what the CRD's labels say about who installed it.
	Installer string `json:"installer"`
}

// liveState is the comparison Compare made, read by the live-* rules' checks.
type liveState struct {
	diff     *LiveDiff
	findings map[string][]Finding // by rule id
}

// Compare compares the repository with what a cluster runs and returns the differences; Run
// then reports each as a finding of its live-* rule. Without Compare those rules are silent.
func (r *Repo) Compare(live *Live) *LiveDiff {
	c := &comparer{repo: r, live: live, out: &LiveDiff{NotInCluster: []string{}, NotInRepo: []string{},
		SpecDrift: []SpecDrift{}, CRDsOnlyLive: []LiveCRD{}}, findings: map[string][]Finding{}}
	c.kustomizations()
	c.crds()
	r.live = &liveState{diff: c.out, findings: c.findings}
	return c.out
}

// checkLive returns the findings Compare recorded for the rule.
func checkLive(r *Repo, rule Rule, _ Settings) []Finding {
	if r.live == nil {
		return nil
	}
	out := slices.Clone(r.live.findings[rule.ID])
	for i := range out {
		out[i].Severity = rule.Severity
	}
	return out
}

// comparer compares one repository with one cluster's objects.
type comparer struct {
	repo     *Repo
	live     *Live
	out      *LiveDiff
	findings map[string][]Finding
}

func (c *comparer) add(f Finding) { c.findings[f.Rule] = append(c.findings[f.Rule], f) }

func (c *comparer) kustomizations() {
	sources := map[string]bool{} // the sources the repository's own tiers are built from
	inRepo := map[string]*Tier{}
	for _, t := range c.repo.IDsTiers() {
		k := t.Kustomization
		if t.NotCovered == "" {
			sources[k.Source()] = true
		}
		if c.live.Namespace == "" || k.Namespace == c.live.Namespace {
			inRepo[t.ID()] = t
		}
	}
	inCluster := map[string]*kustomizev1.Kustomization{}
	for i := range c.live.Kustomizations {
		ks := &c.live.Kustomizations[i]
		inCluster[ks.Namespace+"/"+ks.Name] = ks
	}
	for _, id := range slices.Sorted(maps.Keys(inRepo)) {
		t := inRepo[id]
		ks := inCluster[id]
		if ks == nil {
			c.out.NotInCluster = append(c.out.NotInCluster, flux.KustomizationRef(id))
			file := t.Kustomization.File
			c.add(ruleLiveNotInCluster.finding(id, "Kustomization "+id, file, c.repo.Locate(file, "Kustomization", t.Kustomization.Name, ""),
				"%s is declared in the repository but absent from the cluster", flux.KustomizationRef(id)))
			continue
		}
		c.out.InBoth++
		c.drift(t, ks)
	}
	for _, id := range slices.Sorted(maps.Keys(inCluster)) {
		if inRepo[id] != nil {
			continue
		}
		ref := inCluster[id].Spec.SourceRef
		src := ref.Kind + "/" + cmp.Or(ref.Namespace, inCluster[id].Namespace) + "/" + ref.Name
		if !sources[src] {
			c.out.NotCompared = append(c.out.NotCompared, fmt.Sprintf("%s (source %s)", flux.KustomizationRef(id), src))
			continue
		}
		c.out.NotInRepo = append(c.out.NotInRepo, flux.KustomizationRef(id))
		c.add(ruleLiveNotInRepo.finding(id, "Kustomization "+id, "", 0,
			"%s is in the cluster, built from the repository's source %s, but no path of the repository declares it", flux.KustomizationRef(id), src))
	}
}

// drift compares the effective spec.path and dependsOn of a Kustomization both declare.
func (c *comparer) drift(t *Tier, ks *kustomizev1.Kustomization) {
	k := t.Kustomization
	var liveDeps []string
	for _, d := range ks.Spec.DependsOn {
		liveDeps = append(liveDeps, cmp.Or(d.Namespace, ks.Namespace)+"/"+d.Name)
	}
	diffs := []SpecDrift{
		{Field: "path", Repo: dotPath(k.Path), Cluster: dotPath(kbuild.CleanPath(ks.Spec.Path))},
		{Field: "dependsOn", Repo: joinOrNone(k.DependsOn), Cluster: joinOrNone(liveDeps)},
	}
	for _, d := range diffs {
		if d.Repo == d.Cluster {
			continue
		}
		d.Kustomization = flux.KustomizationRef(k.ID())
		c.out.SpecDrift = append(c.out.SpecDrift, d)
		c.add(ruleLiveSpecDrift.finding(k.ID(), "Kustomization "+k.ID(), k.File, c.repo.Locate(k.File, "Kustomization", k.Name, d.Field),
			"%s has %s %s in the repository but %s in the cluster", d.Kustomization, d.Field, d.Repo, d.Cluster))
	}
}

// dotPath writes a cleaned path as Flux specs usually do: ./apps, ./ for the root.
func dotPath(p string) string {
	if p == "." {
		return "./"
	}
	return "./" + p
}

func joinOrNone(items []string) string {
	if len(items) == 0 {
		return "(none)"
	}
	return strings.Join(slices.Sorted(slices.Values(items)), ", ")
}
