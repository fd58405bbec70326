package retire

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire/helm"
	"github.com/kubeforensics/suite/internal/retire/helmjudge"
)

// helmRelease is a HelmRelease x/name whose spec.values are the YAML given.
func helmRelease(t *testing.T, name, values string) *unstructured.Unstructured {
	t.Helper()
	var v map[string]any
	if err := yaml.Unmarshal([]byte(values), &v); err != nil {
		t.Fatal(err)
	}
	u := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "x", name, nil)
	_ = unstructured.SetNestedField(u.Object, map[string]any{"chart": "app-template"}, "spec", "chart", "spec")
	if v != nil {
		_ = unstructured.SetNestedMap(u.Object, v, "spec", "values")
	}
	return u
}

// The rule set, on values modelled on public charts: bjw-s app-template as home-ops
// repositories write it (https://github.com/bjw-s-labs/helm-charts, charts/library/common/
// templates/lib/pod/fields/_volumes.tpl at 14e9701: type defaults to persistentVolumeClaim,
// enabled to true; classes/_pvc.tpl at 0a94671: retain adds helm.sh/resource-policy: keep) and
// bitnami's postgresql (primary.persistence, a StatefulSet's volumeClaimTemplates).
func TestHelmValues(t *testing.T) {
	cases := []struct {
		name, values string
		want         []string // path=deleted/orphaned/left
	}{
		{"app-template claim", "persistence: {config: {size: 1Gi, accessMode: ReadWriteOnce}}", []string{"spec.values.persistence.config=deleted"}},
		{"app-template existing claim", "persistence: {media: {existingClaim: media}}", []string{"spec.values.persistence.media.existingClaim=left"}},
		{"app-template retained claim", "persistence: {config: {retain: true, size: 1Gi}}", []string{"spec.values.persistence.config=left"}},
		{"app-template other types", "persistence: {tmp: {type: emptyDir}, off: {enabled: false}, nfs: {type: nfs, server: x, path: /}}", nil},
		{"flat enabled", "primary: {persistence: {enabled: true, size: 8Gi}}", []string{"spec.values.primary.persistence.enabled=deleted"}},
		{"flat keep", "persistence: {enabled: true, annotations: {helm.sh/resource-policy: keep}}", []string{"spec.values.persistence.annotations=left"}},
		{"flat disabled or default", "persistence: {enabled: false}\nredis: {persistence: {size: 1Gi}}", nil},
		{"flat existing claim", "persistence: {enabled: true, existingClaim: data}", []string{"spec.values.persistence.existingClaim=left"}},
		{"volumeClaimTemplates", "controllers: {main: {type: statefulset, statefulset: {volumeClaimTemplates: [{name: data}]}}}", []string{"spec.values.controllers.main.statefulset.volumeClaimTemplates=orphaned"}},
		{"nothing", "image: {tag: v1}", nil},
		// app-template 1.x (common library before 2.0) calls the claim type pvc and renders only
		// enabled items, as H3mul/homelab-k3s-flux's jellyseerr release did at
		// https://github.com/H3mul/homelab-k3s-flux/commit/223d8df645d7a5ad1597fa664d6263967c46368b
		// (its parent's cluster/jellyseerr/helmrelease-jellyseerr.yaml: config, type pvc, 1Gi).
		{"common library 1.x pvc item", "persistence: {config: {enabled: true, type: pvc, size: 1Gi, mountPath: /app/config}}", []string{"spec.values.persistence.config=deleted"}},
		{"common library 1.x pvc item, existing claim", "persistence: {media: {enabled: true, type: pvc, existingClaim: media}}", []string{"spec.values.persistence.media.existingClaim=left"}},
		{"common library 1.x pvc item, retained", "persistence: {config: {enabled: true, type: pvc, retain: true}}", []string{"spec.values.persistence.config=left"}},
		{"common library 1.x pvc item not enabled", "persistence: {config: {type: pvc, size: 1Gi}, data: {enabled: false, type: pvc}}", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, v := range helm.Values(helmRelease(t, "a", tc.values).Object["spec"].(map[string]any)["values"].(map[string]any)) {
				fate := "left"
				if v.Deleted {
					fate = "deleted"
				} else if v.Orphaned {
					fate = "orphaned"
				}
				got = append(got, v.Path+"="+fate)
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// helm-controller's release name: spec.releaseName, else [<targetNamespace>-]<name>, shortened
// past 53 characters (internal/release/name.go).
func TestHelmReleaseName(t *testing.T) {
	long := strings.Repeat("a", 60)
	cases := []struct{ name, release, target, want string }{
		{"app", "", "", "x/app"},
		{"app", "", "media", "media/media-app"},
		{"app", "custom", "media", "media/custom"},
		{long, "", "", "x/" + strings.Repeat("a", 40) + "-"},
	}
	for _, tc := range cases {
		u := helmRelease(t, tc.name, "")
		_ = unstructured.SetNestedField(u.Object, tc.release, "spec", "releaseName")
		_ = unstructured.SetNestedField(u.Object, tc.target, "spec", "targetNamespace")
		got := helm.ReleaseName(u)
		if !strings.HasPrefix(got, tc.want) || len(got) > len("x/")+53 {
			t.Errorf("%s/%s/%s: got %q, want %q", tc.name, tc.release, tc.target, got, tc.want)
		}
	}
}

// Offline: declared persistence is unsafe and named; nothing visible is UNKNOWN, never SAFE;
// a suspended HelmRelease uninstalls nothing.
func TestHelmOffline(t *testing.T) {
	suspended := helmRelease(t, "s", "persistence: {enabled: true}")
	_ = unstructured.SetNestedField(suspended.Object, true, "spec", "suspend")
	cases := []struct {
		name    string
		hr      *unstructured.Unstructured
		unsafe  bool
		unknown string
	}{
		{"declared", helmRelease(t, "a", "persistence: {data: {size: 1Gi}}"), true, ""},
		{"nothing visible", helmRelease(t, "b", "persistence: {media: {existingClaim: media}}"), false, "HelmRelease x/b (Kustomization flux-system/apps): deleting it uninstalls release x/b"},
		{"suspended", suspended, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rs := judge(t, []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{tc.hr}}})
			unseen := strings.Join(report.GapLines(HelmUnseen(rs)), "\n")
			if rs[0].Unsafe != tc.unsafe || (tc.unknown == "") != (unseen == "") || !strings.Contains(unseen, tc.unknown) {
				t.Fatalf("unsafe %v (%q), unseen %q; want unsafe %v, unseen %q", rs[0].Unsafe, rs[0].Reasons, unseen, tc.unsafe, tc.unknown)
			}
		})
	}
}

// A HelmRelease moving between Kustomizations is uninstalled if the old owner prunes it first.
func TestHelmUnseenMove(t *testing.T) {
	hr := helmRelease(t, "a", "")
	rs := judge(t, []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{hr}}, {Kustomization: infra, Candidate: []*unstructured.Unstructured{hr}}})
	if got := strings.Join(report.GapLines(HelmUnseen(rs)), ""); !strings.Contains(got, "if it is pruned before Kustomization flux-system/infra adopts it, deleting it uninstalls release x/a") {
		t.Fatalf("%q", got)
	}
}

// An object Helm deletes is judged by Helm's rules, not Flux's prune: a claim is UNSAFE and gets
// the Helm plan (protect with helm.sh/resource-policy: keep through the chart), a kept claim is
// retained, a stateless one is pruned safely, a reinstall says so, and a suspended HelmRelease
// only postpones it (helmjudge.TestHelmDrops finds what is dropped).
func TestHelmDropJudged(t *testing.T) {
	k, _ := NewKinds()
	apps := Kustomization{Namespace: "flux-system", Name: "apps", Prune: false}
	claim := func(name string, ann map[string]string) *unstructured.Unstructured {
		return obj("v1", "PersistentVolumeClaim", "x", name, ann)
	}
	drop := helmjudge.Drop{HelmRelease: "x/app", Release: "x/app", From: "app-template 1.0.0", To: "app-template 1.0.0"}
	reinstall, suspended := drop, drop
	reinstall.Reinstall, suspended.Suspended = `its chart changes from "app-template" to "paperless-ngx" (chartNameChangeStrategy Reinstall)`, true
	for _, tc := range []struct {
		name   string
		object *unstructured.Unstructured
		drop   helmjudge.Drop
		want   string // outcome/unsafe/reason
	}{
		{"claim", claim("app-cache", nil), drop, "Pruned/true/helm-upgrade-deletes-persistent"},
		{"kept claim", claim("app-cache", map[string]string{"helm.sh/resource-policy": " Keep"}), drop, "Retained/false/retained-opt-out"},
		{"stateless", obj("apps/v1", "Deployment", "x", "app", nil), drop, "Pruned/false/prune-stateless"},
		{"reinstall", claim("app-data", nil), reinstall, "Pruned/true/helm-reinstall-persistent"},
		{"suspended", claim("app-cache", nil), suspended, "Pruned/true/helm-upgrade-deletes-persistent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.drop
			rs := []Removal{dropRemoval(helmjudge.Dropped{Object: tc.object, Kustomization: apps.ID(), Drop: &d})}
			Judge(rs, []Unit{{Kustomization: apps}}, k)
			r := &rs[0]
			Planner{}.Plan(r)
			if got := fmt.Sprintf("%s/%v/%s", r.Outcome, r.Unsafe, r.Reason); got != tc.want {
				t.Fatalf("got %s, want %s (%q)", got, tc.want, r.Reasons)
			}
			if r.Unsafe && (len(r.Plan) != 4 || !strings.Contains(r.Plan[0].Check, `helm\.sh/resource-policy`)) {
				t.Errorf("plan of %s: %+v", r.ID, r.Plan)
			}
			if d.Suspended && !strings.Contains(strings.Join(r.Reasons, ""), "once the HelmRelease is resumed") {
				t.Errorf("reasons %q do not say the upgrade waits for the resume", r.Reasons)
			}
		})
	}
}

// Where a render and the installed manifest disagree is one warning per HelmRelease, whether an
// uninstall or an upgrade carries it.
func TestHelmDrifts(t *testing.T) {
	d := &helmjudge.Drift{Rendered: "app-template 1.0.0 at base", OnlyInstalled: []Ref{{Kind: "PersistentVolumeClaim", Namespace: "x", Name: "app-old"}}}
	hr := Ref{Group: "helm.toolkit.fluxcd.io", Kind: "HelmRelease", Namespace: "x", Name: "app"}
	rs := []Removal{{Object: hr, Helm: &helmjudge.Uninstall{Release: "x/app", Drift: d}},
		{Object: Ref{Kind: "PersistentVolumeClaim", Namespace: "x", Name: "app-old"}, HelmDrop: &helmjudge.Drop{HelmRelease: "x/app", Release: "x/app", Drift: d}}}
	if got := HelmDrifts(rs); len(got) != 1 || got[0].Code != report.NoteHelmReleaseDrifted || got[0].Subject != hr.GapID() ||
		!strings.Contains(got[0].Message, "HelmRelease x/app (release x/app): the installed release and the render of chart app-template 1.0.0 at base disagree") {
		t.Fatalf("%q", got)
	}
}
