package helmjudge

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/retire/inventory"
)

// Live: claims in the release's manifest are deleted (claims first); a kept claim and a
// volumeClaimTemplates claim (no Helm annotations) are left; the rest is counted.
func TestLiveUninstall(t *testing.T) {
	l := &Live{Release: "x/a", Installed: true, Objects: []Object{
		{Object: inventory.Ref{Kind: "Service", Namespace: "x", Name: "a"}, InManifest: true},
		{Object: inventory.Ref{Group: "apps", Kind: "StatefulSet", Namespace: "x", Name: "a"}, InManifest: true, Detail: "1 volumeClaimTemplates"},
		{Object: inventory.Ref{Group: "apps", Kind: "Deployment", Namespace: "x", Name: "b"}, InManifest: true},
		{Object: inventory.Ref{Kind: "PersistentVolumeClaim", Namespace: "x", Name: "config"}, InManifest: true, Cost: "lost"},
		{Object: inventory.Ref{Kind: "PersistentVolumeClaim", Namespace: "x", Name: "keep"}, InManifest: true, Keep: true},
		{Object: inventory.Ref{Kind: "PersistentVolumeClaim", Namespace: "x", Name: "data-a-0"}, Via: "a volumeClaimTemplates claim"},
		{Object: inventory.Ref{Kind: "PersistentVolumeClaim", Namespace: "x", Name: "logs-a-0"}, Via: "a volumeClaimTemplates claim", WithOwner: true},
	}}
	h := liveUninstall(Removed{Live: true, Exists: true, Release: l}, stateful())
	var deleted, left []string
	for _, o := range h.Deleted {
		deleted = append(deleted, o.Object.Name)
	}
	for _, o := range h.Left {
		left = append(left, o.Object.Name)
	}
	if strings.Join(deleted, ",") != "config,logs-a-0,a" || strings.Join(left, ",") != "data-a-0,keep" || h.OthersText() != "1 Deployment.apps, 1 Service" {
		t.Fatalf("deleted %v left %v others %q", deleted, left, h.OthersText())
	}
	if loss, _ := h.Loss(); !strings.Contains(loss, "uninstalling release x/a deletes PersistentVolumeClaim x/config, PersistentVolumeClaim x/logs-a-0, StatefulSet x/a") {
		t.Fatalf("loss %q", loss)
	}
	l.Objects = l.Objects[:1]
	if loss, _ := liveUninstall(Removed{Live: true, Exists: true, Release: l}, stateful()).Loss(); loss != "" {
		t.Fatalf("a release owning no persistent object: %q", loss)
	}
}

// Live, a HelmRelease that is not on the cluster uninstalls nothing.
func TestLiveUninstallAbsent(t *testing.T) {
	h := liveUninstall(Removed{Object: inventory.Ref{Group: "helm.toolkit.fluxcd.io", Kind: "HelmRelease", Namespace: "x", Name: "a"}, Live: true}, stateful())
	if loss, _ := h.Loss(); h == nil || h.NoUninstall == "" || loss != "" {
		t.Fatalf("%+v", h)
	}
}

// Live, a removed HelmRelease rendered at base names where the render and the installed
// manifest disagree; the uninstall itself is the installed manifest's (retire.HelmDrifts words it).
func TestHelmUninstallDrift(t *testing.T) {
	r := Removed{Object: inventory.Ref{Group: "helm.toolkit.fluxcd.io", Kind: "HelmRelease", Namespace: "x", Name: "app"},
		Live: true, Exists: true, Release: &Live{Release: "x/app", Installed: true, Stored: "app-template 0.9.0, revision 4, Secret x/r",
			Objects: []Object{{Object: inventory.RefOf(claim("app-old", nil)), InManifest: true}}, manifest: []*unstructured.Unstructured{claim("app-old", nil)}},
		Render: renderOf("app-template", claim("app-new", nil)).render}
	h := JudgeUninstall(r, stateful(), nil)
	if h.Drift == nil || refsText(h.Drift.OnlyInstalled) != "PersistentVolumeClaim x/app-old" || refsText(h.Drift.OnlyRendered) != "PersistentVolumeClaim x/app-new" ||
		len(h.Deleted) != 1 || h.Deleted[0].Object.Name != "app-old" || h.Installed == "" {
		t.Fatalf("%+v", h)
	}
}
