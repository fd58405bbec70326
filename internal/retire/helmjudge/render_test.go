package helmjudge

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/charts"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/helmstorage"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire/inventory"
)

func claim(name string, ann map[string]string) *unstructured.Unstructured {
	return obj("v1", "PersistentVolumeClaim", "x", name, ann)
}

func renderOf(chart string, objs ...*unstructured.Unstructured) *rendered {
	return &rendered{render: &helmrender.Render{Release: "x/app", StorageNamespace: "x", Chart: chart, Version: "1.0.0", Manifest: objs, InstallCRDs: "Create"}}
}

// An upgrade deletes what the new manifest drops, and only that: an object both manifests have
// is no removal; a chart change under the default Reinstall deletes the old manifest whole
// (retire judges each dropped object: TestHelmDropJudged).
func TestHelmDrops(t *testing.T) {
	hr := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "x", "app", nil)
	units := []Unit{{Kustomization: "flux-system/apps", Base: []*unstructured.Unstructured{hr}, Candidate: []*unstructured.Unstructured{hr}}}
	deploy := obj("apps/v1", "Deployment", "x", "app", nil)
	id := inventory.RefOf(hr).ID()
	for _, tc := range []struct {
		name      string
		base      *rendered
		cand      *rendered
		want      []string // ids
		reinstall bool
	}{
		{"claim dropped", renderOf("app-template", claim("app-cache", nil), deploy), renderOf("app-template", deploy),
			[]string{"x_app-cache__PersistentVolumeClaim"}, false},
		{"kept claim dropped", renderOf("app-template", claim("app-cache", map[string]string{"helm.sh/resource-policy": " Keep"})), renderOf("app-template"),
			[]string{"x_app-cache__PersistentVolumeClaim"}, false},
		{"nothing dropped", renderOf("app-template", claim("app-data", nil), deploy), renderOf("app-template", claim("app-data", nil), deploy), nil, false},
		{"stateless dropped", renderOf("app-template", deploy), renderOf("app-template"), []string{"x_app_apps_Deployment"}, false},
		{"chart renamed", renderOf("app-template", claim("app-data", nil)), renderOf("paperless-ngx", claim("app-data", nil)),
			[]string{"x_app-data__PersistentVolumeClaim"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &helmSides{base: map[string]*rendered{id: tc.base}, cand: map[string]*rendered{id: tc.cand}}
			ds, incomplete, unchecked, _ := s.helmDrops(units, nil)
			if len(incomplete)+len(unchecked) > 0 {
				t.Fatalf("incomplete %v, unchecked %v", incomplete, unchecked)
			}
			var got []string
			for _, d := range ds {
				got = append(got, inventory.RefOf(d.Object).ID())
				if d.Kustomization != "flux-system/apps" || d.Drop.HelmRelease != "x/app" || d.Drop.Release != "x/app" {
					t.Errorf("dropped %+v", d)
				}
				if (d.Drop.Reinstall != "") != tc.reinstall {
					t.Errorf("reinstall %q", d.Drop.Reinstall)
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// A render that fails once the chart is had is UNKNOWN; a chart that cannot be had is a
// warning, as without rendering.
func TestHelmDropsFailedRender(t *testing.T) {
	hr := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "x", "app", nil)
	units := []Unit{{Kustomization: "flux-system/apps", Base: []*unstructured.Unstructured{hr}, Candidate: []*unstructured.Unstructured{hr}}}
	id := inventory.RefOf(hr).ID()
	s := &helmSides{base: map[string]*rendered{id: renderOf("a")}, cand: map[string]*rendered{id: {err: errors.New("template: app/templates/x.yaml:3: nil pointer")}}}
	_, incomplete, unchecked, _ := s.helmDrops(units, nil)
	if len(incomplete) != 1 || len(unchecked) != 0 || !strings.Contains(incomplete[0].What, "HelmRelease x/app (Kustomization flux-system/apps)") || incomplete[0].Op != report.OpRender || incomplete[0].Reason != report.GapBuildFailed || incomplete[0].Subject.Name != "app" {
		t.Fatalf("incomplete %v unchecked %v", incomplete, unchecked)
	}
	s.cand[id] = &rendered{err: fmt.Errorf("%w: app", charts.ErrUnavailable)}
	_, incomplete, unchecked, _ = s.helmDrops(units, nil)
	if len(incomplete) != 0 || len(unchecked) != 1 || unchecked[0].Op != report.OpRender || unchecked[0].Subject != inventory.RefOf(hr).GapID() ||
		!strings.Contains(unchecked[0].String(), "HelmRelease x/app (Kustomization flux-system/apps): the candidate changes what it renders from, and it could not be rendered") {
		t.Fatalf("chart unavailable: incomplete %v unchecked %v, want one unchecked gap", incomplete, unchecked)
	}
}

// A candidate that suspends the HelmRelease only postpones the upgrade: the object is still
// dropped, and the drop says it is suspended.
func TestHelmDropsSuspended(t *testing.T) {
	base := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "x", "app", nil)
	cand := base.DeepCopy()
	_ = unstructured.SetNestedField(cand.Object, true, "spec", "suspend")
	units := []Unit{{Kustomization: "flux-system/apps", Base: []*unstructured.Unstructured{base}, Candidate: []*unstructured.Unstructured{cand}}}
	id := inventory.RefOf(base).ID()
	s := &helmSides{base: map[string]*rendered{id: renderOf("app-template", claim("app-cache", nil))}, cand: map[string]*rendered{id: renderOf("app-template")}}
	ds, _, _, _ := s.helmDrops(units, nil)
	if len(ds) != 1 || !ds[0].Drop.Suspended {
		t.Fatalf("got %+v", ds)
	}
}

// A compared release says what its verdict rests on, whether or not the upgrade deletes
// anything: a SAFE upgrade is never bare "nothing is removed".
func TestHelmDropsEvidence(t *testing.T) {
	base := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "x", "app", nil)
	units := []Unit{{Kustomization: "flux-system/apps", Base: []*unstructured.Unstructured{base}, Candidate: []*unstructured.Unstructured{base.DeepCopy()}}}
	id := inventory.RefOf(base).ID()
	for _, tc := range []struct {
		name string
		cand *rendered
		want string
	}{
		{"keeps every object", renderOf("app-template", claim("app-cache", nil)), "the upgrade deletes 0 of its 1 object(s)"},
		{"drops the claim", renderOf("app-template"), "the upgrade deletes 1 of its 1 object(s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &helmSides{base: map[string]*rendered{id: renderOf("app-template", claim("app-cache", nil))}, cand: map[string]*rendered{id: tc.cand}}
			_, _, _, evidence := s.helmDrops(units, nil)
			if len(evidence) != 1 || evidence[0].Code != report.NoteHelmReleaseCompared || evidence[0].Subject != inventory.RefOf(base).GapID() ||
				!strings.Contains(evidence[0].Message, "HelmRelease x/app (Kustomization flux-system/apps)") ||
				!strings.Contains(evidence[0].Message, "compared with its base render") || !strings.Contains(evidence[0].Message, tc.want) {
				t.Fatalf("evidence %q, want one line naming the release, the base render and %q", evidence, tc.want)
			}
		})
	}
}

// What a render did otherwise than helm-controller (a remote schema not fetched) is said once,
// whichever sides rendered it.
func TestHelmRenderNotes(t *testing.T) {
	note := "chart a 1.0.0: values.schema.json refers to 1 remote schema(s)"
	b, c := renderOf("a"), renderOf("a")
	b.render.Notes, c.render.Notes = []string{note}, []string{note}
	id := "x_app_helm.toolkit.fluxcd.io_HelmRelease"
	s := &helmSides{base: map[string]*rendered{id: b, "y": {err: errors.New("failed")}}, cand: map[string]*rendered{id: c}}
	if got := s.notes(); len(got) != 1 || got[0] != (report.Note{Code: report.NoteHelmSchemaNotFetched, Subject: helmReleaseID("x", "app"), Message: note}) {
		t.Fatalf("notes %+v", got)
	}
}

// Live, the upgrade's old manifest is the installed release, not the base render: a claim only
// the installed release holds is dropped too, the disagreement is drift, and a storage that
// cannot be read is UNKNOWN with no removal judged from the base render; a HelmRelease not
// installed is judged from the base render.
func TestHelmDropsInstalled(t *testing.T) {
	hr := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "x", "app", nil)
	units := []Unit{{Kustomization: "flux-system/apps", Base: []*unstructured.Unstructured{hr}, Candidate: []*unstructured.Unstructured{hr}}}
	id := inventory.RefOf(hr).ID()
	deploy := obj("apps/v1", "Deployment", "x", "app", nil)
	s := &helmSides{base: map[string]*rendered{id: renderOf("app-template", claim("app-cache", nil), deploy)}, cand: map[string]*rendered{id: renderOf("app-template", deploy)}}
	rel := &helmstorage.Release{Chart: "app-template", ChartVersion: "0.9.0", Version: 4, Record: "Secret x/sh.helm.release.v1.app.v4",
		Objects: []*unstructured.Unstructured{claim("app-cache", nil), claim("app-old", nil), deploy}}
	for _, tc := range []struct {
		name       string
		installed  func(string, string) (*helmstorage.Release, error)
		want       string
		drift      string
		incomplete string
	}{
		{"installed", func(string, string) (*helmstorage.Release, error) { return rel, nil },
			"x_app-cache__PersistentVolumeClaim,x_app-old__PersistentVolumeClaim", "installed but not rendered: PersistentVolumeClaim x/app-old", ""},
		{"not installed", func(string, string) (*helmstorage.Release, error) { return nil, nil }, "x_app-cache__PersistentVolumeClaim", "", ""},
		{"forbidden", func(string, string) (*helmstorage.Release, error) {
			return nil, &helmstorage.Error{Location: helmstorage.Location{StorageNamespace: "x", Name: "app"}, Reason: helmstorage.Forbidden, Detail: "no"}
		}, "", "", "the release it upgrades could not be read: reading the deployed revision of Helm release app in storage namespace x: forbidden: no"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, incomplete, _, _ := s.helmDrops(units, &Releases{release: tc.installed})
			var got []string
			var drift string
			for _, d := range ds {
				got = append(got, inventory.RefOf(d.Object).ID())
				if d.Drop.Drift != nil {
					drift = d.Drop.Drift.Text()
				}
			}
			if strings.Join(got, ",") != tc.want || !strings.Contains(drift, tc.drift) || (tc.drift == "") != (drift == "") ||
				!strings.Contains(strings.Join(report.GapLines(incomplete), "\n"), tc.incomplete) || (tc.incomplete == "") != (len(incomplete) == 0) {
				t.Fatalf("removals %v drift %q incomplete %v", got, drift, incomplete)
			}
		})
	}
}
