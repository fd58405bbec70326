package helmjudge

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/helmstorage"
)

// What an uninstall does with each hook, by Helm's rules (hooks.go): delete hooks run and
// their object stays unless hook-succeeded deletes it; another hook's object stays once it ran,
// unless its policy deleted it then; Helm never deletes a CRD a hook made.
func TestUninstallHook(t *testing.T) {
	job := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": "j", "namespace": "x"}}}
	crd := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": map[string]any{"name": "ws.example.com"}}}
	hook := func(o *unstructured.Unstructured, event, phase string, policies ...string) helmstorage.Hook {
		return helmstorage.Hook{Object: o, Path: "web/templates/h.yaml", Events: []string{event}, DeletePolicies: policies, LastPhase: phase}
	}
	for _, tc := range []struct {
		name              string
		hook              helmstorage.Hook
		disabled          bool
		none, runs, stays bool
	}{
		{"pre-delete, default policy", hook(job, "pre-delete", ""), false, false, true, true},
		{"post-delete, hook-succeeded", hook(job, "post-delete", "", "hook-succeeded"), false, false, true, false},
		{"pre-delete, hooks disabled", hook(job, "pre-delete", ""), true, false, false, false},
		{"pre-delete CRD, hook-succeeded", hook(crd, "pre-delete", "", "hook-succeeded"), false, false, true, true},
		{"post-install never ran", hook(job, "post-install", ""), false, true, false, false},
		{"post-install, hook-succeeded, succeeded", hook(job, "post-install", "Succeeded", "hook-succeeded"), false, true, false, false},
		{"post-install, default policy, succeeded", hook(job, "post-install", "Succeeded"), false, false, false, true},
		{"pre-upgrade, hook-succeeded, failed", hook(job, "pre-upgrade", "Failed", "hook-succeeded"), false, false, false, true},
		{"pre-install, hook-failed, failed", hook(job, "pre-install", "Failed", "hook-failed"), false, true, false, false},
		{"post-install CRD, hook-succeeded, succeeded", hook(crd, "post-install", "Succeeded", "hook-succeeded"), false, false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := uninstallHook(tc.hook, tc.disabled)
			if (h == nil) != tc.none || (h != nil && (h.Runs != tc.runs || h.Stays != tc.stays || h.What == "")) {
				t.Fatalf("got %+v", h)
			}
		})
	}
}
