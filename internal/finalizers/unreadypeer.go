package finalizers

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/report"
)

// Bounds of the unready-peer rule.
const (
	// maxPeerKinds bounds the kinds of the object's group listed for peers named by id.
	maxPeerKinds = 6
	// maxPeerList bounds the objects read per kind.
	maxPeerList = 200
)

// specID is a top-level spec field that holds an integer: its path, its name, and whether the
// integer is one of a list.
type specID struct {
	path, field string
	list        bool
}

// specIDs collects the integer values of the object's top-level spec fields, alone or in a list
// of integers (`leader: 0`, `replicas: [0]`), by the field that holds them. Booleans, strings
// and numbers with a fraction are no ids.
func specIDs(spec map[string]any) map[int64][]specID {
	out := map[int64][]specID{}
	for k, v := range spec {
		if l, ok := v.([]any); ok {
			for _, c := range l {
				if n, ok := asInt(c); ok {
					out[n] = append(out[n], specID{path: "spec." + k, field: k, list: true})
				}
			}
			continue
		}
		if n, ok := asInt(v); ok {
			out[n] = append(out[n], specID{path: "spec." + k, field: k})
		}
	}
	// The spec is a map: its fields come in no order, and the evidence names them sorted.
	for n := range out {
		slices.SortFunc(out[n], func(a, b specID) int { return strings.Compare(a.path, b.path) })
		out[n] = slices.Compact(out[n])
	}
	return out
}

// tiedIDs keeps the fields holding n whose name may hold the id of a peer of kind (idTie), as
// their paths.
func tiedIDs(fields []specID, kind string) []string {
	var out []string
	for _, f := range fields {
		if idTie(f.field, kind, f.list) != "" {
			out = append(out, f.path)
		}
	}
	return out
}

// asInt reads an integer as JSON decodes it.
func asInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		if n == float64(int64(n)) {
			return int64(n), true
		}
	}
	return 0, false
}

// unreadyPeers explains a running remover that has done nothing by what the object names by id:
// an object of another kind of the same API group, in the same namespace, whose `spec.<kind>Id`
// (`spuId` on a kind Spu) equals an integer the object's spec holds (`leader: 0`), held by a
// field whose name may hold such an id (idTie: it names the kind, or it names no measure such
// as a count, a port or a generation), where no other object of that kind holds the same id,
// and whose workload is not ready: a StatefulSet or Deployment that it, or an owner it shares with that
// workload, owns, with fewer ready replicas than wanted. A cleanup that has to reach that peer
// (it holds the object's data, it is what removes it there) waits until the workload runs again:
// bringing it back comes before the remover's logs and the strip. Only a workload shown not
// ready counts; a peer whose workload is ready, or that owns none, says nothing. Lists that fail
// are gaps.
func (x *Explainer) unreadyPeers(ctx context.Context, o subject, w ownWord) (evidence, reasons []string, fixes []Remediation, gaps []report.Gap) {
	ns := o.obj.GetNamespace()
	if w.obj == nil || ns == "" || o.res.Group == "" {
		return nil, nil, nil, nil
	}
	spec, _ := w.obj.Object["spec"].(map[string]any)
	ids := specIDs(spec)
	if len(ids) == 0 {
		return nil, nil, nil, nil
	}
	group := x.referableKinds(o.res.Group)
	names := make([]string, 0, len(group))
	for k := range group {
		names = append(names, k)
	}
	sort.Strings(names)
	var workloads []workloadState
	listed := false
	seen := map[string]bool{}
	looked := 0
	for _, k := range names {
		res := group[k]
		if res.GroupKind() == o.res.GroupKind() || !res.Namespaced || !res.Can("list") || !anyTied(ids, res.Kind) {
			continue
		}
		if looked++; looked > maxPeerKinds {
			break
		}
		list, err := x.c.Dynamic.Resource(res.GVR()).Namespace(ns).List(ctx, metav1.ListOptions{Limit: maxPeerList})
		if err != nil {
			gaps = append(gaps, listGap(typeID(res, ns), "listing "+res.QualifiedName()+" in namespace "+ns+" for what "+o.ref().String()+" names by id", err))
			continue
		}
		idField := strings.ToLower(res.Kind[:1]) + res.Kind[1:] + "Id"
		// An id is an identity only when one object of the kind holds it.
		holders := map[int64]int{}
		for i := range list.Items {
			if n, ok := asInt(peerSpec(&list.Items[i])[idField]); ok {
				holders[n]++
			}
		}
		for i := range list.Items {
			peer := &list.Items[i]
			n, ok := asInt(peerSpec(peer)[idField])
			if !ok || holders[n] != 1 {
				continue
			}
			fields := tiedIDs(ids[n], res.Kind)
			if len(fields) == 0 {
				continue
			}
			if !listed {
				listed = true
				var werr []report.Gap
				workloads, werr = x.workloadStates(ctx, ns)
				gaps = append(gaps, werr...)
			}
			peerRef := refFor(res, ns, peer.GetName()).String()
			owners := []string{string(peer.GetUID())}
			for _, r := range peer.GetOwnerReferences() {
				owners = append(owners, string(r.UID))
			}
			for _, wl := range workloads {
				if wl.ready >= wl.want || !slices.ContainsFunc(wl.owners, func(u string) bool { return slices.Contains(owners, u) }) || seen[wl.ref] {
					continue
				}
				seen[wl.ref] = true
				via := "which it owns"
				if !slices.Contains(wl.owners, string(peer.GetUID())) {
					via = "which the owner it shares with it owns"
				}
				verb := " names "
				if len(fields) > 1 {
					verb = " name "
				}
				said := fmt.Sprintf("%s%s%s by its spec.%s %d; its workload %s, %s, has %d of %d replicas ready", strings.Join(fields, " and "), verb, peerRef, idField, n, wl.ref, via, wl.ready, wl.want)
				evidence = append(evidence, said)
				reasons = append(reasons, fmt.Sprintf("what the object names by id is not running: %s. A cleanup that has to reach it waits until it runs again", said))
				fixes = append(fixes, Remediation{Code: ReasonReadyOrRemoveAwaited,
					Summary: fmt.Sprintf("Bring %s back to ready (its pods: %s): %s, which the object names by id, runs through it, and the remover finishes once it can reach it. If it is gone for good, the strip below leaves what it held.", wl.ref, wl.selector, peerRef),
					Command: x.kubectl(ns, "describe", wl.kind+"/"+wl.name)})
			}
		}
	}
	return evidence, reasons, fixes, gaps
}

// anyTied reports whether any field holding an integer may hold the id of a peer of kind: a
// kind no field may name by id is not listed at all (`replicas: 1` alone lists nothing).
func anyTied(ids map[int64][]specID, kind string) bool {
	for _, fields := range ids {
		if len(tiedIDs(fields, kind)) > 0 {
			return true
		}
	}
	return false
}

// peerSpec is an object's spec, or nil.
func peerSpec(u *unstructured.Unstructured) map[string]any {
	s, _ := u.Object["spec"].(map[string]any)
	return s
}

// workloadState is a StatefulSet or Deployment: who owns it and how many replicas are ready.
type workloadState struct {
	kind, name, ref, selector string
	owners                    []string
	want, ready               int32
}

// workloadStates lists the namespace's StatefulSets and Deployments (bounded).
func (x *Explainer) workloadStates(ctx context.Context, ns string) ([]workloadState, []report.Gap) {
	var out []workloadState
	var gaps []report.Gap
	owners := func(refs []metav1.OwnerReference) []string {
		var u []string
		for _, r := range refs {
			u = append(u, string(r.UID))
		}
		return u
	}
	want := func(r *int32) int32 {
		if r == nil {
			return 1
		}
		return *r
	}
	sel := func(s *metav1.LabelSelector) string {
		if s == nil {
			return "no selector"
		}
		return metav1.FormatLabelSelector(s)
	}
	sts, err := x.c.Kube.AppsV1().StatefulSets(ns).List(ctx, metav1.ListOptions{Limit: maxPeerList})
	if err != nil {
		gaps = append(gaps, listGap(report.ObjectID{Group: "apps", Version: "v1", Kind: "StatefulSet", Resource: "statefulsets", Namespace: ns}, "listing statefulsets in namespace "+ns+" for the workloads of what the object names by id", err))
	} else {
		for _, s := range sts.Items {
			out = append(out, statefulSetState(s, owners(s.OwnerReferences), want(s.Spec.Replicas), sel(s.Spec.Selector)))
		}
	}
	deps, err := x.c.Kube.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{Limit: maxPeerList})
	if err != nil {
		gaps = append(gaps, listGap(report.ObjectID{Group: "apps", Version: "v1", Kind: "Deployment", Resource: "deployments", Namespace: ns}, "listing deployments in namespace "+ns+" for the workloads of what the object names by id", err))
	} else {
		for _, d := range deps.Items {
			out = append(out, workloadState{kind: "deployment", name: d.Name, ref: fmt.Sprintf("deployments.apps/%s -n %s", d.Name, ns), selector: sel(d.Spec.Selector),
				owners: owners(d.OwnerReferences), want: want(d.Spec.Replicas), ready: d.Status.ReadyReplicas})
		}
	}
	return out, gaps
}

func statefulSetState(s appsv1.StatefulSet, owners []string, want int32, selector string) workloadState {
	return workloadState{kind: "statefulset", name: s.Name, ref: fmt.Sprintf("statefulsets.apps/%s -n %s", s.Name, s.Namespace), selector: selector,
		owners: owners, want: want, ready: s.Status.ReadyReplicas}
}
