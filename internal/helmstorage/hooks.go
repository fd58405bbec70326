package helmstorage

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// Hook is one hook of a release (Helm's release.Hook): the object its manifest creates, the
// events it runs on, its delete policies, and how its last run ended. Helm keeps hooks out of
// the release's manifest.
type Hook struct {
	// Object holds the hook object's apiVersion, kind, name and namespace, nothing else: a
	// hook may be a Secret, and its data is never kept. A namespaced one may have no
	// namespace (Helm creates it in the release's).
	Object *unstructured.Unstructured
	// Path is the chart template it was rendered from ("web/templates/job.yaml").
	Path string
	// Events are helm.sh/hook's ("pre-install", "post-delete", …), DeletePolicies
	// helm.sh/hook-delete-policy's ("before-hook-creation", "hook-succeeded", "hook-failed";
	// none written means Helm's default, before-hook-creation).
	Events         []string
	DeletePolicies []string
	// LastPhase is how its last run ended ("Succeeded", "Failed", "Running", "Unknown"), ""
	// when it never ran.
	LastPhase string
}

// hooks reads the object each stored hook creates, keeping only what names it.
func hooks(rs []recordHook) ([]Hook, error) {
	var out []Hook
	for i, h := range rs {
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(h.Manifest), &head); err != nil {
			return nil, fmt.Errorf("hook %d of the release is not YAML", i+1)
		}
		if head.Kind == "" || head.Metadata.Name == "" {
			return nil, fmt.Errorf("hook %d of the release has no kind or name", i+1)
		}
		o := &unstructured.Unstructured{Object: map[string]any{}}
		o.SetAPIVersion(head.APIVersion)
		o.SetKind(head.Kind)
		o.SetName(head.Metadata.Name)
		o.SetNamespace(head.Metadata.Namespace)
		out = append(out, Hook{Object: o, Path: h.Path, Events: h.Events, DeletePolicies: h.DeletePolicies, LastPhase: h.LastRun.Phase})
	}
	return out, nil
}
