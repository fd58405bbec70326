package saferetire

import (
	"fmt"

	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/retire"
	"github.com/kubeforensics/suite/internal/retire/helmjudge"
)

// addHelm draws what deleting a HelmRelease does to its Helm release: live, the persistent
// objects the uninstall deletes (claims first, with their pods and reclaim cost), the ones it
// leaves, a count of the rest, and its hooks (the delete hooks it runs, the hook objects that
// stay); offline, the persistent state its values declare and what
// was not seen.
func addHelm(parent *output.Node, rm *retire.Removal, p output.Palette) {
	h := rm.Helm
	if h == nil {
		return
	}
	if h.NoUninstall != "" {
		parent.Add("helm: release " + h.Release + " is not uninstalled: " + h.NoUninstall)
		return
	}
	head := "helm: deleting it uninstalls release " + h.Release
	if rm.Outcome == retire.Upgraded {
		head = "helm: the upgrade of release " + h.Release + " deletes"
	}
	n := parent.Add(head)
	if h.Cluster != "" {
		n.Add("on another cluster: the HelmRelease installs the release through its spec.kubeConfig (" + h.Cluster + "); its objects are there, not on the cluster the HelmRelease lives on")
	}
	if h.Installed != "" {
		n.Add("installed: " + h.Installed + ", read from helm-controller's storage: the uninstall deletes its manifest's objects")
	}
	if h.Drift != nil {
		n.AddMessage(p.Warn("drift: "), h.Drift.Text())
	}
	if h.Rendered != "" {
		n.Add("rendered: chart " + h.Rendered + " at base, with helm-controller's values, release name and post-renderers")
	}
	for _, o := range h.Deleted {
		text := helmObjectText(o)
		if o.Via != "" {
			text += ": " + o.Via + ", deleted with it"
		}
		d := n.Add(p.Bad("deletes") + " " + text)
		addHelmClaim(d, o)
	}
	for _, o := range h.Left {
		why := "not in the release's manifest (no meta.helm.sh/release-name for it, e.g. a volumeClaimTemplates claim): left orphaned"
		switch {
		case o.Keep:
			why = "kept by helm.sh/resource-policy: keep"
		case o.Via != "":
			why = o.Via + ", not in the release's manifest: left orphaned"
		}
		d := n.Add(p.Good("leaves") + " " + helmObjectText(o) + ": " + why)
		addHelmClaim(d, o)
	}
	if len(h.Others) > 0 {
		n.Add("and the release's other objects: " + h.OthersText())
	}
	for _, hk := range h.Hooks {
		word := "hook"
		if hk.Stays {
			word = p.Warn("hook")
		}
		n.Add(word + " " + hk.Path + ": " + hk.What)
	}
	for _, v := range h.Values {
		line := fmt.Sprintf("values %s: %s", v.Path, v.What)
		if v.Claim != "" {
			line = fmt.Sprintf("values %s (claim %s): %s", v.Path, v.Claim, v.What)
		}
		n.Add(line)
	}
	if h.Stateless != "" {
		n.Add("no state: " + h.Stateless)
	}
	for _, s := range h.NotSeen {
		n.AddMessage(p.Warn("not seen: "), s)
	}
}

func helmObjectText(o helmjudge.Object) string {
	s := o.Object.String()
	if o.Detail != "" {
		s += " (" + o.Detail + ")"
	}
	return s
}

func addHelmClaim(n *output.Node, o helmjudge.Object) {
	for _, b := range o.Consumers {
		n.Add(fmt.Sprintf("mounted by pods/%s: %s", b.Object.Name, b.Reason))
	}
	if o.Cost != "" {
		n.Add("if deleted: " + o.Cost)
	}
}
