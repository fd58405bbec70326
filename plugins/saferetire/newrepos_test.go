package saferetire_test

import (
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// tenantsRepo is laid out as controlplaneio-fluxcd/d2-fleet is
// (https://github.com/controlplaneio-fluxcd/d2-fleet/tree/64e4953, clusters/staging/tenants.yaml
// and tenants/apps.yaml): a Kustomization applies ResourceSets, and each ResourceSet renders,
// per tenant input, the tenant's Namespace, its RBAC and a Kustomization of the tenant's own
// OCI artifact. Dropping a tenant's input makes the operator delete its Namespace and all in
// it. Before the plan read ResourceSet owners, every stage of that plan was replaced by
// `namespace "ResourceSet" is not a valid namespace name`, and no command was printed.
func tenantsRepo(tenants ...string) map[string]string {
	inputs := ""
	for _, t := range tenants {
		inputs += "    - tenant: \"" + t + "\"\n      tag: \"${ARTIFACT_TAG}\"\n"
	}
	return map[string]string{
		"clusters/staging/tenants.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: tenants
  namespace: flux-system
spec:
  interval: 12h
  path: ./tenants
  prune: true
  sourceRef:
    kind: OCIRepository
    name: flux-system
  postBuild:
    substituteFrom:
      - kind: ConfigMap
        name: flux-runtime-info
`,
		"clusters/staging/runtime-info.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: flux-runtime-info
  namespace: flux-system
data:
  ARTIFACT_TAG: latest
`,
		"tenants/apps.yaml": `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata:
  name: apps
  namespace: flux-system
spec:
  inputs:
` + inputs + `  resources:
    - apiVersion: v1
      kind: Namespace
      metadata:
        name: << inputs.tenant >>
    - apiVersion: v1
      kind: ServiceAccount
      metadata:
        name: flux
        namespace: << inputs.tenant >>
    - apiVersion: source.toolkit.fluxcd.io/v1
      kind: OCIRepository
      metadata:
        name: apps
        namespace: << inputs.tenant >>
      spec:
        interval: 5m
        url: "oci://ghcr.io/example/apps/<< inputs.tenant >>"
        ref:
          tag: << inputs.tag >>
    - apiVersion: kustomize.toolkit.fluxcd.io/v1
      kind: Kustomization
      metadata:
        name: apps
        namespace: << inputs.tenant >>
      spec:
        targetNamespace: << inputs.tenant >>
        serviceAccountName: flux
        interval: 30m
        sourceRef:
          kind: OCIRepository
          name: apps
        path: "./staging"
        prune: true
`,
	}
}

func TestResourceSetTenantDropped(t *testing.T) {
	r := gittest.New(t, tenantsRepo("frontend", "backend"))
	base := r.Git("rev-parse", "HEAD")
	r.Write(tenantsRepo("frontend"))
	out, errOut, code := offlineGate(t, r.Dir, "clusters/staging", base)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (unsafe)\n%s\n%s", code, out, errOut)
	}
	outputHas(t, out,
		"UNSAFE Namespace backend (tenants/apps.yaml)",
		// protect: the operator's own opt-out, and the ResourceSet that must apply it
		"add the annotation fluxcd.controlplane.io/prune: disabled",
		"wait until ResourceSet flux-system/apps has applied the merged revision",
		"$ kubectl --context=CONTEXT -n flux-system get resourceset apps\n",
		// remove: only what renders the object, never the file, which renders every tenant
		"in git, change ResourceSet flux-system/apps (tenants/apps.yaml) so that it no longer renders Namespace backend",
		"ResourceSet flux-system/apps drops _backend__Namespace from its inventory",
		"-n flux-system get resourceset apps -o 'jsonpath={.status.inventory.entries[*].id}'",
		"$ kubectl --context=CONTEXT delete namespace backend",
		// the tenant's own Kustomization builds another source: what it prunes is not judged
		"Kustomization backend/apps: built from another source (OCIRepository/backend/apps) and the candidate removes it",
		"verdict: UNSAFE (exit 1)")
	for _, bad := range []string{"not a valid namespace name", "get kustomization flux-system/apps", "in git, delete tenants/apps.yaml"} {
		if strings.Contains(out, bad) {
			t.Errorf("output has %q\n%s", bad, out)
		}
	}
}
