package kbuild

import (
	"fmt"
	"sync"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/openapi"
)

// buildMu guards kustomize's package-level OpenAPI schema (kubernetes-sigs/kustomize #3659,
// the reason fluxcd/pkg/kustomize.Build serialises every build). kyaml now initialises and
// reads that schema under its own lock, so builds on the built-in schema run concurrently
// (read lock); a build that installs a custom schema (the `openapi` field) resets it for
// everyone, so it runs alone (write lock). The race detector checks this in the tests.
var buildMu sync.RWMutex

// kustomizeBuild runs kustomize with the options of fluxcd/pkg/kustomize.Build (no load
// restrictions inside the confined file system, built-in plugins only, panics recovered).
//
// That function also resets kustomize's global OpenAPI schema around every build, so a schema
// declared by one kustomization (its `openapi` field) cannot leak into the next. Re-parsing the
// built-in schema costs about 0.4 s a build, most of a large repository's lint; here the reset
// happens only around builds whose tree declares a schema, which keeps the same isolation.
func kustomizeBuild(fs filesys.FileSystem, dir string, customSchema bool) (res resmap.ResMap, err error) {
	if customSchema {
		buildMu.Lock()
		defer buildMu.Unlock()
	} else {
		buildMu.RLock()
		defer buildMu.RUnlock()
	}
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
