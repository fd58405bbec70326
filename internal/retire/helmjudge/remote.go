package helmjudge

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire/inventory"
)

// ErrRemote is the reason a live run does not read a release: it is installed on another
// cluster than the one the run is connected to, and what is stored or installed there is not
// read here (an object of the same name here is another object).
var ErrRemote = errors.New("installed on another cluster")

// Remote is where a HelmRelease installs its release when that is not the cluster the run
// reads, "" otherwise. Two things put it elsewhere, and both are read from the HelmRelease as
// built, never from a product table:
//   - its own spec.kubeConfig: helm-controller installs the release through that Secret (or
//     ConfigMap), so the release's storage Secrets and every object of its manifest live on
//     that cluster, while the HelmRelease itself lives here;
//   - the spec.kubeConfig of the Kustomization that applies it (unit): the HelmRelease itself
//     is on that cluster, and helm-controller there installs its release there.
//
// Own is set when the HelmRelease's own spec.kubeConfig decides it.
func Remote(hr *unstructured.Unstructured, unit string) (where string, own bool) {
	if c := cluster.KubeConfigTarget(hr); c != "" {
		return c, true
	}
	return unit, false
}

// remoteText says where the release of hr is: "the cluster HelmRelease ns/name installs its
// release on through its spec.kubeConfig (kubeConfig Secret ns/x)", or the Kustomization's.
func remoteText(hr *unstructured.Unstructured, ks, where string, own bool) string {
	if own {
		return fmt.Sprintf("the cluster HelmRelease %s/%s installs its release on through its spec.kubeConfig (%s)", hr.GetNamespace(), hr.GetName(), where)
	}
	return fmt.Sprintf("the cluster Kustomization %s applies HelmRelease %s/%s to through its spec.kubeConfig (%s)", ks, hr.GetNamespace(), hr.GetName(), where)
}

// remoteGap names (ks: the Kustomization that declares hr, "" when not known), in a live run, a release this run does not read because it is on another
// cluster: what is installed there, and what the upgrade or uninstall deletes of it, are not
// known (UNKNOWN), whatever the renders say.
func remoteGap(hr *unstructured.Unstructured, ks, where string, own bool, what string) report.Gap {
	name := fmt.Sprintf("HelmRelease %s/%s", hr.GetNamespace(), hr.GetName())
	if ks != "" {
		name += " (Kustomization " + ks + ")"
	}
	return report.Gap{Op: report.OpReadStorage, Subject: inventory.RefOf(hr).GapID(), Reason: report.GapNotRead,
		What:  name,
		Error: fmt.Sprintf("its release is on %s, which this run does not read: %s", remoteText(hr, ks, where, own), what)}
}
