package helmjudge

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/helmstorage"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire/inventory"
)

// remoteHR is a HelmRelease that helm-controller installs on another cluster through its own
// spec.kubeConfig (fluxcd/flux2-hub-spoke-example's HelmReleases carry one).
func remoteHR() *unstructured.Unstructured {
	hr := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "x", "app", nil)
	_ = unstructured.SetNestedField(hr.Object, "spoke-kubeconfig", "spec", "kubeConfig", "secretRef", "name")
	return hr
}

// A release is on another cluster through the HelmRelease's own spec.kubeConfig, else through
// the Kustomization's that applies it; the HelmRelease's own wins.
func TestRemote(t *testing.T) {
	plain := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "x", "app", nil)
	byConfigMap := plain.DeepCopy()
	_ = unstructured.SetNestedField(byConfigMap.Object, "spoke", "spec", "kubeConfig", "configMapRef", "name")
	for _, tc := range []struct {
		name  string
		hr    *unstructured.Unstructured
		unit  string
		where string
		own   bool
	}{
		{"here", plain, "", "", false},
		{"its own Secret", remoteHR(), "", "kubeConfig Secret x/spoke-kubeconfig", true},
		{"its own ConfigMap", byConfigMap, "", "kubeConfig ConfigMap x/spoke", true},
		{"its Kustomization's", plain, "kubeConfig Secret flux-system/prod", "kubeConfig Secret flux-system/prod", false},
		{"both", remoteHR(), "kubeConfig Secret flux-system/prod", "kubeConfig Secret x/spoke-kubeconfig", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if where, own := Remote(tc.hr, tc.unit); where != tc.where || own != tc.own {
				t.Errorf("Remote = %q, %v; want %q, %v", where, own, tc.where, tc.own)
			}
		})
	}
}

// Live, the upgrade of a release installed on another cluster is not compared with the hub's
// storage (a release of the same name there is another release): the storage is never asked,
// the release is named as not read (UNKNOWN), and the renders are still compared, each object
// they drop carrying the cluster it is on. Offline the drops carry it too.
func TestHelmDropsOnAnotherCluster(t *testing.T) {
	deploy := obj("apps/v1", "Deployment", "x", "app", nil)
	hub := &helmstorage.Release{Chart: "app-template", ChartVersion: "0.9.0", Version: 4, Record: "Secret x/sh.helm.release.v1.app.v4",
		Objects: []*unstructured.Unstructured{claim("hub-only", nil), deploy}}
	for _, tc := range []struct {
		name      string
		hr        *unstructured.Unstructured
		unit      string
		live      bool
		where     string
		dropWhere string
	}{
		{"its own kubeConfig, live", remoteHR(), "", true, "kubeConfig Secret x/spoke-kubeconfig", "kubeConfig Secret x/spoke-kubeconfig"},
		{"its Kustomization's kubeConfig, live", obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "x", "app", nil), "kubeConfig Secret flux-system/prod", true, "kubeConfig Secret flux-system/prod", ""},
		{"its own kubeConfig, offline", remoteHR(), "", false, "kubeConfig Secret x/spoke-kubeconfig", "kubeConfig Secret x/spoke-kubeconfig"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			units := []Unit{{Kustomization: "flux-system/apps", Base: []*unstructured.Unstructured{tc.hr}, Candidate: []*unstructured.Unstructured{tc.hr}, Cluster: tc.unit}}
			id := inventory.RefOf(tc.hr).ID()
			s := &helmSides{base: map[string]*rendered{id: renderOf("app-template", claim("app-cache", nil), deploy)}, cand: map[string]*rendered{id: renderOf("app-template", deploy)}}
			asked := 0
			var installed *Releases
			if tc.live {
				installed = &Releases{release: func(string, string) (*helmstorage.Release, error) { asked++; return hub, nil }}
			}
			ds, incomplete, _, _ := s.helmDrops(units, installed)
			if asked != 0 {
				t.Errorf("the hub's storage was read %d time(s) for a release on another cluster", asked)
			}
			if len(ds) != 1 || inventory.RefOf(ds[0].Object).ID() != "x_app-cache__PersistentVolumeClaim" || ds[0].Cluster != tc.where || ds[0].Drop.Cluster != tc.dropWhere || ds[0].Drop.Installed != "" {
				t.Fatalf("drops %+v: want the base render's claim app-cache, on %q (own %q), nothing installed read", ds, tc.where, tc.dropWhere)
			}
			lines := strings.Join(report.GapLines(incomplete), "\n")
			if tc.live != (len(incomplete) == 1) || (tc.live && (incomplete[0].Reason != report.GapNotRead || !strings.Contains(lines, tc.where) || !strings.Contains(lines, "which this run does not read"))) {
				t.Errorf("incomplete %q: want (live only) one not-read gap naming %s", lines, tc.where)
			}
		})
	}
}

// Live, a values-only change of a release on another cluster is not rendered with the chart
// stored on the hub: its render is UNKNOWN, saying why, and the hub is never asked.
func TestInstalledHereNotOnAnotherCluster(t *testing.T) {
	asked := 0
	installed := &Releases{withChart: func(string, string) (*helmstorage.Release, error) { asked++; return &helmstorage.Release{}, nil }}
	hr := remoteHR()
	rel, why, err := installedHere(hr, hr, Unit{Kustomization: "flux-system/apps"}, [2]map[string]*unstructured.Unstructured{}, nil, installed)
	if asked != 0 || rel != nil || why != "" || !errors.Is(err, ErrRemote) || !strings.Contains(err.Error(), "HelmRelease x/app installs its release on through its spec.kubeConfig (kubeConfig Secret x/spoke-kubeconfig)") {
		t.Fatalf("asked %d, rel %v, why %q, err %v", asked, rel, why, err)
	}
}

// Live, deleting a HelmRelease whose release is on another cluster is judged from the
// repository (its base render here), never from what the hub lists, and says where the release is.
func TestJudgeUninstallOnAnotherCluster(t *testing.T) {
	hr := remoteHR()
	r := Removed{Object: inventory.RefOf(hr), Base: hr, Live: true, Exists: true,
		Release: &Live{Release: "x/app", Installed: true, Cluster: "kubeConfig Secret x/spoke-kubeconfig"},
		Render:  renderOf("app-template", claim("app-cache", nil)).render}
	h := JudgeUninstall(r, stateful(), nil)
	if h == nil || h.Cluster != "kubeConfig Secret x/spoke-kubeconfig" || h.Rendered == "" || len(h.Deleted) != 1 || h.Deleted[0].Object.Name != "app-cache" || h.Installed != "" {
		t.Fatalf("uninstall %+v: want the rendered claim app-cache deleted on the spoke", h)
	}
}
