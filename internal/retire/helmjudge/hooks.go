package helmjudge

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/helmstorage"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire/inventory"
)

// What an uninstall does with a release's hooks, as Helm's own code does it (helm/helm v4.2.2,
// the Helm this program and helm-controller are built with):
//   - pkg/action/uninstall.go, Uninstall.Run: unless DisableHooks (helm-controller sets it from
//     spec.uninstall.disableHooks), execHook runs the pre-delete hooks before deleteRelease and
//     the post-delete hooks after it; deleteRelease deletes the objects of the release's
//     manifest only (releaseutil.SplitManifests(rel.Manifest)), and hooks are kept out of the
//     manifest, so no object a hook created is deleted as part of the release.
//   - pkg/action/hooks.go, execHookWithDelayedShutdown: a hook without helm.sh/hook-delete-policy
//     gets before-hook-creation (hookSetDeletePolicy), which deletes its object only before the
//     same hook creates it again; hook-succeeded deletes it once the hook succeeded, hook-failed
//     once it failed; deleteHookByPolicy never deletes a CustomResourceDefinition.
// So the object an install, upgrade, rollback or test hook created stays after the uninstall
// unless its delete policy removed it when the hook ran, and a delete hook's object stays
// after the uninstall unless hook-succeeded removes it.

// Hook is one hook of the installed release and what an uninstall does with the object it
// creates (Uninstall.Hooks).
type Hook struct {
	Object inventory.Ref `json:"object"`
	Path   string        `json:"path"`
	// Events are the hook's helm.sh/hook events, DeletePolicies its delete policies as
	// written (none: Helm's default, before-hook-creation).
	Events         []string `json:"events"`
	DeletePolicies []string `json:"deletePolicies,omitempty"`
	// Runs is set for a pre-delete or post-delete hook the uninstall runs, creating Object.
	Runs bool `json:"runs,omitempty"`
	// Stays is set when Object is on the cluster after the uninstall, in no release.
	Stays bool `json:"stays,omitempty"`
	// What says it, as a sentence.
	What string `json:"what"`
}

// The hook events and delete policies these rules read (Helm's release.HookEvent and
// release.HookDeletePolicy).
const (
	hookPreDelete          = "pre-delete"
	hookPostDelete         = "post-delete"
	hookSucceeded          = "hook-succeeded"
	hookFailed             = "hook-failed"
	hookBeforeHookCreation = "before-hook-creation"
)

// hookFacts reads what uninstalling hr's release rel does with its hooks: one Hook per hook
// that runs or whose object stays, and, for each claim or StatefulSet a hook created that
// stays, the Object the uninstall leaves, with its mounting pods and reclaim cost.
func (lr *Reader) hookFacts(ctx context.Context, rel *helmstorage.Release, hr *unstructured.Unstructured, gaps *[]report.Gap) ([]Hook, []Object) {
	disabled, _, _ := unstructured.NestedBool(hr.Object, "spec", "uninstall", "disableHooks")
	var hooks []Hook
	var left []Object
	for _, h := range rel.Hooks {
		hh := uninstallHook(h, disabled)
		if hh == nil {
			continue
		}
		hooks = append(hooks, *hh)
		if !hh.Stays || hh.Runs {
			continue
		}
		switch hh.Object.GroupKind() {
		case "PersistentVolumeClaim", "StatefulSet.apps":
			res, ok := lr.Catalog.ForGroupKind(h.Object.GroupVersionKind().GroupKind())
			if !ok {
				continue
			}
			o, claims := lr.objectFacts(ctx, res, Object{Object: hh.Object, Via: fmt.Sprintf("made by the %s hook %s, which the uninstall does not delete", strings.Join(hh.Events, ", "), hh.Path)}, gaps)
			left = append(left, o)
			left = append(left, claims...)
		}
	}
	return hooks, left
}

// uninstallHook is what an uninstall does with hook h (the rules above), nil when it neither
// runs it nor leaves an object of it: a hook that never ran, or whose object its policy
// deleted when it ran.
func uninstallHook(h helmstorage.Hook, disabled bool) *Hook {
	hh := &Hook{Object: inventory.RefOf(h.Object), Path: h.Path, Events: h.Events, DeletePolicies: h.DeletePolicies}
	policies := h.DeletePolicies
	if len(policies) == 0 {
		policies = []string{hookBeforeHookCreation}
	}
	crd := hh.Object.GroupKind() == "CustomResourceDefinition.apiextensions.k8s.io"
	deletes := func(p string) bool { return !crd && slices.Contains(policies, p) }
	events := strings.Join(h.Events, ", ")
	if slices.Contains(h.Events, hookPreDelete) || slices.Contains(h.Events, hookPostDelete) {
		if disabled {
			hh.What = fmt.Sprintf("a %s hook: spec.uninstall.disableHooks is set, so the uninstall does not run it", events)
			return hh
		}
		hh.Runs = true
		switch {
		case deletes(hookSucceeded):
			hh.What = fmt.Sprintf("the uninstall runs this %s hook, creating %s, and deletes it once it succeeds (hook-succeeded)", events, hh.Object)
			if !deletes(hookFailed) {
				hh.What += "; if it fails, it stays"
			}
		case crd:
			hh.Stays = true
			hh.What = fmt.Sprintf("the uninstall runs this %s hook, creating %s, and Helm never deletes a CustomResourceDefinition a hook creates: it stays", events, hh.Object)
		default:
			hh.Stays = true
			hh.What = fmt.Sprintf("the uninstall runs this %s hook, creating %s, which stays after the uninstall (delete policy %s)", events, hh.Object, strings.Join(policies, ", "))
		}
		return hh
	}
	switch {
	case h.LastPhase == "":
		return nil // never ran: it created nothing
	case h.LastPhase == "Succeeded" && deletes(hookSucceeded), h.LastPhase == "Failed" && deletes(hookFailed):
		return nil // deleted when it ran
	}
	hh.Stays = true
	why := fmt.Sprintf("its delete policy %s did not delete it after its last run (%s)", strings.Join(policies, ", "), h.LastPhase)
	if deletes(hookBeforeHookCreation) {
		why = "its delete policy before-hook-creation deletes it only before this hook runs again"
	} else if crd {
		why = "Helm never deletes a CustomResourceDefinition a hook creates"
	}
	hh.What = fmt.Sprintf("created by this %s hook and not in the release's manifest: the uninstall does not delete it, and it stays, in no release (%s)", events, why)
	return hh
}
