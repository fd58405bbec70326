package flux

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"github.com/fluxcd/cli-utils/pkg/object"
	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/kubeforensics/suite/internal/report"
)

// The Flux resources the chain reads.
var (
	KustomizationGVR = kustomizev1.GroupVersion.WithResource("kustomizations")
	HelmReleaseGVR   = helmv2.GroupVersion.WithResource("helmreleases")
	// SourceGVRs maps a sourceRef kind to its resource.
	SourceGVRs = map[string]schema.GroupVersionResource{
		sourcev1.GitRepositoryKind: sourcev1.GroupVersion.WithResource("gitrepositories"),
		sourcev1.OCIRepositoryKind: sourcev1.GroupVersion.WithResource("ocirepositories"),
		sourcev1.BucketKind:        sourcev1.GroupVersion.WithResource("buckets"),
	}
)

// ErrNotInstalled means the API server does not serve Kustomizations.
var ErrNotInstalled = errors.New("the Kustomization API (kustomize.toolkit.fluxcd.io/v1) is not served")

// pageSize bounds each LIST page, so a large fleet is read in pieces.
const pageSize = 500

// SourceObject is the part of a source the chain needs.
type SourceObject struct {
	Ready    *Condition
	Revision string
}

// Objects are the live Flux objects a chain is built from, decoded into Flux's own types.
type Objects struct {
	Kustomizations []kustomizev1.Kustomization
	// KStatus holds each Kustomization's kstatus, keyed by namespace/name.
	KStatus map[string]string
	// Sources is keyed by kind/namespace/name.
	Sources      map[string]SourceObject
	HelmReleases []helmv2.HelmRelease
	// Now is when the objects were read: progress is measured against it (zero: the time
	// Build runs).
	Now time.Time
	// Gaps are the reads that failed; Incomplete is set when any did.
	Gaps       []report.Gap
	Incomplete bool
	// Unlisted are the LISTs of ExtraGVRs (and of what Kustomizations applied in other
	// namespaces) that failed: only a cause that rests on one is UNKNOWN (its reads are the
	// cause's), so they are gaps that do not change the verdict, not incomplete reads.
	Unlisted []report.Gap
	// unread holds the source kinds whose LIST failed (and HelmRelease, when the HelmRelease
	// LIST failed): their absence proves nothing.
	unread map[string]bool
	// inherited holds, by Kustomization namespace/name, the dependencies it inherits from what
	// creates it (Node.Inherited); only a repository's chain knows them (DeclaredObjects).
	inherited map[string][]InheritedDep
	// namespace is the namespace listed ("" for all): an object elsewhere is absent because it
	// was not listed, unless FetchOutOfScope read it.
	namespace string
	// fetched records each GET FetchOutOfScope and FetchReferences made, by kind/namespace/name:
	// "" when the server said the object does not exist, else why it could not be read.
	fetched map[string]string
	// graph is every object read, of every kind, with its references (objgraph.go); leaves are
	// the Secrets, ServiceAccounts and ConfigMaps FetchReferences found, by kind/namespace/name.
	graph  map[string]*gobj
	leaves map[string]bool
}

// Read lists Kustomizations, their sources and HelmReleases in namespace ("" for all), one
// paginated LIST per type, all in parallel. A source or HelmRelease type the server does not
// serve is skipped; one that cannot be listed is a warning. ErrNotInstalled is returned when
// Kustomizations are not served; any other failure to list them is returned as is.
func Read(ctx context.Context, dyn dynamic.Interface, namespace string) (*Objects, error) {
	objs := &Objects{KStatus: map[string]string{}, Sources: map[string]SourceObject{}, unread: map[string]bool{},
		namespace: namespace, fetched: map[string]string{}}
	var (
		mu     sync.Mutex
		wg     sync.WaitGroup
		ksErr  error
		gvrs   = []schema.GroupVersionResource{KustomizationGVR, HelmReleaseGVR}
		kindOf = map[schema.GroupVersionResource]string{HelmReleaseGVR: helmReleaseKind}
	)
	for kind, gvr := range SourceGVRs {
		gvrs = append(gvrs, gvr)
		kindOf[gvr] = kind
	}
	extra := map[schema.GroupVersionResource]bool{}
	for kind, gvr := range ExtraGVRs {
		gvrs = append(gvrs, gvr)
		kindOf[gvr] = kind
		extra[gvr] = true
	}
	for _, gvr := range gvrs {
		wg.Go(func() {
			items, err := listAll(ctx, dyn.Resource(gvr).Namespace(namespace))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil && gvr == KustomizationGVR:
				ksErr = err
			case apierrors.IsNotFound(err):
				// the type is not installed: nothing of it can be referenced successfully
			case err != nil && extra[gvr]:
				// a kind only the walk of the graph reads: a cause that rests on it is UNKNOWN
				// (stateOf), the rest of the chain does not
				objs.addUnlisted(gvr, fmt.Sprintf("listing %s", gvr.GroupResource()), err, "")
				objs.unread[kindOf[gvr]] = true
			case err != nil:
				objs.addGap(report.OpList, gvrID(gvr, "", ""), fmt.Sprintf("listing %s", gvr.GroupResource()), err)
				objs.unread[kindOf[gvr]] = true
			default:
				if derr := objs.add(gvr, kindOf[gvr], items); derr != nil {
					objs.addDecodeGap(derr)
				}
			}
		})
	}
	wg.Wait()
	if apierrors.IsNotFound(ksErr) {
		return nil, ErrNotInstalled
	}
	if ksErr != nil {
		return nil, fmt.Errorf("listing %s: %w", KustomizationGVR.GroupResource(), ksErr)
	}
	return objs, nil
}

// listAll reads every page of a LIST.
func listAll(ctx context.Context, ri dynamic.ResourceInterface) ([]unstructured.Unstructured, error) {
	return listSelected(ctx, ri, "")
}

// listSelected lists what ri holds with the labels selector selects, page by page.
func listSelected(ctx context.Context, ri dynamic.ResourceInterface, selector string) ([]unstructured.Unstructured, error) {
	var out []unstructured.Unstructured
	opts := metav1.ListOptions{Limit: pageSize, LabelSelector: selector}
	for {
		list, err := ri.List(ctx, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, list.Items...)
		if list.GetContinue() == "" {
			return out, nil
		}
		opts.Continue = list.GetContinue()
	}
}

// add decodes listed items of one type into objs; the caller holds the lock.
func (objs *Objects) add(gvr schema.GroupVersionResource, sourceKind string, items []unstructured.Unstructured) error {
	conv := runtime.DefaultUnstructuredConverter
	for i := range items {
		u := &items[i]
		var err error
		switch {
		case gvr == KustomizationGVR:
			objs.addGraph(kustomizationKind, u)
			var ks kustomizev1.Kustomization
			if err = conv.FromUnstructured(u.Object, &ks); err == nil {
				objs.Kustomizations = append(objs.Kustomizations, ks)
				objs.KStatus[ks.Namespace+"/"+ks.Name] = kstatusOf(u)
			}
		case gvr == HelmReleaseGVR:
			objs.addGraph(helmReleaseKind, u)
			var hr helmv2.HelmRelease
			if err = conv.FromUnstructured(u.Object, &hr); err == nil {
				objs.HelmReleases = append(objs.HelmReleases, hr)
			}
		case SourceGVRs[sourceKind] == gvr || sourceKind == externalArtifactKind:
			objs.addGraph(sourceKind, u)
			err = objs.addSource(sourceKind, u)
		default:
			objs.addGraph(sourceKind, u)
		}
		if err != nil {
			return &decodeError{gvr: gvr, namespace: u.GetNamespace(), name: u.GetName(), err: err}
		}
	}
	return nil
}

// addSource decodes a GitRepository, OCIRepository, Bucket or ExternalArtifact into its Ready
// state and revision.
func (objs *Objects) addSource(kind string, u *unstructured.Unstructured) error {
	var (
		conds    []metav1.Condition
		artifact interface{ GetArtifact() *meta.Artifact }
	)
	conv := runtime.DefaultUnstructuredConverter
	switch kind {
	case sourcev1.GitRepositoryKind:
		var s sourcev1.GitRepository
		if err := conv.FromUnstructured(u.Object, &s); err != nil {
			return err
		}
		conds, artifact = s.Status.Conditions, &s
	case sourcev1.OCIRepositoryKind:
		var s sourcev1.OCIRepository
		if err := conv.FromUnstructured(u.Object, &s); err != nil {
			return err
		}
		conds, artifact = s.Status.Conditions, &s
	case sourcev1.ExternalArtifactKind:
		var s sourcev1.ExternalArtifact
		if err := conv.FromUnstructured(u.Object, &s); err != nil {
			return err
		}
		conds, artifact = s.Status.Conditions, &s
	default:
		var s sourcev1.Bucket
		if err := conv.FromUnstructured(u.Object, &s); err != nil {
			return err
		}
		conds, artifact = s.Status.Conditions, &s
	}
	so := SourceObject{Ready: condition(conds, "Ready")}
	if a := artifact.GetArtifact(); a != nil {
		so.Revision = a.Revision
	}
	objs.Sources[kind+"/"+u.GetNamespace()+"/"+u.GetName()] = so
	return nil
}

// kstatusOf computes an object's kstatus the way Flux does; a failure to compute is Unknown.
func kstatusOf(u *unstructured.Unstructured) string {
	res, err := status.Compute(u)
	if err != nil {
		return string(status.UnknownStatus)
	}
	return string(res.Status)
}

// condition returns the condition of type t, or nil.
func condition(conds []metav1.Condition, t string) *Condition {
	for _, c := range conds {
		if c.Type == t {
			return &Condition{Status: string(c.Status), Reason: c.Reason, Message: c.Message}
		}
	}
	return nil
}

// maxOutOfScope bounds the GETs FetchOutOfScope makes for what listed Kustomizations apply in
// other namespaces; past it the rest is not read, and the chain says so (UNKNOWN).
const maxOutOfScope = 500

// FetchOutOfScope reads, one GET each, the Kustomizations and sources that the listed ones
// reference in other namespaces than the listed namespace, so a -n view still sees its whole
// upstream; the HelmReleases and Kustomizations the listed ones apply (their inventory) in
// other namespaces, so a release a Kustomization applies into its own namespace is judged
// with the chain that applies it, not left unread behind a Ready Kustomization; and the
// HelmReleases in other namespaces a HelmRelease read depends on, directly or through others
// (their state, and what a readyExpr reads). A reference that does not exist stays absent (a
// finding); a failed read is a warning, and what depends on it is UNKNOWN.
func (objs *Objects) FetchOutOfScope(ctx context.Context, dyn dynamic.Interface, namespace string) {
	if namespace == "" {
		return
	}
	tried := map[string]bool{}
	objs.fetchApplied(ctx, dyn, namespace, tried)
	for i := 0; i < len(objs.HelmReleases); i++ {
		hr := &objs.HelmReleases[i]
		for _, d := range hr.Spec.DependsOn {
			// An entry without a namespace means its HelmRelease's own, which for a HelmRelease
			// read here from another namespace is not the one listed either.
			ns := cmp.Or(d.Namespace, hr.Namespace)
			if ns == namespace || tried["HelmRelease/"+ns+"/"+d.Name] {
				continue
			}
			tried["HelmRelease/"+ns+"/"+d.Name] = true
			objs.fetch(ctx, dyn, HelmReleaseGVR, "", ns, d.Name)
		}
	}
}

// fetchApplied reads the Kustomizations the listed ones reference or apply in other namespaces
// (dependsOn, inventory) and the sources they build from there, until nothing new is named, and
// the HelmReleases their inventories hold there: at most maxOutOfScope GETs for what they apply.
func (objs *Objects) fetchApplied(ctx context.Context, dyn dynamic.Interface, namespace string, tried map[string]bool) {
	objs.listApplied(ctx, dyn, namespace, tried)
	applied := 0
	for again := true; again; {
		again = false
		for i := 0; i < len(objs.Kustomizations); i++ {
			ks := &objs.Kustomizations[i]
			for _, dep := range dependencies(ks) {
				ns, name, _ := strings.Cut(dep, "/")
				if ns == namespace || tried["Kustomization/"+dep] {
					continue
				}
				tried["Kustomization/"+dep] = true
				again = objs.fetch(ctx, dyn, KustomizationGVR, "", ns, name) || again
			}
			if ks.Status.Inventory != nil {
				for _, e := range ks.Status.Inventory.Entries {
					id, err := object.ParseObjMetadata(e.ID)
					if err != nil || id.Namespace == "" || id.Namespace == namespace {
						continue
					}
					gvr, kind := HelmReleaseGVR, helmReleaseKind
					switch id.GroupKind {
					case schema.GroupKind{Group: HelmReleaseGVR.Group, Kind: helmReleaseKind}:
					case schema.GroupKind{Group: KustomizationGVR.Group, Kind: "Kustomization"}:
						gvr, kind = KustomizationGVR, "Kustomization"
					default:
						continue
					}
					key := kind + "/" + id.Namespace + "/" + id.Name
					if tried[key] {
						continue
					}
					tried[key] = true
					if applied++; applied > maxOutOfScope {
						objs.Gaps = append(objs.Gaps, report.Gap{Op: report.OpGet, Subject: report.ObjectID{Namespace: namespace}, Reason: report.GapTooLarge,
							What: fmt.Sprintf("reading what Kustomizations in %s apply in other namespaces", namespace), Error: fmt.Sprintf("more than %d Flux objects, the rest were not read", maxOutOfScope)})
						objs.Incomplete = true
						return
					}
					added := objs.fetch(ctx, dyn, gvr, "", id.Namespace, id.Name)
					again = again || (added && gvr == KustomizationGVR)
				}
			}
			ref := ks.Spec.SourceRef
			ns := ref.Namespace
			if ns == "" || ns == namespace || tried[ref.Kind+"/"+ns+"/"+ref.Name] {
				continue
			}
			tried[ref.Kind+"/"+ns+"/"+ref.Name] = true
			if gvr, ok := SourceGVRs[ref.Kind]; ok {
				objs.fetch(ctx, dyn, gvr, ref.Kind, ns, ref.Name)
			}
		}
	}
}

// appliedFromLabel is the label kustomize-controller sets on what it applies to the namespace of
// the Kustomization that applied it.
const appliedFromLabel = "kustomize.toolkit.fluxcd.io/namespace"

// listApplied lists, across namespaces, the HelmReleases and Kustomizations that Kustomizations
// in namespace applied elsewhere (by kustomize-controller's label), one LIST each. One that
// fails, as for a user who may read one namespace only, is a warning: the inventories are still
// followed.
func (objs *Objects) listApplied(ctx context.Context, dyn dynamic.Interface, namespace string, tried map[string]bool) {
	for _, gvr := range []schema.GroupVersionResource{HelmReleaseGVR, KustomizationGVR} {
		items, err := listSelected(ctx, dyn.Resource(gvr), appliedFromLabel+"="+namespace)
		if err != nil {
			objs.addUnlisted(gvr, fmt.Sprintf("listing %s that Kustomizations in %s applied in other namespaces", gvr.GroupResource(), namespace),
				err, "; only their inventories were followed")
			continue
		}
		var elsewhere []unstructured.Unstructured
		for _, u := range items {
			key := kindOfGVR(gvr) + "/" + u.GetNamespace() + "/" + u.GetName()
			if u.GetNamespace() == namespace || tried[key] {
				continue
			}
			tried[key] = true
			elsewhere = append(elsewhere, u)
		}
		if err := objs.add(gvr, "", elsewhere); err != nil {
			objs.addGap(report.OpDecode, gvrID(gvr, "", ""), fmt.Sprintf("reading %s that Kustomizations in %s applied in other namespaces", gvr.GroupResource(), namespace), err)
		}
	}
}

// fetch GETs one object into objs and reports whether it was added.
func (objs *Objects) fetch(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, sourceKind, ns, name string) bool {
	u, err := dyn.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	key := cmp.Or(sourceKind, kindOfGVR(gvr)) + "/" + ns + "/" + name
	if objs.fetched == nil {
		objs.fetched = map[string]string{} // Objects not made by Read
	}
	if apierrors.IsNotFound(err) {
		objs.fetched[key] = ""
		return false
	}
	if err == nil {
		err = objs.add(gvr, sourceKind, []unstructured.Unstructured{*u})
	}
	if err != nil {
		objs.addGap(report.OpGet, gvrID(gvr, ns, name), fmt.Sprintf("reading %s %s/%s", gvr.GroupResource(), ns, name), err)
		objs.fetched[key] = fmt.Sprintf("reading it failed: %v", err)
		return false
	}
	return true
}

// helmReleaseKind is the kind of HelmReleaseGVR, the key of its failed LIST in Objects.unread.
const helmReleaseKind = "HelmRelease"

// kindOfGVR is the kind of a resource fetch reads that is not a source.
func kindOfGVR(gvr schema.GroupVersionResource) string {
	if gvr == HelmReleaseGVR {
		return helmReleaseKind
	}
	return "Kustomization"
}

// helmReleaseAbsent says why the HelmRelease id (namespace/name) is not among the objects read:
// missing is true when the server said it does not exist (it is in the namespace listed and the
// LIST succeeded, or a GET found nothing); otherwise why is why the chain could not tell, and
// warned whether a failed read already says so in Gaps.
func (objs *Objects) helmReleaseAbsent(id string) (missing bool, why string, warned bool) {
	ns, _ := splitID(id)
	if objs.unread[helmReleaseKind] {
		return false, "listing helmreleases.helm.toolkit.fluxcd.io failed", true
	}
	if objs.namespace == "" || ns == objs.namespace {
		return true, "", false
	}
	if why, ok := objs.fetched[helmReleaseKind+"/"+id]; ok {
		return why == "", why, why != ""
	}
	return false, fmt.Sprintf("it is in namespace %s, outside the namespace listed (%s), and was not read", ns, objs.namespace), false
}
