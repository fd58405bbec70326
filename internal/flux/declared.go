package flux

import (
	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
)

// Declared is the state of every Kustomization of a chain built from a repository rather than
// read from a cluster: it has a spec and no status.
const Declared State = "Declared"

// DeclaredObjects are Flux objects as a repository declares them, without status: the effective
// Kustomizations (from build output), the sources the builds contain, and each HelmRelease with
// the Kustomization that applies it.
type DeclaredObjects struct {
	Kustomizations []kustomizev1.Kustomization
	// Sources holds the sources the repository declares, keyed by kind/namespace/name.
	Sources map[string]bool
	// HelmReleases are keyed by the namespace/name of the Kustomization that applies them.
	HelmReleases map[string][]helmv2.HelmRelease
	// Inherited holds, by Kustomization namespace/name, what it waits for because what creates
	// it waits (Node.Inherited).
	Inherited map[string][]InheritedDep
}

// BuildDeclared analyses declared objects into a Chain with the same tiers, dependents,
// missing dependencies, cycles, missing sources and suspensions as Build, and no root causes:
// nothing has reconciled, so every node is Declared and nothing lags.
func BuildDeclared(d DeclaredObjects) *Chain {
	objs := &Objects{
		Kustomizations: d.Kustomizations,
		KStatus:        map[string]string{},
		Sources:        map[string]SourceObject{},
		unread:         map[string]bool{},
		inherited:      d.Inherited,
	}
	for key := range d.Sources {
		objs.Sources[key] = SourceObject{}
	}
	for owner, hrs := range d.HelmReleases {
		ns, name := splitID(owner)
		for _, hr := range hrs {
			hr := *hr.DeepCopy()
			labels := hr.GetLabels()
			if labels == nil {
				labels = map[string]string{}
			}
			labels[ownerNamespaceLabel], labels[ownerNameLabel] = ns, name
			hr.SetLabels(labels)
			objs.HelmReleases = append(objs.HelmReleases, hr)
		}
	}
	c := Build(objs)
	for _, n := range c.Kustomizations {
		n.State, n.KStatus = Declared, ""
	}
	return c
}

func splitID(id string) (namespace, name string) {
	for i := 0; i < len(id); i++ {
		if id[i] == '/' {
			return id[:i], id[i+1:]
		}
	}
	return "", id
}
