package retire

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/gitops"
)

// changedByName names the ConfigMaps, Secrets and Flux sources the candidate adds, changes or
// drops, and the HelmCharts whose source is one of them; nothing else, and nothing unchanged.
func TestChangedByName(t *testing.T) {
	object := func(apiVersion, kind, name string, spec map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name, "namespace": "flux-system"}}}
		if spec != nil {
			u.Object["spec"] = spec
		}
		return u
	}
	repo := func(url string) *unstructured.Unstructured {
		return object("source.toolkit.fluxcd.io/v1", "HelmRepository", "bjw-s", map[string]any{"url": url})
	}
	chart := object("source.toolkit.fluxcd.io/v1", "HelmChart", "app-template", map[string]any{"chart": "app-template",
		"sourceRef": map[string]any{"kind": "HelmRepository", "name": "bjw-s"}})
	cm := func(name, v string) *unstructured.Unstructured {
		u := object("v1", "ConfigMap", name, nil)
		u.Object["data"] = map[string]any{"a": v}
		return u
	}
	deploy := func(image string) *unstructured.Unstructured {
		return object("apps/v1", "Deployment", "web", map[string]any{"image": image})
	}
	tree := func(objs ...*unstructured.Unstructured) *gitops.Tree {
		return &gitops.Tree{EntryBuild: &gitops.Tier{}, Tiers: map[string]*gitops.Tier{"flux-system/apps": {Objects: objs}}}
	}
	for _, tc := range []struct {
		name       string
		base, cand *gitops.Tree
		want       []string
	}{
		{"image bump", tree(deploy("a:1"), cm("settings", "x"), repo("https://a")), tree(deploy("a:2"), cm("settings", "x"), repo("https://a")), nil},
		{"values changed", tree(cm("settings", "x"), cm("other", "y")), tree(cm("settings", "z"), cm("other", "y")), []string{"settings"}},
		{"values added and dropped", tree(cm("old", "x")), tree(cm("new", "x")), []string{"new", "old"}},
		{"source behind a HelmChart", tree(repo("https://a"), chart), tree(repo("https://b"), chart), []string{"app-template", "bjw-s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := changedByName(tc.base, tc.cand); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
