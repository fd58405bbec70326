package saferetire_test

import (
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// fluxInstanceYAML is a FluxInstance that syncs path from the repository's OCI artifact, as
// d2-fleet's clusters/<name>/flux-system/flux-instance.yaml do.
func fluxInstanceYAML(path string) string {
	return `apiVersion: fluxcd.controlplane.io/v1
kind: FluxInstance
metadata:
  name: flux
  namespace: flux-system
spec:
  distribution:
    version: "2.x"
    registry: "ghcr.io/fluxcd"
  sync:
    kind: OCIRepository
    url: "oci://ghcr.io/example/fleet"
    ref: "latest"
    path: "` + path + `"
`
}

// gateAfter writes files over r's working tree, runs the offline gate from base to it and
// fails unless it exits want; the working tree is restored after.
func gateAfter(t *testing.T, r *gittest.Repo, files map[string]string, entry, base string, want int) string {
	t.Helper()
	r.Write(files)
	defer r.Git("checkout", "-q", "--", ".")
	out, errOut, code := offlineGate(t, r.Dir, entry, base)
	if code != want {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, want, out, errOut)
	}
	return out
}

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
		// the tree is headed by what applied the objects, named as the plan names it
		"ResourceSet flux-system/apps\n",
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
	for _, bad := range []string{"not a valid namespace name", "get kustomization flux-system/apps", "in git, delete tenants/apps.yaml", "Kustomization ResourceSet/"} {
		if strings.Contains(out, bad) {
			t.Errorf("output has %q\n%s", bad, out)
		}
	}
}

// updateRepo is laid out as d2-fleet's clusters/update is
// (https://github.com/controlplaneio-fluxcd/d2-fleet/tree/64e4953/clusters/update): no Flux
// Kustomization in the entry at all; a FluxInstance syncs the entry path from the
// repository's OCI artifact, and a ResourceSet beside it renders, per input, a Namespace and a
// GitRepository of another repository with a Kustomization of it. Before the walk started
// from the entry's ResourceSets the gate refused the entry (exit 3); with them but without the
// FluxInstance's source as the repository's, the tenant Kustomization, whose path happens to
// exist here too, was built from this repository's files: a false SAFE.
func updateRepo(inputs ...string) map[string]string {
	list := ""
	for _, in := range inputs {
		list += "    - namespace: \"" + in + "\"\n"
	}
	return map[string]string{
		"clusters/update/flux-instance.yaml": fluxInstanceYAML("clusters/update"),
		"clusters/update/automation.yaml": `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata:
  name: image-update-automation
  namespace: flux-system
spec:
  inputs:
` + list + `  resources:
    - apiVersion: v1
      kind: Namespace
      metadata:
        name: << inputs.namespace >>
    - apiVersion: source.toolkit.fluxcd.io/v1
      kind: GitRepository
      metadata:
        name: << inputs.namespace >>
        namespace: << inputs.namespace >>
      spec:
        interval: 10m
        url: https://github.com/example/<< inputs.namespace >>.git
        ref:
          branch: main
    - apiVersion: kustomize.toolkit.fluxcd.io/v1
      kind: Kustomization
      metadata:
        name: << inputs.namespace >>
        namespace: << inputs.namespace >>
      spec:
        interval: 10m
        path: ./update-policies
        prune: true
        sourceRef:
          kind: GitRepository
          name: << inputs.namespace >>
`,
		"update-policies/policy.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: policy\n  namespace: apps\n",
	}
}

func TestFluxInstanceEntry(t *testing.T) {
	r := gittest.New(t, updateRepo("apps", "infra"))
	base := r.Git("rev-parse", "HEAD")

	t.Run("another repository's Kustomization is not built from this one", func(t *testing.T) {
		out := gateAfter(t, r, map[string]string{"update-policies/policy.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n  namespace: apps\n"}, "clusters/update", base, 2)
		outputHas(t, out, "apps/apps: its source GitRepository/apps/apps is not the repository's (OCIRepository/flux-system/flux-system)",
			"verdict: UNKNOWN (exit 2)")
		if strings.Contains(out, "ConfigMap apps/policy") {
			t.Errorf("judged from this repository's files:\n%s", out)
		}
	})
	t.Run("an input dropped from the entry's ResourceSet deletes its namespace", func(t *testing.T) {
		out := gateAfter(t, r, updateRepo("apps"), "clusters/update", base, 1)
		outputHas(t, out, "UNSAFE Namespace infra (clusters/update/automation.yaml)",
			"in git, change ResourceSet flux-system/image-update-automation (clusters/update/automation.yaml) so that it no longer renders Namespace infra",
			"Kustomization infra/infra: built from another source (GitRepository/infra/infra) and the candidate removes it",
			"verdict: UNSAFE (exit 1)")
	})
}

// previewRepo is laid out as xunholy/k8s-gitops's preview environments are
// (https://github.com/xunholy/k8s-gitops/tree/c56dc9de4/kubernetes/apps/base/preview-system/app):
// a ResourceSet renders a Namespace per open pull request, its inputs read by a
// ResourceSetInputProvider of type GitHubPullRequest, beside an ordinary app. Such a
// ResourceSet cannot be rendered offline, and every commit of the repository was UNKNOWN for it,
// even one that only removed a DNS record of another app (xunholy/k8s-gitops 055489fa7).
func previewRepo(template, app string) map[string]string {
	return map[string]string{
		"clusters/main/apps.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: flux-system
spec:
  path: ./apps
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`,
		"apps/preview.yaml": `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSetInputProvider
metadata:
  name: github-pr-previews
  namespace: preview-system
spec:
  type: GitHubPullRequest
  url: https://github.com/example/app
  filter:
    labels:
      - "deploy/preview"
---
apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata:
  name: preview
  namespace: preview-system
spec:
  inputsFrom:
    - kind: ResourceSetInputProvider
      name: github-pr-previews
  resources:
    - apiVersion: v1
      kind: Namespace
      metadata:
        name: ` + template + `
`,
		"apps/app.yaml": app,
	}
}

func TestUnchangedResourceSetFromPullRequests(t *testing.T) {
	const dns = "apiVersion: externaldns.k8s.io/v1alpha1\nkind: DNSEndpoint\nmetadata:\n  name: wotlk\n  namespace: games\nspec:\n  endpoints: []\n"
	r := gittest.New(t, previewRepo("preview-pr-<< inputs.id >>", dns))
	base := r.Git("rev-parse", "HEAD")

	t.Run("another app's change is judged", func(t *testing.T) {
		out := gateAfter(t, r, map[string]string{"apps/app.yaml": ""}, "clusters/main", base, 0)
		outputHas(t, out, "pruned DNSEndpoint games/wotlk",
			"note: ResourceSet preview-system/preview is not rendered here, but the candidate changes neither it nor any ResourceSetInputProvider",
			"verdict: SAFE (exit 0)")
	})
	t.Run("a change to the ResourceSet is unknown", func(t *testing.T) {
		out := gateAfter(t, r, previewRepo("pr-<< inputs.id >>", dns), "clusters/main", base, 2)
		outputHas(t, out, "ResourceSetInputProvider preview-system/github-pr-previews is of type GitHubPullRequest", "verdict: UNKNOWN (exit 2)")
	})
	t.Run("a change to its input provider is unknown", func(t *testing.T) {
		files := previewRepo("preview-pr-<< inputs.id >>", dns)
		files["apps/preview.yaml"] = strings.Replace(files["apps/preview.yaml"], `"deploy/preview"`, `"preview"`, 1)
		gateAfter(t, r, files, "clusters/main", base, 2)
	})
}
