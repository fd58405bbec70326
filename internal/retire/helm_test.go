package retire

import (
	"context"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire/helm"
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

// Live: claims in the release's manifest are deleted (claims first); a kept claim and a
// volumeClaimTemplates claim (no Helm annotations) are left; the rest is counted.
func TestHelmLive(t *testing.T) {
	l := &Live{Exists: true, Helm: &HelmLive{Release: "x/a", Installed: true, Objects: []HelmObject{
		{Object: Ref{Kind: "Service", Namespace: "x", Name: "a"}, InManifest: true},
		{Object: Ref{Group: "apps", Kind: "StatefulSet", Namespace: "x", Name: "a"}, InManifest: true, Detail: "1 volumeClaimTemplates"},
		{Object: Ref{Group: "apps", Kind: "Deployment", Namespace: "x", Name: "b"}, InManifest: true},
		{Object: Ref{Kind: "PersistentVolumeClaim", Namespace: "x", Name: "config"}, InManifest: true, Cost: "lost"},
		{Object: Ref{Kind: "PersistentVolumeClaim", Namespace: "x", Name: "keep"}, InManifest: true, Keep: true},
		{Object: Ref{Kind: "PersistentVolumeClaim", Namespace: "x", Name: "data-a-0"}, Via: "a volumeClaimTemplates claim"},
		{Object: Ref{Kind: "PersistentVolumeClaim", Namespace: "x", Name: "logs-a-0"}, Via: "a volumeClaimTemplates claim", WithOwner: true},
	}}}
	h := liveUninstall(&Removal{Live: l}, mustKinds(t))
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
	if p := h.persistence(); p == nil || !strings.Contains(p.Detail, "uninstalling release x/a deletes PersistentVolumeClaim x/config, PersistentVolumeClaim x/logs-a-0, StatefulSet x/a") {
		t.Fatalf("persistence %+v", p)
	}
	l.Helm.Objects = l.Helm.Objects[:1]
	if p := liveUninstall(&Removal{Live: l}, mustKinds(t)).persistence(); p != nil {
		t.Fatalf("a release owning no persistent object: %+v", p)
	}
}

func mustKinds(t *testing.T) Kinds {
	t.Helper()
	k, err := NewKinds()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// A reader without cluster-wide list rights gets one line per kind of failure, not one per type.
func TestSweepFailures(t *testing.T) {
	f := func(r, why string, err error) finalizers.ReadFailure {
		return finalizers.ReadFailure{Resource: r, Reason: why, Err: err}
	}
	forbidden := func(r string) error {
		return apierrors.NewForbidden(schema.GroupResource{Resource: r}, "", errors.New("no"))
	}
	two := sweepFailures([]finalizers.ReadFailure{f("secrets", "forbidden: no", forbidden("secrets")), f("pods", "timeout", context.DeadlineExceeded)}, "labelled x")
	many := sweepFailures([]finalizers.ReadFailure{f("a", "forbidden: x", forbidden("a")), f("b", "forbidden: y", forbidden("b")), f("c", "the server is unavailable", errors.New("the server is unavailable"))}, "labelled x")
	if len(two) != 2 || two[0].String() != "listing secrets labelled x: forbidden: no" || two[0].Reason != report.GapForbidden || two[1].Reason != report.GapTimeout ||
		strings.Join(report.GapLines(many), "|") != "listing 1 types labelled x: failed: c|listing 2 types labelled x: forbidden: a, b" {
		t.Fatalf("two %q, many %q", report.GapLines(two), report.GapLines(many))
	}
	// Grouped by the failure's type, never by its wording.
	if many[1].Reason != report.GapForbidden || many[1].Op != report.OpList {
		t.Errorf("many[1] = %+v", many[1])
	}
}

// A candidate that changes the release's target or chart makes helm-controller uninstall the
// old release (action.ReleaseTargetChanged): UNKNOWN, named, with the state its values declare.
func TestHelmRetargets(t *testing.T) {
	set := func(u *unstructured.Unstructured, v any, path ...string) *unstructured.Unstructured {
		u = u.DeepCopy()
		_ = unstructured.SetNestedField(u.Object, v, path...)
		return u
	}
	base := helmRelease(t, "gatus", "persistence: {config: {size: 1Gi}}")
	cases := []struct {
		name string
		cand *unstructured.Unstructured
		want string
	}{
		{"values only", set(base, int64(2), "spec", "values", "replicas"), ""},
		{"release name", set(base, "status", "spec", "releaseName"), "changes its release from x/gatus to x/status, so helm-controller uninstalls release x/gatus"},
		{"target namespace", set(base, "o11y", "spec", "targetNamespace"), "changes its release from x/gatus to o11y/o11y-gatus"},
		{"storage namespace", set(base, "helm", "spec", "storageNamespace"), "changes its storage namespace from x to helm"},
		{"chart", set(base, "gatus-sidecar", "spec", "chart", "spec", "chart"), `changes its chart from "app-template" to "gatus-sidecar"`},
		{"chart in place", set(set(base, "gatus-sidecar", "spec", "chart", "spec", "chart"), "InPlaceUpdate", "spec", "upgrade", "chartNameChangeStrategy"), ""},
		{"suspended", set(set(base, "status", "spec", "releaseName"), true, "spec", "suspend"), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(report.GapLines(HelmRetargets([]Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{base}, Candidate: []*unstructured.Unstructured{tc.cand}}})), "\n")
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if tc.want != "" && !strings.Contains(got, "its values declare persistent state: spec.values.persistence.config") {
				t.Errorf("the declared state is not named: %q", got)
			}
		})
	}
}

// A chartRef to an OCIRepository whose URL now names another chart reinstalls the release, as
// onedr0p/home-ops cb520a3a41 ("migrate to official OCI chart") did to kromgo: the OCIRepository
// went from oci://ghcr.io/bjw-s-labs/helm/app-template to oci://ghcr.io/home-operations/charts/kromgo.
// A new tag of the same chart does not.
func TestHelmRetargetsThroughOCIRepository(t *testing.T) {
	oci := func(url, tag string) *unstructured.Unstructured {
		o := obj("source.toolkit.fluxcd.io/v1", "OCIRepository", "x", "kromgo", nil)
		_ = unstructured.SetNestedField(o.Object, url, "spec", "url")
		_ = unstructured.SetNestedField(o.Object, tag, "spec", "ref", "tag")
		return o
	}
	hr := helmRelease(t, "kromgo", "")
	unstructured.RemoveNestedField(hr.Object, "spec", "chart")
	_ = unstructured.SetNestedMap(hr.Object, map[string]any{"kind": "OCIRepository", "name": "kromgo"}, "spec", "chartRef")
	from := oci("oci://ghcr.io/bjw-s-labs/helm/app-template", "5.0.1")
	for _, tc := range []struct {
		name string
		to   *unstructured.Unstructured
		want string
	}{
		{"another chart", oci("oci://ghcr.io/home-operations/charts/kromgo", "0.14.3"), `changes its chart from "app-template" to "kromgo"`},
		{"another tag", oci("oci://ghcr.io/bjw-s-labs/helm/app-template", "5.0.2"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(report.GapLines(HelmRetargets([]Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{hr, from}, Candidate: []*unstructured.Unstructured{hr, tc.to}}})), "\n")
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// Live, a HelmRelease that is not on the cluster uninstalls nothing.
func TestHelmLiveAbsent(t *testing.T) {
	h := liveUninstall(&Removal{Object: Ref{Group: "helm.toolkit.fluxcd.io", Kind: "HelmRelease", Namespace: "x", Name: "a"}, Live: &Live{}}, mustKinds(t))
	if h == nil || h.NoUninstall == "" || h.persistence() != nil {
		t.Fatalf("%+v", h)
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
