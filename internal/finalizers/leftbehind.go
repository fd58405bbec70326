package finalizers

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// leftover is one row of the table of what keeps existing outside the cluster when a product's
// finalizer is stripped by hand: which objects it applies to, the field of the object that
// identifies the thing left behind, and where that field is defined.
type leftover struct {
	// group and kind select the objects ("" kind: every kind of the group); finalizer, when
	// set, selects by finalizer instead, for products whose kinds are many (Crossplane).
	group, kind, finalizer string
	// field is the path of the identifier: "spec.providerID", "metadata.name", or an
	// annotation as "metadata.annotations[crossplane.io/external-name]".
	field string
	// what renders the thing left behind from the identifier.
	what string
	// source names the API that defines the field, so the entry can be checked.
	source string
}

// leftovers is the table, in one place: node autoscalers and Cluster API machines leave their
// cloud instance, managed cloud resources their external resource, storage operators their
// pools and volumes.
var leftovers = []leftover{
	{group: "karpenter.sh", kind: "NodeClaim", field: "status.providerID",
		what: "the cloud instance %s keeps running (and billing) with nothing to terminate it", source: "Karpenter's NodeClaim API (karpenter.sh/v1, status.providerID)"},
	{group: "cluster.x-k8s.io", kind: "Machine", field: "spec.providerID",
		what: "the infrastructure machine %s keeps running (and billing) with nothing to delete it", source: "Cluster API's Machine API (cluster.x-k8s.io/v1beta1, spec.providerID)"},
	{finalizer: "finalizer.managedresource.crossplane.io", field: "metadata.annotations[crossplane.io/external-name]",
		what: "the external resource %s stays in the provider's cloud, unmanaged", source: "Crossplane's managed resource API (annotation crossplane.io/external-name)"},
	{group: "ceph.rook.io", kind: "CephBlockPool", field: "metadata.name",
		what: "the Ceph pool %s and the RBD images in it (their data) stay in the Ceph cluster", source: "Rook's CephBlockPool API (the pool is named after the object)"},
	{group: "ceph.rook.io", kind: "CephFilesystem", field: "metadata.name",
		what: "the CephFS filesystem %s and its data pools stay in the Ceph cluster", source: "Rook's CephFilesystem API (the filesystem is named after the object)"},
	{group: "ceph.rook.io", kind: "CephObjectStore", field: "metadata.name",
		what: "the object store %s, its pools and buckets stay in the Ceph cluster", source: "Rook's CephObjectStore API (the store is named after the object)"},
	{group: "ceph.rook.io", kind: "CephCluster", field: "spec.dataDirHostPath",
		what: "the Ceph cluster's daemons' data stays on the hosts under %s, and its OSD disks keep their data", source: "Rook's CephCluster API (spec.dataDirHostPath)"},
	{group: "longhorn.io", kind: "Volume", field: "metadata.name",
		what: "the replicas of Longhorn volume %s stay on the nodes' disks", source: "Longhorn's Volume API (replicas are named after the volume)"},
}

// leftBehind returns what stripping finalizer from obj leaves outside the cluster, with the
// identifier read from the object and the source of the table's entry; ok is false when the
// table has no row for it or the identifier is not set.
func leftBehind(obj *unstructured.Unstructured, group, kind, finalizer string) (string, bool) {
	for _, l := range leftovers {
		switch {
		case l.finalizer != "" && l.finalizer != finalizer:
			continue
		case l.finalizer == "" && (l.group != group || (l.kind != "" && l.kind != kind)):
			continue
		}
		id := fieldOf(obj, l.field)
		if id == "" {
			continue
		}
		return fmt.Sprintf(l.what, id) + " (from " + l.field + "; " + l.source + ")", true
	}
	return "", false
}

// fieldOf reads a dotted path or an annotation of the object as a string.
func fieldOf(obj *unstructured.Unstructured, path string) string {
	if key, ok := strings.CutPrefix(path, "metadata.annotations["); ok {
		return obj.GetAnnotations()[strings.TrimSuffix(key, "]")]
	}
	v, _, _ := unstructured.NestedString(obj.Object, strings.Split(path, ".")...)
	return v
}

// nameLeftovers replaces the generic "left behind" of every finalizer strip with what the table
// says stays outside the cluster for this object, read from the object itself; for an object the
// table does not know, with the external resources its spec and status record
// (recordedResources).
func nameLeftovers(e *Explanation, obj *unstructured.Unstructured) {
	if obj == nil {
		return
	}
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		what, ok := leftBehind(obj, e.Object.Group, e.Object.Kind, f.Name)
		if !ok {
			rec := recordedResources(obj)
			if len(rec) == 0 || !genericCost(f.Remedies) {
				continue
			}
			what = "what the controller would have cleaned up; the object records, and would leave behind with nothing to remove them: " + strings.Join(rec, ", ")
		}
		for j := range f.Remedies {
			if r := &f.Remedies[j]; (r.LastResort || r.Code == ReasonStripFinalizer) && strings.HasPrefix(r.Cost, "left behind: ") {
				r.Cost = "left behind: " + what
			}
		}
	}
}

// genericCost reports whether a strip's cost is still the generic description of an unknown
// controller's cleanup, which the object's recorded resources may replace; a known finalizer's
// own description stays. The generic cost of a finalizer without a domain (whose controller is
// unknown) is one of them.
func genericCost(rs []Remediation) bool {
	for _, r := range rs {
		if r.Code == ReasonStripFinalizer && (r.Cost == "left behind: whatever the controller would have cleaned up outside the cluster" || r.Cost == "left behind: whatever that controller would have cleaned up") {
			return true
		}
	}
	return false
}
