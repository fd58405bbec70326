package helmjudge

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/retire/helm"
	"github.com/kubeforensics/suite/internal/retire/inventory"
)

// Live is what the cluster says about the release of a removed HelmRelease (retire.Live.Helm).
type Live struct {
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
	Objects []Object `json:"objects,omitempty"`
	// Hooks are what the uninstall does with the deployed revision's hooks (hooks.go).
	Hooks []Hook `json:"hooks,omitempty"`
	// Cluster is set when the HelmRelease installs its release on another cluster through its
	// spec.kubeConfig ("kubeConfig Secret namespace/name"): its storage and objects are there,
	// and none of them was read.
	Cluster string `json:"cluster,omitempty"`
	// manifest is the deployed revision's manifest, compared with a render for drift.
	manifest []*unstructured.Unstructured
}

// Object is one object labelled for a HelmRelease, as listed live.
type Object struct {
	Object inventory.Ref `json:"object"`
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

// Uninstall is what deleting a HelmRelease does to its Helm release (retire.Removal.Helm).
type Uninstall struct {
	Release string `json:"release"`
	// Rendered names the chart the base revision was rendered with ("app-template 4.4.0"):
	// Deleted, Left and Others then come from its manifest (offline).
	Rendered string `json:"rendered,omitempty"`
	// Installed names the deployed revision read from helm-controller's storage (live):
	// Deleted, Left and Others then come from its manifest.
	Installed string `json:"installed,omitempty"`
	// Drift is where the base render and the installed manifest disagree (live, rendered).
	Drift *Drift `json:"drift,omitempty"`
	// NoUninstall says why deleting the HelmRelease uninstalls nothing ("" when it does).
	NoUninstall string `json:"noUninstall,omitempty"`
	// Deleted are the persistent objects the uninstall deletes, claims first (live).
	Deleted []Object `json:"deleted,omitempty"`
	// Left are the persistent objects it leaves: kept by helm.sh/resource-policy, or not in
	// the release's manifest (live).
	Left []Object `json:"left,omitempty"`
	// Others counts the rest of the release's objects by kind, e.g. "Deployment.apps": 2 (live).
	Others map[string]int `json:"others,omitempty"`
	// Hooks are the delete hooks the uninstall runs and the hooks whose objects stay after
	// it (live): hooks are not in the manifest, and the uninstall deletes none of their
	// objects.
	Hooks []Hook `json:"hooks,omitempty"`
	// Values is the persistent state the inline values declare (offline).
	Values []helm.Value `json:"values,omitempty"`
	// NotSeen says what the verdict could not see: offline, the chart's objects, and values
	// from ConfigMaps or Secrets.
	NotSeen []string `json:"notSeen,omitempty"`
	// Stateless is the evidence that the chart makes no state from these values (offline, a
	// chart whose templates are known): the uninstall deletes none, though not seen.
	Stateless string `json:"stateless,omitempty"`
	// Cascades are the Flux Kustomizations the uninstall deletes whose deletion prunes what
	// they applied (rendered, offline): what that is, is not judged here.
	Cascades []string `json:"cascades,omitempty"`
	// Cluster is set when the release is installed on another cluster than the HelmRelease's
	// (its spec.kubeConfig, "kubeConfig Secret namespace/name"): live, that cluster is not
	// read, and the uninstall is judged from the repository as offline.
	Cluster string `json:"cluster,omitempty"`
}

// Removed is a HelmRelease the candidate removes, as the gate knows it.
type Removed struct {
	Object inventory.Ref
	// Base is the HelmRelease as built at base; nil when only the live inventory lists it.
	Base *unstructured.Unstructured
	// Live is set when the cluster was read: Exists says whether the HelmRelease is on it, and
	// Release is what its release owns (nil when that was not read).
	Live    bool
	Exists  bool
	Release *Live
	// Render is its render at base (Renders.Base), nil when none; RenderGap says why it has none.
	Render    *helmrender.Render
	RenderGap string
}

// JudgeUninstall decides what deleting the HelmRelease r does to its release: live from what
// the cluster lists for it, offline from its base manifest's values; k says which kinds hold
// state, sources are the chart sources built at base (ChartSources).
func JudgeUninstall(r Removed, k Kinds, sources map[string]*unstructured.Unstructured) *Uninstall {
	if r.Live {
		if l := r.Release; r.Exists && l != nil && l.Cluster != "" && !l.Suspended && l.Installed {
			return remoteUninstall(r, k, sources)
		}
		h := liveUninstall(r, k)
		if l := r.Release; h != nil && l != nil && l.Stored != "" && r.Render != nil {
			h.Drift = helmDrift(chartText(r.Render)+" at base", r.Render.Manifest, l.manifest)
		}
		return h
	}
	if r.Base == nil {
		return nil
	}
	h := offlineUninstall(r, k, sources)
	h.Cluster = cluster.KubeConfigTarget(r.Base)
	return h
}

// offlineUninstall judges the uninstall of r from the repository: its base render, else its
// base values.
func offlineUninstall(r Removed, k Kinds, sources map[string]*unstructured.Unstructured) *Uninstall {
	if r.Render != nil {
		return renderedUninstall(r, k, r.Render)
	}
	if s, _, _ := unstructured.NestedBool(r.Base.Object, "spec", "suspend"); s {
		return &Uninstall{Release: helm.ReleaseName(r.Base),
			NoUninstall: "spec.suspend is true at base: helm-controller deletes a suspended HelmRelease without uninstalling, and its objects stay, unmanaged"}
	}
	return valuesUninstall(r, sources)
}

// remoteUninstall judges, live, the uninstall of a HelmRelease on this cluster whose release
// is installed on another one (its own spec.kubeConfig, Live.Cluster): that release is not read
// here (Reader.Facts names it as not read), so what the repository shows is judged as offline
// (its base render, else its values), under the release name the live HelmRelease recorded.
func remoteUninstall(r Removed, k Kinds, sources map[string]*unstructured.Unstructured) *Uninstall {
	var h *Uninstall
	switch {
	case r.Base == nil:
		h = &Uninstall{NotSeen: []string{"the chart's objects (the HelmRelease is not in the base revision's build)"}}
	case r.Render != nil:
		h = renderedUninstall(r, k, r.Render)
	default:
		h = valuesUninstall(r, sources)
	}
	h.Release, h.Cluster = r.Release.Release, r.Release.Cluster
	return h
}

// valuesUninstall judges the uninstall of r from its base values alone: the persistent state
// they declare, and what was not seen.
func valuesUninstall(r Removed, sources map[string]*unstructured.Unstructured) *Uninstall {
	h := &Uninstall{Release: helm.ReleaseName(r.Base)}
	values, _, _ := unstructured.NestedMap(r.Base.Object, "spec", "values")
	h.Values = helm.Values(values)
	if r.RenderGap != "" {
		h.NotSeen = append(h.NotSeen, "the chart's objects: "+r.RenderGap)
	} else {
		h.NotSeen = append(h.NotSeen, "the chart's objects (offline, nothing renders the chart)")
	}
	if from, _, _ := unstructured.NestedSlice(r.Base.Object, "spec", "valuesFrom"); len(from) > 0 {
		h.NotSeen = append(h.NotSeen, fmt.Sprintf("spec.valuesFrom (%d ConfigMap or Secret references, not read)", len(from)))
	}
	h.Stateless = helm.AppTemplateStateless(r.Base, sources)
	return h
}

// liveUninstall sorts what the cluster lists for the release into what the uninstall deletes,
// what it leaves, and the rest.
func liveUninstall(r Removed, k Kinds) *Uninstall {
	l := r.Release
	if !r.Exists {
		h := &Uninstall{Release: r.Object.Namespace + "/" + r.Object.Name, NoUninstall: "the HelmRelease is not on the cluster, so nothing is uninstalled"}
		if r.Base != nil {
			h.Release = helm.ReleaseName(r.Base)
		}
		return h
	}
	if l == nil {
		return nil
	}
	h := &Uninstall{Release: l.Release, Installed: l.Stored, Hooks: l.Hooks}
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
func claimsFirst(os []Object) {
	sort.SliceStable(os, func(i, j int) bool {
		ci, cj := os[i].Object.GroupKind() == "PersistentVolumeClaim", os[j].Object.GroupKind() == "PersistentVolumeClaim"
		if ci != cj {
			return ci
		}
		return os[i].Object.ID() < os[j].Object.ID()
	})
}

// Loss is what the uninstall loses and how many objects, "" when it loses nothing that is
// seen; a nil Uninstall (nothing judged) loses everything the chart installed, uncounted.
func (h *Uninstall) Loss() (detail string, count int) {
	if h == nil {
		return "helm-controller uninstalls the release and deletes everything the chart installed", 0
	}
	if h.NoUninstall != "" {
		return "", 0
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
		return "", 0
	}
	if len(h.Deleted) > 0 {
		return fmt.Sprintf("uninstalling release %s deletes %s", h.Release, strings.Join(lost, ", ")), len(lost)
	}
	return fmt.Sprintf("uninstalling release %s deletes the chart's objects, and its values declare persistent state: %s", h.Release, strings.Join(lost, ", ")), len(lost)
}

// OthersText summarises the release's other objects: "2 Deployment.apps, 1 Service".
func (h *Uninstall) OthersText() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(h.Others)) {
		parts = append(parts, fmt.Sprintf("%d %s", h.Others[k], k))
	}
	return strings.Join(parts, ", ")
}
