package retire

import (
	"fmt"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/resourceset"
	"github.com/kubeforensics/suite/internal/retire/helm"
)

// Planner renders the staged plans of one run. Target pins every command to the cluster and
// connection of the run; offline, where no cluster is known, it carries the flags given and a
// placeholder context the operator fills (cluster.Offline).
type Planner struct {
	Target cluster.Target
}

// kubectl renders `kubectl <connection flags> [-n ns] args...`, every word shell-quoted.
func (p Planner) kubectl(namespace string, args ...string) string {
	if namespace != "" {
		args = append([]string{"-n", namespace}, args...)
	}
	return p.Target.Command(args...)
}

// Kubectl is kubectl for the packages that act on a plan (internal/retire/execute): the
// commands a refusal points to are pinned to the same cluster and connection as the plan's.
func (p Planner) Kubectl(namespace string, args ...string) string {
	return p.kubectl(namespace, args...)
}

// Suspend is the command that sets spec.suspend on the Flux object o, as the plan prints it.
func (p Planner) Suspend(o Ref) string { return p.suspend(o) }

// Plan fills r.Plan. An unsafe move is protected, moved and unprotected (movePlan). Any other
// unsafe removal gets all four stages, protect first; a retained one has
// stages 1 and 3 done by this change and keeps the drain and the deletion by hand. Other
// removals need no plan. An object whose name or namespace the API server would refuse gets
// no command at all: only a stage that says so, and the reason among r.Reasons.
func (p Planner) Plan(r *Removal) {
	r.Plan = nil
	if bad := invalidObject(r); bad != "" {
		r.addReason(ReasonInvalidObject, bad)
		r.Plan = []Stage{{Number: 1, Title: "fix the manifest", Do: []string{bad + ": no such object can exist on a cluster, so no command is printed for it"}}}
		return
	}
	on := p.on(r)
	switch {
	case r.HelmDrop != nil:
		if r.Unsafe {
			p.planHelmDrop(r, on)
		}
	case r.Outcome == Upgraded:
		r.Plan = on.upgradePlan(r)
	case r.Unsafe && r.Outcome == Moved:
		r.Plan = p.movePlan(r)
	case r.Unsafe:
		r.Plan = []Stage{p.protect(r), on.drain(r), p.remove(r), on.delete(r)}
	case r.Outcome == Retained && r.Persistent != nil:
		protect, remove := p.protect(r), p.remove(r)
		protect.Done, remove.Done = true, true
		r.Plan = []Stage{protect, on.drain(r), remove, on.delete(r)}
	}
	if r.Cluster != "" && len(r.Plan) > 0 {
		r.Plan[0].Do = append([]string{fmt.Sprintf("%s is on %s, not on the one it lives on: commands on %s carry --kubeconfig=%s, a placeholder for a kubeconfig of that cluster that you fill in; commands on the %s stay on this one",
			r.Object, r.elsewhere(), r.Object, cluster.RemotePlaceholder, r.elsewhereBy())}, r.Plan[0].Do...)
	}
}

// elsewhere names the cluster a removal on another cluster is on (Cluster): the one a
// HelmRelease installs its release on through its own spec.kubeConfig, else the one its
// Kustomization applies to.
func (r *Removal) elsewhere() string {
	if d := r.HelmDrop; d != nil && d.Cluster != "" {
		return fmt.Sprintf("the cluster HelmRelease %s installs its release on (its spec.kubeConfig: %s)", d.HelmRelease, d.Cluster)
	}
	return fmt.Sprintf("the cluster Kustomization %s applies to (its spec.kubeConfig: %s)", r.Kustomization, r.Cluster)
}

// elsewhereBy is the kind of the Flux object whose spec.kubeConfig reaches that cluster.
func (r *Removal) elsewhereBy() string {
	if d := r.HelmDrop; d != nil && d.Cluster != "" {
		return "HelmRelease"
	}
	return "Kustomization"
}

// on is the planner for commands on r's object: p, unless the object lives on the cluster a
// Kustomization's spec.kubeConfig names, which this run's connection does not reach; then a
// placeholder kubeconfig the operator fills, never this cluster's flags (an object of the
// same name here is another object).
func (p Planner) on(r *Removal) Planner {
	if r.Cluster == "" {
		return p
	}
	return Planner{Target: cluster.Remote()}
}

func (p Planner) protect(r *Removal) Stage {
	o := ownerOf(r.Kustomization)
	annotation := PruneAnnotation
	jsonpath := `jsonpath={.metadata.annotations.kustomize\.toolkit\.fluxcd\.io/prune}`
	if o.resourceSet {
		// Flux Operator deletes what a ResourceSet no longer renders unless it carries its own
		// opt-out; kustomize-controller's annotation means nothing to it.
		annotation = resourceset.PruneAnnotation
		jsonpath = `jsonpath={.metadata.annotations.fluxcd\.controlplane\.io/prune}`
	}
	if r.KustomizationDeleted && !o.resourceSet {
		return p.protectDeleted(r, o.namespace, o.name, jsonpath)
	}
	return Stage{
		Number: 1, Title: "protect",
		Do: []string{
			fmt.Sprintf("in git, keep the manifest of %s%s and add the annotation %s: %s to its metadata", r.Object, inFile(r.File), annotation, Disabled),
			"merge that change alone",
			fmt.Sprintf("wait until %s has applied the merged revision", o),
		},
		Commands: []string{p.protectCommand(o)},
		Check:    p.on(r).kubectl(r.Object.Namespace, "get", r.Object.Resource(), r.Object.Name, "-o", jsonpath),
		Expect:   Disabled + " (the live object carries the protection; " + o.applied() + ")",
	}
}

// protectDeleted protects an object of a Kustomization the candidate deletes: its
// finalizer deletes what the live inventory lists (as deletionPolicy says), except what carries
// the opt-out, so the object is annotated in the child's own path first, or the child is told to
// keep everything it applied; either merged alone, before the deletion.
func (p Planner) protectDeleted(r *Removal, ksNS, ksName, jsonpath string) Stage {
	ks := r.Kustomization
	return Stage{
		Number: 1, Title: "protect",
		Do: []string{
			fmt.Sprintf("before deleting Kustomization %s, in git keep its manifest and its path, and add the annotation %s: %s to the metadata of %s%s", ks, PruneAnnotation, Disabled, r.Object, inFile(r.File)),
			fmt.Sprintf("or keep everything Kustomization %s applied: set spec.deletionPolicy: Orphan (or spec.suspend: true) in its own manifest", ks),
			"merge that change alone",
			fmt.Sprintf("wait until Kustomization %s has applied the merged revision", ks),
		},
		Commands: []string{p.protectCommand(owner{namespace: ksNS, name: ksName})},
		Check:    p.on(r).kubectl(r.Object.Namespace, "get", r.Object.Resource(), r.Object.Name, "-o", jsonpath),
		Expect:   Disabled + " (the live object carries the protection; with deletionPolicy Orphan instead, " + p.kubectl(ksNS, "get", "kustomization", ksName, "-o", "jsonpath={.spec.deletionPolicy}") + " shows Orphan)",
	}
}

// protectCommand shows which revision the owner last applied: a Kustomization's
// status.lastAppliedRevision, a ResourceSet's Ready condition.
func (p Planner) protectCommand(o owner) string {
	if o.resourceSet {
		return p.kubectl(o.namespace, "get", o.resource(), o.name)
	}
	return p.kubectl(o.namespace, "get", o.resource(), o.name, "-o", "jsonpath={.status.lastAppliedRevision}")
}

func inFile(f string) string {
	if f == "" {
		return ""
	}
	return " (" + f + ")"
}

func (p Planner) drain(r *Removal) Stage {
	s := Stage{Number: 2, Title: "drain"}
	ref := r.Object
	switch ref.GroupKind() {
	case "PersistentVolumeClaim":
		s.Do = append(s.Do, fmt.Sprintf("in git, remove every volume that mounts claim %s from the workloads that declare it, merge, and wait for their pods to roll", ref.Name))
		for _, c := range r.DeclaredConsumers {
			s.Do = append(s.Do, fmt.Sprintf("the candidate still mounts it in %s", c))
		}
		if r.Live != nil {
			for _, b := range r.Live.Consumers {
				line := fmt.Sprintf("pod %s %s", b.Object.Name, b.Reason)
				if len(b.OwnerChain) > 0 {
					line += ", owned by " + b.OwnerChain[len(b.OwnerChain)-1].String()
				}
				if b.GitOps != nil {
					line += ", applied by " + b.GitOps.String()
				}
				s.Do = append(s.Do, line)
			}
		}
		s.Do = append(s.Do, "a pod whose controller no longer mounts the claim but has not replaced it (a StatefulSet or DaemonSet with updateStrategy OnDelete keeps its old pods) must be deleted: safe-retire without --dry-run re-checks that and asks first")
		s.Check = p.kubectl(ref.Namespace, "get", "pods", "--no-headers", "-o", "custom-columns=POD:.metadata.name,CLAIMS:.spec.volumes[*].persistentVolumeClaim.claimName") + " | " + cluster.Quote("grep", "-Fw", ref.Name)
		s.Expect = "no output: no pod uses the claim"
	case "Namespace":
		s.Do = []string{fmt.Sprintf("move or retire what still lives in namespace %s first: deleting it deletes all of it", ref.Name)}
		s.Check = p.kubectl(ref.Name, "get", "all,configmaps,secrets,persistentvolumeclaims")
		s.Expect = "nothing you still need"
	case "CustomResourceDefinition.apiextensions.k8s.io":
		s.Do = []string{fmt.Sprintf("retire or back up every custom resource of %s first: deleting the CRD deletes them all", ref.Name)}
		s.Check = p.kubectl("", "get", ref.Name, "-A")
		s.Expect = "no resources found"
	default:
		s.Do = []string{fmt.Sprintf("make sure nothing still depends on %s (%s)", ref, detail(r))}
	}
	return s
}

func detail(r *Removal) string {
	if r.Persistent == nil {
		return "no persistent state"
	}
	return r.Persistent.Detail
}

func (p Planner) remove(r *Removal) Stage {
	o := ownerOf(r.Kustomization)
	ksNS, ksName := o.namespace, o.name
	if r.KustomizationDeleted && !o.resourceSet {
		return Stage{
			Number: 3, Title: "remove the manifest",
			Do: []string{
				fmt.Sprintf("in git, delete the manifest of Kustomization %s (and its entry in its parent's kustomization.yaml) with its path, merge", r.Kustomization),
				fmt.Sprintf("its parent deletes Kustomization %s, whose finalizer deletes what its inventory lists and leaves %s in place", r.Kustomization, r.Object),
			},
			Check:  p.kubectl(ksNS, "get", "kustomization", ksName),
			Expect: "NotFound; " + p.orphansListIt(r),
		}
	}
	what := "the manifest of " + r.Object.String()
	if r.File != "" {
		what = r.File
	}
	drop := fmt.Sprintf("in git, delete %s (and its entry in kustomization.yaml), merge", what)
	if o.resourceSet {
		// The file declares the ResourceSet, which renders other objects too: only what renders
		// this one goes (its input, or its template).
		drop = fmt.Sprintf("in git, change %s%s so that it no longer renders %s (drop its input or its template), merge", o, inFile(r.File), r.Object)
	}
	return Stage{
		Number: 3, Title: "remove the manifest",
		Do: []string{
			drop,
			fmt.Sprintf("%s drops %s from its inventory and leaves the object in place", o, r.ID),
		},
		Check:  p.kubectl(ksNS, "get", o.resource(), ksName, "-o", "jsonpath={.status.inventory.entries[*].id}") + " | " + cluster.Quote("tr", " ", `\n`) + " | " + cluster.Quote("grep", "-Fx", r.ID),
		Expect: "no output; " + p.orphansListIt(r),
	}
}

// orphansListIt says where the retained object is listed afterwards: by --orphans, which
// reads this cluster's objects, unless the object is on another cluster.
func (p Planner) orphansListIt(r *Removal) string {
	if r.Cluster != "" {
		return "the object stays on the cluster " + r.Cluster + " reaches (`kubectl safe-retire --orphans` reads one cluster's Kustomizations and objects together, so it does not list it)"
	}
	return "`" + p.Target.Plugin("safe-retire", "--orphans") + "` lists the object"
}

func (p Planner) delete(r *Removal) Stage {
	ref := r.Object
	s := Stage{
		Number: 4, Title: "verify and delete by hand",
		Do: []string{
			"once stage 2 and 3 checks pass, delete the object yourself (safe-retire without --dry-run re-checks both and asks first)",
		},
		Commands: []string{p.kubectl(ref.Namespace, "delete", ref.Resource(), ref.Name)},
		Check:    p.kubectl(ref.Namespace, "get", ref.Resource(), ref.Name),
		Expect:   "NotFound",
		Cost:     lost(r),
	}
	if r.Helm != nil {
		s.Do = append(s.Do, p.helmKeep(r))
	}
	return s
}

// lost says what the deletion of stage 4 loses.
func lost(r *Removal) string {
	if r.Live != nil && r.Live.Cost != "" {
		return r.Live.Cost
	}
	if r.Object.GroupKind() == "PersistentVolumeClaim" {
		return "depends on the bound volume's reclaim policy (Delete loses the data, Retain keeps it as Released); read it with the live gate (safe-retire without --offline)"
	}
	return detail(r)
}

// DeleteCommand is the command of stage 4.
func (p Planner) DeleteCommand(r *Removal) string {
	return p.on(r).kubectl(r.Object.Namespace, "delete", r.Object.Resource(), r.Object.Name)
}

// invalidObject says why the API server would refuse the removed object or its Kustomization,
// or returns "": such a name comes from the repository unchecked.
func invalidObject(r *Removal) string {
	if bad := cluster.InvalidName(r.Object.GroupKind(), r.Object.Namespace, r.Object.Name); bad != "" {
		return bad
	}
	if r.Kustomization == "" {
		return ""
	}
	o := ownerOf(r.Kustomization)
	return cluster.InvalidName(o.groupKind(), o.namespace, o.name)
}

// upgradePlan retires the claims an upgrade of a HelmRelease would delete: kept first with
// app-template's retain (helm.sh/resource-policy: keep, which Helm honours when a manifest drops
// an object), then dropped from the values; the claim is then left, unmanaged, to be deleted by
// hand. Commands are printed only for claims whose name is known (app-template).
func (p Planner) upgradePlan(r *Removal) []Stage {
	hr := r.Object
	protect := Stage{Number: 1, Title: "protect", Do: []string{}}
	remove := Stage{Number: 2, Title: "remove the values", Do: []string{}}
	var deletes Stage
	for _, v := range r.Helm.Values {
		protect.Do = append(protect.Do, fmt.Sprintf("in git, keep %s in HelmRelease %s/%s%s and set retain: true on it (app-template; for another chart, the annotation %s: keep on the claim through its values)", v.Path, hr.Namespace, hr.Name, inFile(r.File), helm.ResourcePolicyAnnotation))
		remove.Do = append(remove.Do, fmt.Sprintf("in git, drop %s, merge: Helm leaves the kept claim in place", v.Path))
		if v.Claim != "" {
			ns, _ := helm.SplitRelease(r.Helm.Release)
			protect.Check = p.kubectl(ns, "get", "persistentvolumeclaim", v.Claim, "-o", `jsonpath={.metadata.annotations.helm\.sh/resource-policy}`)
			protect.Expect = "keep"
			deletes = Stage{Number: 3, Title: "verify and delete by hand", Do: []string{"once nothing mounts it, delete the claim yourself"},
				Commands: []string{p.kubectl(ns, "delete", "persistentvolumeclaim", v.Claim)}, Check: p.kubectl(ns, "get", "persistentvolumeclaim", v.Claim), Expect: "NotFound",
				Cost: "depends on the bound volume's reclaim policy (Delete loses the data, Retain keeps it as Released)"}
		}
	}
	protect.Do = append(protect.Do, "merge that change alone", fmt.Sprintf("wait until HelmRelease %s/%s has upgraded release %s", hr.Namespace, hr.Name, r.Helm.Release))
	if len(r.Helm.Values) != 1 || deletes.Number == 0 {
		// One check and one delete per plan: with several claims, or names not known, the
		// stages say what to check in words.
		protect.Check, protect.Expect = "", ""
		return []Stage{protect, remove}
	}
	return []Stage{protect, remove, deletes}
}

// EvictPodCommand is a command that evicts pod by hand the way stage 2 does, through the
// Eviction API, so its PodDisruptionBudget is honoured (kubectl has no evict verb).
func (p Planner) EvictPodCommand(namespace, pod string) string {
	body := fmt.Sprintf(`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":%q,"namespace":%q}}`, pod, namespace)
	return cluster.Quote("echo", body) + " | " + p.kubectl("", "create", "--raw", "/api/v1/namespaces/"+namespace+"/pods/"+pod+"/eviction", "-f", "-")
}
