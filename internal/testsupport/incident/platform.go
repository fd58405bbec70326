package incident

import (
	"embed"
	"io/fs"
	"path"
)

// platform holds the platform repository and the changes made to it.
//
//go:embed testdata/platform
var platform embed.FS

// The platform repository is the incident team's GitOps repository as it really looks, with
// every shape a tool reading it meets (issue #9), so safe-retire and flux-chain --repo are
// tested on more than a tidy fixture. Its files are under testdata/platform/repo, and the
// changes made to it under testdata/platform/<change>:
//
//  1. the Flux source is an OCI artifact pushed from k8s/, so spec.paths are relative to k8s/;
//  2. the root Kustomization (flux-system, path clusters/prod) is created by the bootstrap
//     tool in the cluster and is not in git;
//  3. the tier Kustomizations live in a shared base with placeholder paths and timeouts that
//     the cluster's overlay patches (the patches are partial Kustomization YAML, not objects);
//  4. the claim's prune: disabled annotation arrives through a kustomize component;
//  5. the monitoring tier pulls a remote resource, so it does not build offline;
//  6. a tenant's Kustomization builds from the tenant's own GitRepository;
//  7. a SOPS-encrypted Secret;
//  8. the apps tier takes its namespace from postBuild.substituteFrom a ConfigMap that the
//     infra tier declares, and a value from a Secret that is never read;
//  9. a HelmRelease's drift-detection settings hold `kind: StatefulSet` and
//     `kind: CustomResourceDefinition` as data.
//
// The tiers are in k8s/base/tiers (3, 5, 6), the overlay and its patches in k8s/clusters/prod
// (3), the infra tier with the SOPS Secret, the variables and the HelmRelease in
// k8s/clusters/prod/infra (7, 8, 9), the component in k8s/components/retain-claims (4).
const (
	// PlatformSourceRoot is the artifact's root inside the platform repository.
	PlatformSourceRoot = "k8s"
	// PlatformEntry is the bootstrap-created root Kustomization's path.
	PlatformEntry = "clusters/prod"
	// PlatformClaimFile is the headlamp claim's manifest, from the repository's top level.
	PlatformClaimFile = "k8s/apps/headlamp/claim.yaml"
	// PlatformRemoteURL is what the monitoring tier pulls.
	PlatformRemoteURL = "https://raw.githubusercontent.com/prometheus-operator/prometheus-operator/v0.80.0/example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml"
)

// PlatformRepoFiles is the platform repository at the commit before the removal: the claim is
// in git and unprotected.
func PlatformRepoFiles() map[string]string { return platformFiles("repo") }

// PlatformProtect is stage 1 of the two-stage retirement: the apps tier uses the component
// that marks its claims prune: disabled.
func PlatformProtect() map[string]string { return platformFiles("protect") }

// PlatformClaimRemoval removes the claim's manifest and its entry, keeping the component when
// protect is set.
func PlatformClaimRemoval(protect bool) map[string]string {
	change := "claim-removal"
	if protect {
		change = "claim-removal-protected"
	}
	files := platformFiles(change)
	files[PlatformClaimFile] = ""
	return files
}

// PlatformVendorMonitoring replaces the monitoring tier's remote resource with a vendored copy.
func PlatformVendorMonitoring() map[string]string { return platformFiles("vendor-monitoring") }

// platformFiles reads testdata/platform/<set> as repository path -> content. The files are
// compiled in, so a failure to read them is a broken build, not a runtime condition.
func platformFiles(set string) map[string]string {
	root := path.Join("testdata/platform", set)
	out := map[string]string{}
	err := fs.WalkDir(platform, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := platform.ReadFile(p)
		out[p[len(root)+1:]] = string(b)
		return err
	})
	if err != nil {
		panic("incident: the embedded platform repository is unreadable: " + err.Error())
	}
	return out
}
