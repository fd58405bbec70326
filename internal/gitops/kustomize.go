package gitops

import (
	"fmt"
	"sync"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/openapi"
)

// buildMu serialises kustomize builds in this process: kustomize keeps its OpenAPI schema and
// some maps in package state that is not safe for concurrent use (kubernetes-sigs/kustomize
// #3659), which is why fluxcd/pkg/kustomize.Build locks too.
var buildMu sync.Mutex

// kustomizeBuild runs kustomize with the options of fluxcd/pkg/kustomize.Build (no load
// restrictions inside the confined file system, built-in plugins only, panics recovered).
//
// That function also resets kustomize's global OpenAPI schema around every build, so a schema
// declared by one kustomization (its `openapi` field) cannot leak into the next. Re-parsing the
// built-in schema costs about 0.4 s a build, most of a large repository's lint; here the reset
// happens only around builds whose tree declares a schema, which keeps the same isolation.
func kustomizeBuild(fs filesys.FileSystem, dir string, customSchema bool) (res resmap.ResMap, err error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered from kustomize build panic: %v", r)
		}
	}()
	if customSchema {
		openapi.ResetOpenAPI()
		_ = openapi.Schema()
		defer openapi.ResetOpenAPI()
	}
	k := krusty.MakeKustomizer(&krusty.Options{
		LoadRestrictions: kustypes.LoadRestrictionsNone,
		PluginConfig:     kustypes.DisabledPluginConfig(),
	})
	return k.Run(fs, dir)
}
