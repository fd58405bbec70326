// Package lint judges a GitOps repository's Flux chain before it reaches a cluster. Load builds
// the repository the way kustomize-controller would (package gitops): the entry path, then, level
// by level, the spec.path of every Kustomization the builds yield, so every spec it judges is
// the effective one from build output and never a file as written. Run applies the rules to the
// result; each rule knows a failure mode of tiered Flux chains seen in practice (a CR in the
// tier of its CRD, a tier that times out under a HelmRelease, substitution that fails open …)
// and says, per finding, where in the repository it is fixed and how.
//
// Its boundary: it reads files through gitops and returns values. It never contacts a cluster,
// never decodes Secret data, prints nothing and chooses no exit code.
package lint
