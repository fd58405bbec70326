package gitopsfixture

import "fmt"

// SameRepository is a repository that reaches its own files through two GitRepositories: the
// FluxInstance's generated `flux-system` (sync.url with ".git", ref refs/heads/main) syncs the
// entry kubernetes/flux/cluster, whose cluster-apps reads flux-system; the apps'
// Kustomizations read `home-kubernetes`, which kubernetes/flux/config declares for the same
// repository without ".git", by branch main, with an ignore rule that keeps only kubernetes/.
// Three more sources are not this repository: another url, the same url at another branch,
// and a url from a variable. Modelled on https://github.com/damacus/home-ops at 7c84bd5f
// (kubernetes/apps/flux-system/flux-instance/instance.yaml, kubernetes/flux/config/cluster.yaml,
// kubernetes/flux/cluster/ks.yaml), with the FluxInstance applied by a tier.
func SameRepository() map[string]string {
	appKS := func(name, source, path string) string {
		return fmt.Sprintf(`apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: %s
  namespace: flux-system
spec:
  interval: 1h
  path: %s
  prune: true
  sourceRef:
    kind: GitRepository
    name: %s
`, name, path, source)
	}
	gitRepo := func(name, url, ref string) string {
		return fmt.Sprintf(`apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: %s
  namespace: flux-system
spec:
  interval: 10m
  url: %s
  ref:
    %s
`, name, url, ref)
	}
	return map[string]string{
		"kubernetes/flux/cluster/ks.yaml": appKS("cluster-apps", "flux-system", "./kubernetes/apps"),
		"kubernetes/apps/kustomization.yaml": `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ./flux-system/flux-instance/instance.yaml
  - ./flux-system/config/ks.yaml
  - ./default/forgejo/ks.yaml
  - ./default/vendored/ks.yaml
  - ./default/next/ks.yaml
  - ./default/templated/ks.yaml
`,
		"kubernetes/apps/flux-system/flux-instance/instance.yaml": `apiVersion: fluxcd.controlplane.io/v1
kind: FluxInstance
metadata:
  name: flux
  namespace: flux-system
spec:
  distribution:
    version: "2.x"
  sync:
    kind: GitRepository
    url: "https://github.com/damacus/home-ops.git"
    ref: "refs/heads/main"
    path: "kubernetes/flux/cluster"
`,
		"kubernetes/apps/flux-system/config/ks.yaml": appKS("flux-config", "flux-system", "./kubernetes/flux/config"),
		"kubernetes/flux/config/cluster.yaml": gitRepo("home-kubernetes", `"https://github.com/damacus/home-ops"`, `branch: "main"`) +
			"  ignore: |\n    # exclude all\n    /*\n    # include kubernetes directory\n    !/kubernetes\n---\n" +
			gitRepo("vendor", "https://github.com/example/vendor-configs", "branch: main") + "---\n" +
			gitRepo("next", "https://github.com/damacus/home-ops", "branch: next") + "---\n" +
			gitRepo("templated", "https://github.com/${GITHUB_OWNER}/home-ops", "branch: main"),
		"kubernetes/apps/default/forgejo/ks.yaml":        appKS("forgejo", "home-kubernetes", "./kubernetes/apps/default/forgejo/app"),
		"kubernetes/apps/default/forgejo/app/pvc.yaml":   PVC("forgejo", "default"),
		"kubernetes/apps/default/vendored/ks.yaml":       appKS("vendored", "vendor", "./kubernetes/apps/default/vendored/app"),
		"kubernetes/apps/default/vendored/app/pvc.yaml":  PVC("vendored", "default"),
		"kubernetes/apps/default/next/ks.yaml":           appKS("next", "next", "./kubernetes/apps/default/next/app"),
		"kubernetes/apps/default/next/app/pvc.yaml":      PVC("next", "default"),
		"kubernetes/apps/default/templated/ks.yaml":      appKS("templated", "templated", "./kubernetes/apps/default/templated/app"),
		"kubernetes/apps/default/templated/app/pvc.yaml": PVC("templated", "default"),
	}
}
