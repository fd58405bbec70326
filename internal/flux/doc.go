// Package flux models a cluster's Flux Kustomizations as the dependency graph their
// spec.dependsOn declares, and analyses it: topological tiers, cycles and missing
// dependencies, which Kustomizations fail for their own reason (root causes) and which only
// wait on them (their blast radius), and what the failure message names — the objects a
// health check waited for, a kind applied before its CRD, a revision a dependent waits for.
//
// Its boundary: it reads Flux objects (Kustomizations, their sources, HelmReleases) and the
// objects a failure names through the clients it is given, and returns a Chain value. It
// prints nothing, chooses no exit code and knows nothing of cobra; explaining why an object
// is Terminating is delegated to an Explainer (package finalizers).
package flux
