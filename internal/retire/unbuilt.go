package retire

import (
	"errors"

	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/kbuild"
)

// unbuiltDeclarer names the Kustomization above a tier the candidate lacks (bt at base, no ct)
// whose candidate build failed: the tier is missing from the candidate because nothing of that
// build is known, not because it was dropped (soulwhisper/homelab-ops 73862829 named, in
// kubernetes/apps/media-apps/kustomization.yaml, a ks.yaml it had not added, so
// kubernetes/apps did not build and every app below it looked deleted). "" otherwise. A
// parent whose path is gone at the candidate is not such a failure: MarkRemoved decides it.
func unbuiltDeclarer(base, cand *gitops.Tree, bt, ct *gitops.Tier) string {
	if bt == nil || ct != nil {
		return ""
	}
	seen := map[string]bool{}
	for parent := bt.AppliedBy; parent != "" && !seen[parent]; {
		seen[parent] = true
		if pc := cand.Tiers[parent]; pc != nil {
			if pc.Err != nil && !errors.Is(pc.Err, kbuild.ErrPathNotFound) {
				return parent
			}
			return ""
		}
		pb := base.Tiers[parent]
		if pb == nil {
			return ""
		}
		parent = pb.AppliedBy
	}
	return ""
}
