package fluxchain

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/lint"
)

// liveRule is a rule of the --live comparison. Its findings join the lint findings, so
// --fail-on, the GitHub annotations and the step summary treat them like any other rule's.
type liveRule struct {
	ID       string
	Severity lint.Severity
	Why, Fix string
}

// The --live rules, in documentation order.
var (
	ruleLiveNotInCluster = liveRule{ID: "live-not-in-cluster", Severity: lint.Warning,
		Why: "a Kustomization the repository declares but the cluster does not have is never reconciled, and nothing reports it: the tier that applies it has not applied this revision (failing, waiting or suspended), or the cluster syncs another branch or entry path",
		Fix: "find why its parent tier does not apply it (`kubectl flux-chain` on the cluster) and check the GitRepository's ref and the entry path; a Kustomization new in this change appears once it is merged"}
	ruleLiveNotInRepo = liveRule{ID: "live-not-in-repo", Severity: lint.Warning,
		Why: "a Kustomization built from this repository's source that no path of the repository declares is an orphan: its parent prunes it (with prune: true, together with everything it applied) the next time it applies, or, created by hand or under a parent that does not prune, it keeps applying outside git",
		Fix: "declare it in the repository if it must stay; otherwise retire it deliberately (`kubectl safe-retire`) before Flux prunes it"}
	ruleLiveSpecDrift = liveRule{ID: "live-spec-drift", Severity: lint.Warning,
		Why: "the cluster reconciles another spec.path or dependsOn than the repository declares: the parent tier has not applied this revision or the object was edited live, so the order and content git describes are not what runs",
		Fix: "find why the parent tier does not apply this revision, and undo any live edit (`flux reconcile kustomization` on the parent)"}
	ruleLiveCRDOutsideGit = liveRule{ID: "live-crd-outside-git", Severity: lint.Warning,
		Why: "the repository uses a kind whose CustomResourceDefinition only the cluster has: no tier applies it, so the dependency lives outside git and a cluster rebuilt from the repository fails the using tier with `no matches for kind`",
		Fix: "commit the CRD (or the HelmRelease that installs it) to a tier that the using tier dependsOn, with wait: true"}
)

func (r liveRule) finding(ks, object, file string, line int, format string, args ...any) lint.Finding {
	return lint.Finding{Rule: r.ID, Severity: r.Severity, Kustomization: ks, Object: object,
		File: file, Line: line, Message: fmt.Sprintf(format, args...), Why: r.Why, Fix: r.Fix}
}

// liveObjects is what --live read from the cluster.
type liveObjects struct {
	Kustomizations []kustomizev1.Kustomization
	// CRDs is nil when they could not be listed: then nothing is said about them.
	CRDs []apiextensionsv1.CustomResourceDefinition
}

// comparer compares one repository with one cluster's objects.
type comparer struct {
	repo      *lint.Repo
	live      *liveObjects
	namespace string
	out       *LiveComparison
	findings  []lint.Finding
}

// compareLive compares the repository's Kustomizations (those in namespace; all for "") with
// the cluster's, and the kinds its objects use with the cluster's CRDs. The differences are
// recorded on cmp and returned as findings of the live-* rules.
func compareLive(r *lint.Repo, live *liveObjects, namespace string, out *LiveComparison) []lint.Finding {
	c := &comparer{repo: r, live: live, namespace: namespace, out: out}
	c.kustomizations()
	c.crds()
	return c.findings
}

func (c *comparer) kustomizations() {
	sources := map[string]bool{} // the sources the repository's own tiers are built from
	inRepo := map[string]*lint.Tier{}
	for _, id := range c.repo.IDs() {
		t := c.repo.Tiers[id]
		k := t.Kustomization
		if t.NotCovered == "" {
			sources[k.SourceKind+"/"+k.SourceNamespace+"/"+k.SourceName] = true
		}
		if c.namespace == "" || k.Namespace == c.namespace {
			inRepo[id] = t
		}
	}
	inCluster := map[string]*kustomizev1.Kustomization{}
	for i := range c.live.Kustomizations {
		ks := &c.live.Kustomizations[i]
		inCluster[ks.Namespace+"/"+ks.Name] = ks
	}
	for _, id := range sortedKeys(inRepo) {
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
	for _, id := range sortedKeys(inCluster) {
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
func (c *comparer) drift(t *lint.Tier, ks *kustomizev1.Kustomization) {
	k := t.Kustomization
	var liveDeps []string
	for _, d := range ks.Spec.DependsOn {
		liveDeps = append(liveDeps, cmp.Or(d.Namespace, ks.Namespace)+"/"+d.Name)
	}
	diffs := []SpecDrift{
		{Field: "path", Repo: dotPath(k.Path), Cluster: dotPath(gitops.CleanPath(ks.Spec.Path))},
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

// use is one object of the repository whose kind a CRD serves.
type use struct {
	tier *lint.Tier
	i    int
}

// crds finds the CRDs the repository's objects use that no build of the repository contains
// and that no Kustomization or HelmRelease of the repository installed, by the labels
// kustomize-controller, helm-controller and Helm leave on what they apply.
func (c *comparer) crds() {
	if c.live.CRDs == nil {
		return
	}
	served := map[string]*apiextensionsv1.CustomResourceDefinition{} // group/kind
	for i := range c.live.CRDs {
		crd := &c.live.CRDs[i]
		if slices.ContainsFunc(crd.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Served }) {
			served[crd.Spec.Group+"/"+crd.Spec.Names.Kind] = crd
		}
	}
	inGit, helm, uses, order := map[string]bool{}, map[string]bool{}, map[string][]use{}, []string(nil)
	seen := map[string]bool{}
	for _, t := range c.builds() {
		for i, o := range t.Objects {
			gvk := o.GroupVersionKind()
			switch {
			case gvk.Kind == "CustomResourceDefinition":
				g, _, _ := unstructured.NestedString(o.Object, "spec", "group")
				k, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
				inGit[g+"/"+k] = true
			case gvk.Group == "helm.toolkit.fluxcd.io" && gvk.Kind == "HelmRelease":
				addRelease(helm, o)
			}
			key := objectRef(o)
			crd := served[gvk.Group+"/"+gvk.Kind]
			if crd == nil || seen[key] || strings.HasSuffix(gvk.Group, "toolkit.fluxcd.io") {
				continue
			}
			seen[key] = true
			if uses[crd.Name] == nil {
				order = append(order, crd.Name)
			}
			uses[crd.Name] = append(uses[crd.Name], use{tier: t, i: i})
		}
	}
	for _, name := range order {
		first := uses[name][0]
		o := first.tier.Objects[first.i]
		gk := o.GroupVersionKind().Group + "/" + o.GetKind()
		if inGit[gk] {
			continue
		}
		installer, fromRepo := c.installedBy(served[gk], helm)
		if fromRepo {
			continue
		}
		var users []string
		for _, u := range uses[name] {
			users = append(users, objectRef(u.tier.Objects[u.i]))
		}
		c.out.CRDsOnlyLive = append(c.out.CRDsOnlyLive, LiveCRD{Name: name, Kind: o.GetKind(), UsedBy: users, Installer: installer})
		who := fmt.Sprintf("%s (%s) uses", objectRef(o), o.GetAPIVersion())
		if len(users) > 1 {
			who = fmt.Sprintf("%s (%s) and %d more object(s) use", objectRef(o), o.GetAPIVersion(), len(users)-1)
		}
		file := fileOf(first.tier, first.i)
		c.add(ruleLiveCRDOutsideGit.finding(c.tierID(first.tier), objectRef(o), file, c.repo.Locate(file, o.GetKind(), o.GetName(), ""),
			"%s customresourcedefinitions.apiextensions.k8s.io/%s, which no tier of the repository applies: %s", who, name, installer))
	}
}

// builds are the tiers that built, in id order, then the entry path's build (whose objects
// the root Kustomization's tier repeats when the repository has one).
func (c *comparer) builds() []*lint.Tier {
	var out []*lint.Tier
	for _, id := range c.repo.IDs() {
		if t := c.repo.Tiers[id]; t.Err == nil && t.NotCovered == "" {
			out = append(out, t)
		}
	}
	return append(out, c.repo.EntryBuild)
}

// tierID is the tier's namespace/name; "" for the entry path's build, which is no tier.
func (c *comparer) tierID(t *lint.Tier) string {
	if t == c.repo.EntryBuild {
		return ""
	}
	return t.ID()
}

// installedBy says what the live labels name as the CRD's installer, and whether that is a
// Kustomization or HelmRelease of the repository (whose build then holds it, or could not be
// judged: a tier that did not build, a chart's templates).
func (c *comparer) installedBy(crd *apiextensionsv1.CustomResourceDefinition, helm map[string]bool) (string, bool) {
	l, a := crd.Labels, crd.Annotations
	if name := l["kustomize.toolkit.fluxcd.io/name"]; name != "" {
		id := l["kustomize.toolkit.fluxcd.io/namespace"] + "/" + name
		return "it was applied by " + flux.KustomizationRef(id) + ", which the repository does not declare", c.repo.Tiers[id] != nil
	}
	if name := l["helm.toolkit.fluxcd.io/name"]; name != "" {
		id := l["helm.toolkit.fluxcd.io/namespace"] + "/" + name
		return fmt.Sprintf("it was installed by helmreleases.helm.toolkit.fluxcd.io/%s -n %s, which the repository does not declare", name, l["helm.toolkit.fluxcd.io/namespace"]), helm["hr:"+id]
	}
	if rel := a["meta.helm.sh/release-name"]; rel != "" {
		ns := a["meta.helm.sh/release-namespace"]
		return fmt.Sprintf("it was installed by Helm release %s in namespace %s, which no HelmRelease of the repository is", rel, ns), helm["release:"+ns+"/"+rel]
	}
	return "it exists only in the cluster, without GitOps labels (created by hand, by an operator, or from a chart's crds/ directory)", false
}

// addRelease records a HelmRelease of the repository by namespace/name and by the Helm release
// it manages.
func addRelease(helm map[string]bool, o *unstructured.Unstructured) {
	helm["hr:"+o.GetNamespace()+"/"+o.GetName()] = true
	var hr helmv2.HelmRelease
	if runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &hr) == nil {
		helm["release:"+hr.GetReleaseNamespace()+"/"+hr.GetReleaseName()] = true
	}
}

func (c *comparer) add(f lint.Finding) { c.findings = append(c.findings, f) }

// objectRef is "Kind namespace/name" (or "Kind name" for cluster-scoped objects), as lint
// names objects in findings.
func objectRef(o *unstructured.Unstructured) string {
	if o.GetNamespace() == "" {
		return o.GetKind() + " " + o.GetName()
	}
	return o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
}

func fileOf(t *lint.Tier, i int) string {
	if i < len(t.Files) {
		return t.Files[i]
	}
	return ""
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
	s := slices.Clone(items)
	sort.Strings(s)
	return strings.Join(s, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
