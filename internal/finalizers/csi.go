package finalizers

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// csiProvisionerFinalizer is set on a PersistentVolume by the external-provisioner sidecar of
// the CSI driver that provisioned it; the sidecar removes it once the volume is deleted.
const csiProvisionerFinalizer = "external-provisioner.volume.kubernetes.io/finalizer"

// csiFinalizer explains a CSI sidecar's finalizer: the driver is named (from the volume or the
// attachment itself, else from the finalizer), whether it is installed (its CSIDriver object),
// and which workloads with rights of their own may remove it. Rules that allow everything (a
// GitOps controller's, a cluster manager's) never make a workload the driver's sidecar.
func (x *Explainer) csiFinalizer(ctx context.Context, o subject, f Finalizer, k known) Finalizer {
	driver, gap := x.csiDriverName(ctx, o, f.Name)
	if gap != (report.Gap{}) {
		f.Incomplete = append(f.Incomplete, gap)
	}
	sidecar := "external-attacher"
	if f.Name == csiProvisionerFinalizer {
		sidecar = "external-provisioner"
		k.waitsFor = "the driver deletes the volume in its storage backend"
		k.lost = "the volume may stay in the storage backend, with nothing to delete it"
	}
	f.RemovedBy = fmt.Sprintf("the %s sidecar of CSI driver %s", sidecar, driver)
	f.WaitsFor = k.waitsFor
	installed := false
	_, err := x.c.Kube.StorageV1().CSIDrivers().Get(ctx, driver, metav1.GetOptions{})
	switch {
	case err == nil:
		installed = true
		f.TypeEvidence = append(f.TypeEvidence, fmt.Sprintf("CSI driver %s is installed (csidrivers.storage.k8s.io/%s exists)", driver, driver))
	case apierrors.IsNotFound(err):
		f.TypeEvidence = append(f.TypeEvidence, fmt.Sprintf("CSI driver %s is not installed: csidrivers.storage.k8s.io/%s does not exist", driver, driver))
	default:
		f.Incomplete = append(f.Incomplete, getGap(objectID("storage.k8s.io", "v1", "csidrivers", "", driver), "reading csidrivers.storage.k8s.io/"+driver, err))
	}
	a, gaps := x.attribute(ctx, o, []string{driverWorkloadHint(driver)})
	f.Incomplete = append(f.Incomplete, gaps...)
	var narrow []Controller
	for _, c := range a.controllers {
		if !c.BroadOnly {
			narrow = append(narrow, c)
		}
	}
	if len(narrow) < len(a.controllers) || len(a.controllers) == 0 {
		if len(narrow) == 0 {
			c := Controller{Note: fmt.Sprintf("no workload with rights of its own on %s runs a sidecar of %s; workloads whose only rights are rules that allow everything are not the driver", o.ref().QualifiedResource(), driver)}
			narrow = []Controller{c}
			a.summary = c.Note
			a.dead = !installed && !a.unread && len(f.Incomplete) == 0
		}
		a.controllers = narrow
	}
	f.Controllers, f.Attribution = a.controllers, a.summary
	if !a.dead || a.unread {
		f.Remedies = x.controllerRemedies(o, f, k, a, "")
		if len(narrow) == 1 && !narrow[0].Found && !a.unread {
			f.Remedies = []Remediation{{Summary: fmt.Sprintf("Check the controller of CSI driver %s (its %s sidecar removes the finalizer): its logs name what fails.", driver, sidecar)}}
		}
		return f
	}
	f.Remedies = x.controllerRemedies(o, f, k, a, "")
	for i := range f.Remedies {
		if !f.Remedies[i].LastResort && f.Remedies[i].Command == "" && strings.HasPrefix(f.Remedies[i].Summary, "Reinstall the controller") {
			f.Remedies[i].Summary = fmt.Sprintf("Reinstall CSI driver %s: its %s sidecar then removes the finalizer itself.", driver, sidecar)
		}
	}
	return f
}

// csiDriverName names the driver behind a CSI finalizer: a PersistentVolume's spec.csi.driver
// (or its provisioned-by annotation), a VolumeAttachment's spec.attacher, else the driver whose
// sanitised name the external-attacher finalizer carries (dots become dashes), or that name.
func (x *Explainer) csiDriverName(ctx context.Context, o subject, finalizer string) (string, report.Gap) {
	if o.res.Group == "" && o.res.Resource == "persistentvolumes" {
		pv, err := x.c.Kube.CoreV1().PersistentVolumes().Get(ctx, o.obj.GetName(), metav1.GetOptions{})
		if err != nil {
			return strings.TrimPrefix(finalizer, "external-attacher/"), getGap(o.ref().ID(), "reading persistentvolumes/"+o.obj.GetName(), err)
		}
		if pv.Spec.CSI != nil && pv.Spec.CSI.Driver != "" {
			return pv.Spec.CSI.Driver, report.Gap{}
		}
		if d := pv.Annotations["pv.kubernetes.io/provisioned-by"]; d != "" {
			return d, report.Gap{}
		}
	}
	if o.res.Group == "storage.k8s.io" && o.res.Resource == "volumeattachments" {
		va, err := x.c.Kube.StorageV1().VolumeAttachments().Get(ctx, o.obj.GetName(), metav1.GetOptions{})
		if err != nil {
			return strings.TrimPrefix(finalizer, "external-attacher/"), getGap(o.ref().ID(), "reading volumeattachments.storage.k8s.io/"+o.obj.GetName(), err)
		}
		return va.Spec.Attacher, report.Gap{}
	}
	name := strings.TrimPrefix(finalizer, "external-attacher/")
	drivers, err := x.c.Kube.StorageV1().CSIDrivers().List(ctx, metav1.ListOptions{})
	if err == nil {
		for _, d := range drivers.Items {
			if sanitizeDriver(d.Name) == name {
				return d.Name, report.Gap{}
			}
		}
	}
	return name, report.Gap{}
}

// sanitizeDriver turns a driver name into the form the external-attacher puts in its finalizer:
// every character other than a letter, digit or dash becomes a dash.
func sanitizeDriver(name string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, name)
}
