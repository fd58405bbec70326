package finalizers

import "strings"

// known describes a finalizer whose remover is well known: who removes it, what it waits for,
// and how to find the controller (namespace and name hints; empty means search by domain).
type known struct {
	removedBy string
	waitsFor  string
	// controllers are names of workloads that remove it, searched in every namespace: only
	// where the cluster cannot show the tie (a remover outside the cluster, a domain no API
	// group of its types shares); the evidence ranking finds the others (issue #38,
	// TestKnownProductsFoundWithoutNameHints). Flux's are modelled on purpose.
	controllers []string
	// lost is what stays behind if the finalizer is removed by hand.
	lost string
}

// The facts the registry (registry.go) holds of each finalizer whose remover is known, one
// function per finalizer: who removes it, what it waits for, where its controller is searched,
// and what stripping it loses.

func jobTracking(_, _ string) known {
	return known{
		removedBy: "kube-controller-manager (job controller)",
		waitsFor:  "the Job controller has counted this pod in its Job's status",
		lost:      "the Job's succeeded/failed counts may miss this pod",
	}
}

func loadBalancerCleanupFacts(_, _ string) known {
	return known{
		removedBy: "the cloud controller manager (service controller)",
		waitsFor:  "the cloud load balancer of this Service is deleted",
		// A fact the cluster does not show: the service controller's finalizer has Kubernetes'
		// own domain and the cloud controller manager most often runs outside the cluster (a
		// managed control plane) or under a core bootstrap role, leaving no RBAC trace to rank;
		// serviceLoadBalancer (service.go) looks for a workload of this name only.
		controllers: []string{"cloud-controller-manager"},
		lost:        "the cloud load balancer keeps running (and billing) with nothing to remove it",
	}
}

func externalAttacher(name, _ string) known {
	driver := strings.TrimPrefix(name, "external-attacher/")
	return known{
		removedBy:   "the external-attacher sidecar of CSI driver " + driver,
		waitsFor:    "the volume is detached from the node",
		controllers: []string{driverWorkloadHint(driver)},
		lost:        "the volume may stay attached to the node, so no other node can attach it",
	}
}

func externalProvisioner(_, _ string) known {
	return known{
		removedBy: "the external-provisioner sidecar of the CSI driver that provisioned the volume",
		waitsFor:  "the driver deletes the volume in its storage backend",
		lost:      "the volume may stay in the storage backend, with nothing to delete it",
	}
}

func snapshotController(name, _ string) known {
	return known{
		removedBy: "the CSI snapshot-controller",
		waitsFor:  snapshotWait(name),
		// A fact the cluster does not show: the finalizer's domain is Kubernetes'
		// snapshot.storage.kubernetes.io, its types' group snapshot.storage.k8s.io, so no
		// domain tie joins the controller's RBAC on that group to the finalizer
		// (TestSnapshotControllerNeedsItsName). A general rule pairing `<x>.kubernetes.io`
		// with the group `<x>.k8s.io` would make this hint redundant.
		controllers: []string{"snapshot-controller"},
		lost:        "the snapshot in the storage backend may be left behind or lose its source",
	}
}

func certManager(_, _ string) known {
	return known{
		removedBy: "cert-manager",
		waitsFor:  "cert-manager cleans up what it created for this object (ACME challenge records, secrets)",
		lost:      "ACME challenge DNS or HTTP records may be left in place",
	}
}

func cloudNativePG(_, _ string) known {
	return known{
		removedBy: "the CloudNativePG operator",
		waitsFor:  "the operator finishes the cleanup of this PostgreSQL object",
		lost:      "database objects or WAL archives the operator manages may be left behind",
	}
}

func longhorn(_, _ string) known {
	return known{
		removedBy: "the Longhorn manager",
		waitsFor:  "Longhorn deletes the backing volume, replica or backup data",
		lost:      "replicas or backup data stay on the nodes or the backup target",
	}
}

func velero(_, _ string) known {
	return known{
		removedBy: "Velero",
		waitsFor:  "Velero deletes the backup or restore data in object storage",
		lost:      "backup files stay in object storage, and Velero may re-sync the backup back in",
	}
}

// fluxKnown describes finalizers.fluxcd.io for one Flux kind: a source's controller removes
// its stored artifact, a Kustomization's or HelmRelease's garbage-collects what it applied.
func fluxKnown(_, kind string) known {
	ctrl := fluxControllerFor(kind)
	k := known{
		removedBy:   "Flux " + ctrl,
		waitsFor:    ctrl + " finishes its cleanup (garbage-collecting what this object applied, when prune is on)",
		controllers: []string{ctrl},
		lost:        "objects this Flux object applied are left in the cluster unmanaged",
	}
	switch kind {
	case "GitRepository", "OCIRepository", "HelmRepository", "HelmChart", "Bucket":
		k.waitsFor = ctrl + " deletes the artifact it stored for this " + kind
		k.lost = "the " + kind + "'s stored artifact stays in " + ctrl + "'s storage until the controller's own garbage collection removes it; nothing in the cluster is pruned (sources apply nothing)"
	case "HelmRelease":
		k.waitsFor = ctrl + " uninstalls the Helm release (unless spec.uninstall says otherwise)"
		k.lost = "the Helm release and the objects it installed stay in the cluster unmanaged"
	}
	return k
}

// fluxControllerFor maps a Flux kind to the controller that owns its finalizer.
func fluxControllerFor(kind string) string {
	switch kind {
	case "Kustomization":
		return "kustomize-controller"
	case "HelmRelease":
		return "helm-controller"
	case "GitRepository", "OCIRepository", "HelmRepository", "HelmChart", "Bucket":
		return "source-controller"
	case "Alert", "Provider", "Receiver":
		return "notification-controller"
	case "ImageRepository", "ImagePolicy":
		return "image-reflector-controller"
	case "ImageUpdateAutomation":
		return "image-automation-controller"
	}
	return "the Flux controller for " + kind
}

func snapshotWait(name string) string {
	switch {
	case strings.HasSuffix(name, "as-source-protection"):
		return "no volume is being provisioned from this snapshot or claim"
	case strings.HasSuffix(name, "bound-protection"):
		return "the snapshot and its content are unbound"
	}
	return "the snapshot controller finishes its cleanup"
}

// driverWorkloadHint turns a CSI driver name (driver.longhorn.io) into a workload name to look for.
func driverWorkloadHint(driver string) string {
	first, _, _ := strings.Cut(driver, ".")
	if first == "driver" {
		_, rest, _ := strings.Cut(driver, ".")
		first, _, _ = strings.Cut(rest, ".")
	}
	return first
}

// domainOf returns the domain part of a finalizer (`restores.velero.io` of
// `restores.velero.io/external-resources-finalizer`) and the label before its top-level domain,
// the usual stem of the controller's name (`velero`).
func domainOf(finalizer string) (domain, stem string) {
	domain, _, _ = strings.Cut(finalizer, "/")
	labels := strings.Split(domain, ".")
	if len(labels) >= 2 {
		return domain, labels[len(labels)-2]
	}
	return domain, labels[0]
}
