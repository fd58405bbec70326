package helmjudge

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire/helm"
	"github.com/kubeforensics/suite/internal/retire/inventory"
)

// Reader reads, live, what a HelmRelease's release owns and what deleting each of its objects
// loses. Every read that fails is added to the gaps its methods are given (UNKNOWN).
type Reader struct {
	Clients   *cluster.Clients
	Catalog   *kinds.Catalog
	Explainer *finalizers.Explainer
}

// Facts reads what the release of the live HelmRelease hr owns: the objects of its deployed
// revision's manifest, read from helm-controller's storage (helmstorage), which is what the
// uninstall deletes. When the storage cannot be read, that is added to gaps (UNKNOWN)
// and, as further evidence only, every served type is listed once, cluster-wide, metadata only
// and page by page, with helm-controller's origin labels as the selector; an object is then in
// the release's manifest when Helm's release annotations name this release. Claims get their
// mounting pods and reclaim cost, StatefulSets their volumeClaimTemplates. Every type or object
// that could not be read is added to gaps.
func (lr *Reader) Facts(ctx context.Context, hr *unstructured.Unstructured, gaps *[]report.Gap) *Live {
	h := &Live{Release: liveReleaseName(hr)}
	h.Suspended, _, _ = unstructured.NestedBool(hr.Object, "spec", "suspend")
	storage, _, _ := unstructured.NestedString(hr.Object, "status", "storageNamespace")
	h.Installed = storage != ""
	if h.Suspended || !h.Installed {
		return h
	}
	if where := cluster.KubeConfigTarget(hr); where != "" {
		// Its storage and its objects are on that cluster: the Secrets of the same name here,
		// and the objects helm-controller's labels select here, are not its release.
		h.Cluster = where
		*gaps = append(*gaps, remoteGap(hr, "", where, true, "what its uninstall deletes there is not known"))
		return h
	}
	rel, err := lr.installed(ctx, hr, false)
	if err == nil {
		h.Release, h.Stored, h.manifest = rel.Namespace+"/"+rel.Name, installedText(rel), rel.Objects
		h.Objects = lr.manifestFacts(ctx, rel, gaps)
		var left []Object
		h.Hooks, left = lr.hookFacts(ctx, rel, hr, gaps)
		h.Objects = append(h.Objects, left...)
		return h
	}
	*gaps = append(*gaps, report.Gap{Op: report.OpReadStorage, Subject: helmReleaseID(hr.GetNamespace(), hr.GetName()), Reason: cluster.GapReason(err),
		What:  fmt.Sprintf("HelmRelease %s/%s", hr.GetNamespace(), hr.GetName()),
		Error: fmt.Sprintf("%v; what its uninstall deletes is not known (below: the objects labelled for it, which may not be its manifest)", err)})
	h.Selector = labels.SelectorFromSet(labels.Set{NameLabel: hr.GetName(), NamespaceLabel: hr.GetNamespace()}).String()
	scan := finalizers.Sweep(ctx, lr.Clients, lr.Catalog, finalizers.ScanOptions{LabelSelector: h.Selector})
	*gaps = append(*gaps, sweepFailures(scan.Failed, fmt.Sprintf("labelled %s for HelmRelease %s/%s", h.Selector, hr.GetNamespace(), hr.GetName()))...)
	relNS, relName := helm.SplitRelease(h.Release)
	seen := map[string]bool{}
	for _, t := range scan.Types {
		for i := range t.Items {
			o, claims := lr.helmObject(ctx, t.Resource, &t.Items[i], relNS, relName, gaps)
			for _, c := range append([]Object{o}, claims...) {
				if !seen[c.Object.ID()] {
					seen[c.Object.ID()] = true
					h.Objects = append(h.Objects, c)
				}
			}
		}
	}
	sort.Slice(h.Objects, func(i, j int) bool { return h.Objects[i].Object.ID() < h.Objects[j].Object.ID() })
	return h
}

// helmObject reads one labelled object: whether the release's manifest holds it, whether Helm
// keeps it, and for a claim or a StatefulSet what deleting it loses; for a StatefulSet it also
// returns the claims it made from its volumeClaimTemplates.
func (lr *Reader) helmObject(ctx context.Context, res kinds.Resource, m *metav1.PartialObjectMetadata, relNS, relName string, gaps *[]report.Gap) (Object, []Object) {
	ann := m.GetAnnotations()
	o := Object{
		Object:     inventory.Ref{Group: res.Group, Kind: res.Kind, Namespace: m.GetNamespace(), Name: m.GetName()},
		InManifest: ann[ReleaseNameAnnotation] == relName && (relNS == "" || ann[ReleaseNamespaceAnnotation] == relNS),
		Keep:       helm.IsKeep(ann[helm.ResourcePolicyAnnotation]),
	}
	return lr.objectFacts(ctx, res, o, gaps)
}

// objectFacts reads what deleting a release's object o loses: a claim's mounting pods and
// reclaim cost; a StatefulSet's volumeClaimTemplates and the claims it made from them, each
// left orphaned unless it goes with its owner.
func (lr *Reader) objectFacts(ctx context.Context, res kinds.Resource, o Object, gaps *[]report.Gap) (Object, []Object) {
	switch o.Object.GroupKind() {
	case "PersistentVolumeClaim":
		var found []report.Gap
		o.Consumers, o.Cost, found = lr.Explainer.ClaimConsumers(ctx, o.Object.Namespace, o.Object.Name)
		*gaps = append(*gaps, found...)
	case "StatefulSet.apps":
		sts, err := lr.Clients.Dynamic.Resource(res.GVR()).Namespace(o.Object.Namespace).Get(ctx, o.Object.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			break // in the manifest but not on the cluster: it holds nothing
		}
		if err != nil {
			*gaps = append(*gaps, cluster.Gap(report.OpGet, o.Object.GapID(), fmt.Sprintf("reading %s", o.Object), err))
			o.Detail = "its volumeClaimTemplates could not be read"
			break
		}
		if d := StatefulSetDetail(sts); d != "" {
			o.Detail = d
		}
		claims := lr.TemplateClaims(ctx, sts, gaps)
		if !o.InManifest || o.Keep {
			for i := range claims {
				claims[i].WithOwner = false // the uninstall leaves the StatefulSet, so its claims too
			}
		}
		return o, claims
	}
	return o, nil
}

// liveReleaseName is the release helm-controller last recorded (status.history[0]), else the
// one the spec names.
func liveReleaseName(hr *unstructured.Unstructured) string {
	if hist, _, _ := unstructured.NestedSlice(hr.Object, "status", "history"); len(hist) > 0 {
		if latest, ok := hist[0].(map[string]any); ok {
			name, _ := latest["name"].(string)
			ns, _ := latest["namespace"].(string)
			if name != "" {
				return ns + "/" + name
			}
		}
	}
	return helm.ReleaseName(hr)
}

// sweepFailures names every type a sweep could not list: one line per type when one or two
// failed, else one line per kind of failure (forbidden, …) naming the types, so that a reader
// without cluster-wide list rights gets a readable UNKNOWN, not one line per served type.
func sweepFailures(failed []finalizers.ReadFailure, what string) []report.Gap {
	if len(failed) <= 2 {
		var out []report.Gap
		for _, f := range failed {
			out = append(out, f.Gap("", fmt.Sprintf("listing %s %s", f.Resource, what)))
		}
		return out
	}
	byReason := map[report.GapReason][]string{}
	for _, f := range failed {
		r := cluster.GapReason(f.Err)
		byReason[r] = append(byReason[r], f.Resource)
	}
	var out []report.Gap
	for _, r := range slices.Sorted(maps.Keys(byReason)) {
		rs := byReason[r]
		out = append(out, report.Gap{Op: report.OpList, Reason: r, What: fmt.Sprintf("listing %d types %s", len(rs), what), Error: string(r) + ": " + strings.Join(rs, ", ")})
	}
	return out
}
