package retire

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/retire/helmjudge"
	"github.com/kubeforensics/suite/internal/workload"
)

// DefaultPersistentKinds are the kinds whose deletion loses state, as `Kind` or `Kind.group`.
var DefaultPersistentKinds = []string{
	"PersistentVolumeClaim",
	"PersistentVolume",
	"Namespace",
	"StatefulSet.apps",
	"CustomResourceDefinition.apiextensions.k8s.io",
	"HelmRelease.helm.toolkit.fluxcd.io",
	"Cluster.postgresql.cnpg.io",
	fluxInstanceKind,
	"Node",
	clusterAPIClusterKind,
}

// clusterAPIClusterKind is Cluster API's Cluster: deleting one makes its providers
// deprovision the workload cluster it stands for (control plane, machines, and with them every
// workload and volume on it). A chart that renders one (microsoft/multicluster-gitops'
// aks-cluster-chart) deletes the cluster when its HelmRelease is uninstalled.
const clusterAPIClusterKind = "Cluster.cluster.x-k8s.io"

// fluxInstanceKind is the Flux Operator's FluxInstance: deleting one uninstalls Flux with its
// CRDs, and with them every Flux object in the cluster, as deleting any CRD deletes its custom
// resources (controlplaneio-fluxcd/flux-operator issues 416 and 423: the operator's own
// behaviour, kept on purpose; it drops their finalizers first, so what they applied stays,
// unmanaged).
const fluxInstanceKind = "FluxInstance.fluxcd.controlplane.io"

// Kinds is the set of persistent kinds: `Kind.group` matches one group, a bare `Kind` any group.
type Kinds map[string]bool

// NewKinds returns the default persistent kinds plus extra ones (from --persistent-kind).
func NewKinds(extra ...string) (Kinds, error) {
	k := Kinds{}
	for _, s := range append(append([]string(nil), DefaultPersistentKinds...), extra...) {
		s = strings.TrimSpace(s)
		if s == "" || strings.ContainsAny(s, " /_") {
			return nil, fmt.Errorf("persistent kind %q: want Kind or Kind.group, e.g. Cluster.postgresql.cnpg.io", s)
		}
		k[s] = true
	}
	return k, nil
}

// Has reports whether objects of ref's kind are persistent.
func (k Kinds) Has(ref Ref) bool { return k[ref.GroupKind()] || k[ref.Kind] }

// Persistence says what deleting the removed object loses, or nil when it holds no state. The
// counts come from the base builds (all) and, in live mode, from the cluster (r.Live.Count).
// For a custom resource of no listed kind it records on r what keeps its operator's state, or
// why nothing shows what the operator does with it (customState).
func (k Kinds) Persistence(r *Removal, all []*unstructured.Unstructured) *Persistence {
	ref := r.Object
	if !k.Has(ref) {
		var p *Persistence
		p, r.stateKept, r.stateUnknown = customState(r, all)
		return p
	}
	liveCount := -1
	if r.Live != nil && r.Live.Exists {
		liveCount = r.Live.Count
	}
	switch ref.GroupKind() {
	case "PersistentVolumeClaim":
		return &Persistence{Detail: "the claim's volume is released; with reclaim policy Delete its data is lost"}
	case "PersistentVolume":
		return &Persistence{Detail: "the volume and, with reclaim policy Delete, its data"}
	case "Namespace":
		n := countIn(all, func(o *unstructured.Unstructured) bool { return o.GetNamespace() == ref.Name })
		return counted(fmt.Sprintf("deleting a namespace cascades to everything in it: %d objects declared at base", n), n, liveCount, "objects live in it")
	case "StatefulSet.apps":
		if r.Live != nil && r.Live.Exists {
			return liveStatefulSet(r.Live)
		}
		return statefulSet(r.base)
	case "CustomResourceDefinition.apiextensions.k8s.io":
		group, kind := crdKind(r.base, ref.Name)
		n := countIn(all, func(o *unstructured.Unstructured) bool {
			gvk := o.GroupVersionKind()
			return gvk.Group == group && gvk.Kind == kind
		})
		return counted(fmt.Sprintf("deleting a CRD deletes every custom resource of it: %d declared at base", n), n, liveCount, "live in the cluster")
	case helmReleaseKind:
		return helmPersistence(r.Helm)
	case "Node":
		// A Node in Git labels or taints one the kubelet registered; deleting it deletes the
		// registration, and the pod garbage collector deletes every pod bound to it (a kubelet
		// registers again only when it restarts).
		return &Persistence{Detail: "the kubelet's node registration: the pod garbage collector deletes every pod bound to the node, which stays out of the cluster until its kubelet restarts"}
	case clusterAPIClusterKind:
		return &Persistence{Detail: "Cluster API deprovisions the workload cluster: its control plane, its machines and everything running on it"}
	case "Cluster.postgresql.cnpg.io":
		return &Persistence{Detail: "the CloudNativePG operator deletes the PostgreSQL cluster, its pods and its claims"}
	case fluxInstanceKind:
		n := countIn(all, func(o *unstructured.Unstructured) bool {
			return strings.HasSuffix(o.GroupVersionKind().Group, ".toolkit.fluxcd.io")
		})
		return counted(fmt.Sprintf("the Flux Operator uninstalls Flux with its CRDs, and with them every Flux object in the cluster, leaving what they applied unmanaged: %d declared at base", n), n, liveCount, "live in the cluster")
	}
	return &Persistence{Detail: ref.GroupKind() + " is listed as persistent (--persistent-kind)"}
}

func counted(detail string, declared, live int, liveWhat string) *Persistence {
	p := &Persistence{Detail: detail, Count: declared}
	if live >= 0 {
		p.Count = live
		p.Detail += fmt.Sprintf(", %d %s", live, liveWhat)
	}
	return p
}

func countIn(objs []*unstructured.Unstructured, match func(*unstructured.Unstructured) bool) int {
	n := 0
	for _, o := range objs {
		if match(o) {
			n++
		}
	}
	return n
}

// statefulSet is persistent only when it has volumeClaimTemplates; its retention policy says
// whether the claims go with it (helmjudge.StatefulSetDetail).
func statefulSet(base *unstructured.Unstructured) *Persistence {
	if base == nil {
		return &Persistence{Detail: "a StatefulSet known only from the live inventory: check its volumeClaimTemplates by hand"}
	}
	if d := helmjudge.StatefulSetDetail(base); d != "" {
		return &Persistence{Detail: d}
	}
	return nil
}

// liveStatefulSet is what deleting the live StatefulSet loses: nothing without
// volumeClaimTemplates, else each claim it made, deleted with it or left orphaned as its
// persistentVolumeClaimRetentionPolicy.whenDeleted says.
func liveStatefulSet(l *Live) *Persistence {
	if l.Templates == "" {
		return nil
	}
	if len(l.Claims) == 0 {
		return &Persistence{Detail: l.Templates + "; no claim made from them was found"}
	}
	var names []string
	for _, c := range l.Claims {
		fate := "left orphaned"
		if c.WithOwner {
			fate = "deleted with it"
		}
		names = append(names, fmt.Sprintf("persistentvolumeclaims/%s -n %s (%s)", c.Object.Name, c.Object.Namespace, fate))
	}
	return &Persistence{Detail: l.Templates + ": " + strings.Join(names, ", "), Count: len(l.Claims)}
}

// crdKind reads the group and kind a CRD serves, from its manifest or, lacking that, its name.
func crdKind(base *unstructured.Unstructured, name string) (string, string) {
	if base != nil {
		g, _, _ := unstructured.NestedString(base.Object, "spec", "group")
		k, _, _ := unstructured.NestedString(base.Object, "spec", "names", "kind")
		if g != "" && k != "" {
			return g, k
		}
	}
	_, group, _ := strings.Cut(name, ".")
	return group, ""
}

// mounters lists the workloads in objs whose pod template mounts claim.
func mounters(claim Ref, objs []*unstructured.Unstructured) []Ref {
	var out []Ref
	for _, o := range objs {
		if o.GetNamespace() != claim.Namespace {
			continue
		}
		if vols, ok, err := workload.PodVolumes(o); ok && err == nil && workload.MountsClaim(vols, claim.Name) {
			out = append(out, RefOf(o))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID() < out[j].ID() })
	return out
}
