package lint

import (
	"fmt"
	"slices"
	"strings"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/flux"
)

// use is one object of the repository whose kind a CRD serves.
type use struct {
	tier *Tier
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
			case isHelmRelease(o):
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
		c.crdOnlyLive(name, uses[name], served, inGit, helm)
	}
}

// crdOnlyLive records the CRD name as only in the cluster unless the repository installs it.
func (c *comparer) crdOnlyLive(name string, uses []use, served map[string]*apiextensionsv1.CustomResourceDefinition, inGit, helm map[string]bool) {
	first := uses[0]
	o := first.tier.Objects[first.i]
	gk := o.GroupVersionKind().Group + "/" + o.GetKind()
	if inGit[gk] {
		return
	}
	installer, fromRepo := c.installedBy(served[gk], helm)
	if fromRepo {
		return
	}
	var users []string
	for _, u := range uses {
		users = append(users, objectRef(u.tier.Objects[u.i]))
	}
	c.out.CRDsOnlyLive = append(c.out.CRDsOnlyLive, LiveCRD{Name: name, Kind: o.GetKind(), UsedBy: users, Installer: installer})
	who := fmt.Sprintf("%s (%s) uses", objectRef(o), o.GetAPIVersion())
	if len(users) > 1 {
		who = fmt.Sprintf("%s (%s) and %d more object(s) use", objectRef(o), o.GetAPIVersion(), len(users)-1)
	}
	file := fileAt(first.tier, first.i)
	c.add(ruleLiveCRDOutsideGit.finding(c.tierID(first.tier), objectRef(o), file, c.repo.Locate(file, o.GetKind(), o.GetName(), ""),
		"%s customresourcedefinitions.apiextensions.k8s.io/%s, which no tier of the repository applies: %s", who, name, installer))
}

// builds are the tiers that built, in id order, then the entry path's build (whose objects
// the root Kustomization's tier repeats when the repository has one).
func (c *comparer) builds() []*Tier {
	return append(c.repo.Built(), c.repo.EntryBuild)
}

// tierID is the tier's namespace/name; "" for the entry path's build, which is no tier.
func (c *comparer) tierID(t *Tier) string {
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
