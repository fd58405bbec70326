package finalizers

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
)

// outsideGrant is one user or group (not a service account, not one of Kubernetes' own
// system: identities) that may update an object through a non-broad rule: a client that talks
// to the API server from outside the cluster (a scheduler's service on the hosts, a CI job,
// an administrator's tool) as that identity.
type outsideGrant struct {
	kind, name, via string
}

func (g outsideGrant) String() string { return g.kind + " " + g.name }

// outsideUpdaters returns the users and groups that may update or patch the object (or its
// finalizers subresource) through a rule naming its type: a cluster-admin-like rule (every
// resource of every group) names no client, and system: identities are Kubernetes' own.
func (o *rbacObjects) outsideUpdaters(group, resource, namespace, name string) []outsideGrant {
	var out []outsideGrant
	add := func(rules []rbacv1.PolicyRule, subjects []rbacv1.Subject, via string) {
		if !slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool { return ruleAllowsUpdate(r, group, resource, name) && !isBroad(r) }) {
			return
		}
		for _, s := range subjects {
			if (s.Kind == rbacv1.UserKind || s.Kind == rbacv1.GroupKind) && !strings.HasPrefix(s.Name, "system:") && s.Name != "" {
				out = append(out, outsideGrant{kind: s.Kind, name: s.Name, via: via})
			}
		}
	}
	for _, b := range o.crbs {
		if b.Labels[bootstrapLabel] == "" && b.RoleRef.Kind == "ClusterRole" {
			add(o.clusterRoles[b.RoleRef.Name], b.Subjects, fmt.Sprintf("ClusterRole %s via ClusterRoleBinding %s", b.RoleRef.Name, b.Name))
		}
	}
	for _, b := range o.rbs {
		if b.Namespace != namespace || namespace == "" || b.Labels[bootstrapLabel] != "" {
			continue
		}
		rules, kind := o.clusterRoles[b.RoleRef.Name], "ClusterRole"
		if b.RoleRef.Kind == "Role" {
			rules, kind = o.roles[b.Namespace+"/"+b.RoleRef.Name], "Role"
		}
		add(rules, b.Subjects, fmt.Sprintf("%s %s via RoleBinding %s -n %s", kind, b.RoleRef.Name, b.Name, b.Namespace))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// tiedToDomain reports an identity whose name shares a word of three letters or more with the
// finalizer's domain (User flux and flux-framework.readthedocs.io), the words of both split at
// dots, dashes, slashes, colons, at signs and underscores; the domain's generic words (io, com,
// org, github, readthedocs, k8s, kubernetes, x) tie nothing.
func tiedToDomain(identity, domain string) bool {
	split := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return strings.ContainsRune(".-/:@_", r) })
	}
	generic := []string{"com", "org", "net", "github", "gitlab", "readthedocs", "k8s", "kubernetes", "sigs", "cloud", "operator", "controller", "admin", "user", "users"}
	words := split(domain)
	for _, w := range split(identity) {
		if len(w) >= 3 && !slices.Contains(generic, w) && slices.Contains(words, w) {
			return true
		}
	}
	return false
}

// applyOutsideClient explains a finalizer no workload in the cluster removes (no running
// controller of its domain) when a user or group outside the cluster may update the object and
// its name ties to the finalizer's domain: the remover is that client, which runs outside the
// cluster and talks to the API server as that identity (Flux's coral2_dws service as User flux,
// flux-coral2#165). Reinstalling a product in the cluster would not bring it back; the first
// step points at that client, and the strip (if the client is done with the object) follows.
func (x *Explainer) applyOutsideClient(ctx context.Context, o subject, e *Explanation) {
	var rb *rbacObjects
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if f.Domain == "" || len(f.Blockers) > 0 || slices.ContainsFunc(f.Controllers, func(c Controller) bool { return c.Found }) {
			continue
		}
		if rb == nil {
			var err error
			if rb, err = x.rbac(ctx); err != nil {
				return // the remover's own attribution already reports the RBAC read
			}
		}
		var tied []outsideGrant
		for _, g := range rb.outsideUpdaters(o.res.Group, o.res.Resource, o.obj.GetNamespace(), o.obj.GetName()) {
			if tiedToDomain(g.name, f.Domain) {
				tied = append(tied, g)
			}
		}
		if len(tied) == 0 {
			continue
		}
		outsideClientSteps(f, o, tied)
	}
}

// outsideClientSteps rewrites the steps of a finalizer whose remover is a client outside the
// cluster: that client first, the strip next, no reinstall of an in-cluster product.
func outsideClientSteps(f *Finalizer, o subject, tied []outsideGrant) {
	var who []string
	for _, g := range tied {
		who = append(who, fmt.Sprintf("%s (%s)", g, g.via))
	}
	acts := "may update " + o.res.QualifiedName()
	if tied[0].kind == "field manager" {
		acts = "added it"
	}
	f.Attribution = fmt.Sprintf("no workload in the cluster removes it: %s %s and its name ties to the finalizer's domain %s — a client outside the cluster, acting as that identity, is its remover", strings.Join(who, ", "), acts, f.Domain)
	first := Remediation{Summary: fmt.Sprintf("Look at the client outside the cluster that acts as %s: it put %s on the object and removes it itself once it is done with %s (is it running, does it still know the object, do its logs name it). No product in the cluster removes it, so reinstalling one does not.", tied[0].String(), f.Name, o.ref().String())}
	rs := slices.DeleteFunc(slices.Clone(f.Remedies), func(r Remediation) bool {
		return r.Code == ReasonReinstallController || r.Code == ReasonRestoreController
	})
	for i := range rs {
		if rs[i].Code == ReasonStripFinalizer {
			rs[i].Summary = fmt.Sprintf("If that client is done with the object (or gone for good), remove finalizer %s by hand: nothing in the cluster ever will.", f.Name)
			rs[i].Cost = "left behind: whatever that client would have done before removing it, outside the cluster"
		}
	}
	f.Remedies = append([]Remediation{first}, rs...)
}
