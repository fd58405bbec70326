package retire

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire/helm"
)

// The labels helm-controller puts on every object of a release (its origin-labels post-renderer,
// since helm-controller v0.9.0), the annotations Helm puts on every object of a release's
// manifest, and the annotation by which Helm keeps an object on uninstall.
const (
	HelmNameLabel                  = "helm.toolkit.fluxcd.io/name"
	HelmNamespaceLabel             = "helm.toolkit.fluxcd.io/namespace"
	HelmReleaseNameAnnotation      = "meta.helm.sh/release-name"
	HelmReleaseNamespaceAnnotation = "meta.helm.sh/release-namespace"
	HelmResourcePolicyAnnotation   = helm.ResourcePolicyAnnotation
)

// HelmReleaseKind is the GroupKind of a Flux HelmRelease.
const HelmReleaseKind = "HelmRelease.helm.toolkit.fluxcd.io"

const helmReleaseKind = HelmReleaseKind

// HelmLive is what the cluster says about the release of a removed HelmRelease (Live.Helm).
type HelmLive struct {
	// Release is the Helm release, namespace/name, from status.history or the spec.
	Release   string `json:"release"`
	Suspended bool   `json:"suspended,omitempty"`
	// Installed is set when status.storageNamespace is: helm-controller uninstalls nothing
	// otherwise.
	Installed bool `json:"installed"`
	// Stored names the deployed revision read from helm-controller's storage ("web 1.2.0,
	// revision 2, Secret flux-system/sh.helm.release.v1.web.v2"), "" when it could not be read.
	Stored string `json:"stored,omitempty"`
	// Selector is the label selector every type was listed with, when the storage could not
	// be read ("" otherwise).
	Selector string `json:"selector"`
	// Objects are the objects of the deployed revision's manifest (with the claims its
	// StatefulSets made), else every object listed with Selector.
	Objects []HelmObject `json:"objects,omitempty"`
	// Hooks are what the uninstall does with the deployed revision's hooks (helm_hooks.go).
	Hooks []HelmHook `json:"hooks,omitempty"`
	// manifest is the deployed revision's manifest, compared with a render for drift.
	manifest []*unstructured.Unstructured
}

// HelmObject is one object labelled for a HelmRelease, as listed live.
type HelmObject struct {
	Object Ref `json:"object"`
	// InManifest is set when the object carries Helm's annotations for this release: it is in
	// the release's manifest, which uninstall deletes. A claim a StatefulSet made from its
	// volumeClaimTemplates is not.
	InManifest bool `json:"inManifest"`
	// Keep is set when the object carries helm.sh/resource-policy: keep.
	Keep bool `json:"keep,omitempty"`
	// Consumers and Cost are a claim's mounting pods and what deleting it loses.
	Consumers []finalizers.Blocker `json:"consumers,omitempty"`
	Cost      string               `json:"cost,omitempty"`
	// Detail is a StatefulSet's volumeClaimTemplates, "" when it has none.
	Detail string `json:"detail,omitempty"`
	// Via says how an object outside the manifest belongs to the release (a StatefulSet's
	// template claim); WithOwner is set when it is deleted with that owner all the same.
	Via       string `json:"via,omitempty"`
	WithOwner bool   `json:"withOwner,omitempty"`
}

// HelmValue is one piece of persistent state a HelmRelease's inline values visibly declare
// (helm.Values).
type HelmValue = helm.Value

// HelmUninstall is what deleting a HelmRelease does to its Helm release (Removal.Helm).
type HelmUninstall struct {
	Release string `json:"release"`
	// Rendered names the chart the base revision was rendered with ("app-template 4.4.0"):
	// Deleted, Left and Others then come from its manifest (offline).
	Rendered string `json:"rendered,omitempty"`
	// Installed names the deployed revision read from helm-controller's storage (live):
	// Deleted, Left and Others then come from its manifest.
	Installed string `json:"installed,omitempty"`
	// Drift is where the base render and the installed manifest disagree (live, rendered).
	Drift *HelmDrift `json:"drift,omitempty"`
	// NoUninstall says why deleting the HelmRelease uninstalls nothing ("" when it does).
	NoUninstall string `json:"noUninstall,omitempty"`
	// Deleted are the persistent objects the uninstall deletes, claims first (live).
	Deleted []HelmObject `json:"deleted,omitempty"`
	// Left are the persistent objects it leaves: kept by helm.sh/resource-policy, or not in
	// the release's manifest (live).
	Left []HelmObject `json:"left,omitempty"`
	// Others counts the rest of the release's objects by kind, e.g. "Deployment.apps": 2 (live).
	Others map[string]int `json:"others,omitempty"`
	// Hooks are the delete hooks the uninstall runs and the hooks whose objects stay after
	// it (live): hooks are not in the manifest, and the uninstall deletes none of their
	// objects.
	Hooks []HelmHook `json:"hooks,omitempty"`
	// Values is the persistent state the inline values declare (offline).
	Values []HelmValue `json:"values,omitempty"`
	// NotSeen says what the verdict could not see: offline, the chart's objects, and values
	// from ConfigMaps or Secrets.
	NotSeen []string `json:"notSeen,omitempty"`
	// Stateless is the evidence that the chart makes no state from these values (offline, a
	// chart whose templates are known): the uninstall deletes none, though not seen.
	Stateless string `json:"stateless,omitempty"`
}

// judgeHelm decides what deleting the HelmRelease r does to its release: live from what the
// cluster lists for it, offline from its base manifest's values.
func judgeHelm(r *Removal, k Kinds, sources map[string]*unstructured.Unstructured) *HelmUninstall {
	if r.Live != nil {
		h := liveUninstall(r, k)
		if l := r.Live.Helm; h != nil && l != nil && l.Stored != "" && r.render != nil {
			h.Drift = helmDrift(chartText(r.render)+" at base", r.render.Manifest, l.manifest)
		}
		return h
	}
	if r.base == nil {
		return nil
	}
	if r.render != nil {
		return renderedUninstall(r, k, r.render)
	}
	h := &HelmUninstall{Release: helm.ReleaseName(r.base)}
	if s, _, _ := unstructured.NestedBool(r.base.Object, "spec", "suspend"); s {
		h.NoUninstall = "spec.suspend is true at base: helm-controller deletes a suspended HelmRelease without uninstalling, and its objects stay, unmanaged"
		return h
	}
	values, _, _ := unstructured.NestedMap(r.base.Object, "spec", "values")
	h.Values = helm.Values(values)
	if r.renderGap != "" {
		h.NotSeen = append(h.NotSeen, "the chart's objects: "+r.renderGap)
	} else {
		h.NotSeen = append(h.NotSeen, "the chart's objects (offline, nothing renders the chart)")
	}
	if from, _, _ := unstructured.NestedSlice(r.base.Object, "spec", "valuesFrom"); len(from) > 0 {
		h.NotSeen = append(h.NotSeen, fmt.Sprintf("spec.valuesFrom (%d ConfigMap or Secret references, not read)", len(from)))
	}
	h.Stateless = helm.AppTemplateStateless(r.base, sources)
	return h
}

// liveUninstall sorts what the cluster lists for the release into what the uninstall deletes,
// what it leaves, and the rest.
func liveUninstall(r *Removal, k Kinds) *HelmUninstall {
	l := r.Live.Helm
	if !r.Live.Exists {
		h := &HelmUninstall{Release: r.Object.Namespace + "/" + r.Object.Name, NoUninstall: "the HelmRelease is not on the cluster, so nothing is uninstalled"}
		if r.base != nil {
			h.Release = helm.ReleaseName(r.base)
		}
		return h
	}
	if l == nil {
		return nil
	}
	h := &HelmUninstall{Release: l.Release, Installed: l.Stored, Hooks: l.Hooks}
	switch {
	case l.Suspended:
		h.NoUninstall = "spec.suspend is true on the live HelmRelease: helm-controller deletes it without uninstalling, and its objects stay, unmanaged"
		return h
	case !l.Installed:
		h.NoUninstall = "status.storageNamespace is empty on the live HelmRelease: the release was never installed, so nothing is uninstalled"
		return h
	}
	for _, o := range l.Objects {
		persistent := k.Has(o.Object) && (o.Object.GroupKind() != "StatefulSet.apps" || o.Detail != "")
		switch {
		case !persistent && o.Via != "" && !o.InManifest && !o.WithOwner:
			// not deleted, and holds nothing
		case !persistent:
			if h.Others == nil {
				h.Others = map[string]int{}
			}
			h.Others[o.Object.GroupKind()]++
		case o.InManifest && !o.Keep, o.WithOwner:
			h.Deleted = append(h.Deleted, o)
		default:
			h.Left = append(h.Left, o)
		}
	}
	claimsFirst(h.Deleted)
	claimsFirst(h.Left)
	return h
}

// claimsFirst sorts claims before every other kind, then by id.
func claimsFirst(os []HelmObject) {
	sort.SliceStable(os, func(i, j int) bool {
		ci, cj := os[i].Object.GroupKind() == "PersistentVolumeClaim", os[j].Object.GroupKind() == "PersistentVolumeClaim"
		if ci != cj {
			return ci
		}
		return os[i].Object.ID() < os[j].Object.ID()
	})
}

// persistence is what the uninstall loses, or nil when it loses nothing that is seen.
func (h *HelmUninstall) persistence() *Persistence {
	if h == nil {
		return &Persistence{Detail: "helm-controller uninstalls the release and deletes everything the chart installed"}
	}
	if h.NoUninstall != "" {
		return nil
	}
	var lost []string
	for _, o := range h.Deleted {
		s := o.Object.String()
		if o.Object.GroupKind() == "CustomResourceDefinition.apiextensions.k8s.io" && o.Detail != "" {
			s += " (" + o.Detail + ")"
		}
		lost = append(lost, s)
	}
	for _, v := range h.Values {
		if v.Declares() {
			lost = append(lost, v.Path)
		}
	}
	if len(lost) == 0 {
		return nil
	}
	if len(h.Deleted) > 0 {
		return &Persistence{Detail: fmt.Sprintf("uninstalling release %s deletes %s", h.Release, strings.Join(lost, ", ")), Count: len(lost)}
	}
	return &Persistence{Detail: fmt.Sprintf("uninstalling release %s deletes the chart's objects, and its values declare persistent state: %s", h.Release, strings.Join(lost, ", ")), Count: len(lost)}
}

// HelmUnseen names every removed HelmRelease whose uninstall deletes objects that were not
// seen and whose values declare no persistent state: what it deletes is unknown.
func HelmUnseen(rs []Removal) []report.Gap {
	var out []report.Gap
	for i := range rs {
		r := &rs[i]
		h := r.Helm
		if h == nil || h.NoUninstall != "" || h.Rendered != "" || h.Stateless != "" || r.Persistent != nil || r.Live != nil || (r.Outcome != Pruned && r.Outcome != Moved) {
			continue
		}
		when := "deleting it"
		if r.Outcome == Moved {
			when = fmt.Sprintf("if it is pruned before Kustomization %s adopts it, deleting it", r.MovedTo)
		}
		out = append(out, notJudged(r.Object.GapID(), report.GapUnsupported, fmt.Sprintf("HelmRelease %s/%s (Kustomization %s)", r.Object.Namespace, r.Object.Name, r.Kustomization),
			fmt.Sprintf("%s uninstalls release %s and every object its chart installed; its values declare no persistent state the chart creates, and not seen: %s, so what the uninstall deletes is unknown (run live, or set spec.suspend: true before removing it)",
				when, h.Release, strings.Join(h.NotSeen, "; "))))
	}
	return out
}

// HelmStateless notes every removed HelmRelease whose uninstall is shown to delete no
// chart-made state (HelmUninstall.Stateless), with that evidence.
func HelmStateless(rs []Removal) []report.Note {
	var out []report.Note
	for i := range rs {
		r := &rs[i]
		if h := r.Helm; h != nil && h.NoUninstall == "" && h.Stateless != "" && r.Persistent == nil && r.Live == nil && (r.Outcome == Pruned || r.Outcome == Moved) {
			out = append(out, report.Note{Code: report.NoteHelmUninstallStateless, Subject: r.Object.GapID(),
				Message: fmt.Sprintf("HelmRelease %s/%s (Kustomization %s): deleting it uninstalls release %s; %s", r.Object.Namespace, r.Object.Name, r.Kustomization, h.Release, h.Stateless)})
		}
	}
	return out
}

// helmKeep tells how to delete a HelmRelease without uninstalling its release: helm-controller
// skips the uninstall of a suspended HelmRelease (reconcileDelete).
func (p Planner) helmKeep(r *Removal) string {
	return fmt.Sprintf("deleting HelmRelease %s uninstalls release %s and deletes what it installed; to keep those objects and their data, suspend it first: %s",
		r.Object.Namespace+"/"+r.Object.Name, r.Helm.Release,
		p.suspend(r.Object))
}

// suspend is the command that sets spec.suspend on the Flux object o (a HelmRelease before
// it is deleted, so helm-controller does not uninstall its release).
func (p Planner) suspend(o Ref) string {
	return p.kubectl(o.Namespace, "patch", o.Resource(), o.Name, "--type=merge", "-p", `{"spec":{"suspend":true}}`)
}

// OthersText summarises the release's other objects: "2 Deployment.apps, 1 Service".
func (h *HelmUninstall) OthersText() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(h.Others)) {
		parts = append(parts, fmt.Sprintf("%d %s", h.Others[k], k))
	}
	return strings.Join(parts, ", ")
}
