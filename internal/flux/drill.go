package flux

import (
	"context"
	"fmt"
	"github.com/fluxcd/cli-utils/pkg/object"
	"slices"
	"strings"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// Explainer explains why an object is Terminating; *finalizers.Explainer implements it.
type Explainer interface {
	Explain(ctx context.Context, res kinds.Resource, namespace, name string) (*finalizers.Explanation, error)
}

// Drill looks at what each root cause's message names, as it is on the server now.
type Drill struct {
	Dynamic dynamic.Interface
	Catalog *kinds.Catalog
	// Explainer may be nil; Terminating objects are then reported without an explanation.
	Explainer Explainer
	Target    cluster.Target
}

// Run fills in the root causes' blocking objects and commands. Reads that fail become notes
// on the object and gaps in the returned list, which do not change the verdict; they never
// hide the root cause itself.
func (d *Drill) Run(ctx context.Context, c *Chain, objs *Objects) []report.Gap {
	inventory, gaps := inventories(objs)
	known, more := d.explainDeleting(ctx, c)
	gaps = append(gaps, more...)
	for i := range c.RootCauses {
		rc := &c.RootCauses[i]
		if rc.Object != "" {
			rc.Commands = append(rc.Commands, d.objectCommands(rc)...)
			for _, hr := range rc.HelmReleases {
				rc.Commands = append(rc.Commands, releaseCommands(d.Target, hr)...)
			}
			continue
		}
		ksNS, ksName, _ := strings.Cut(rc.Kustomization, "/")
		rc.Commands = append(rc.Commands, d.Target.Command(objectArgs("describe", "kustomizations.kustomize.toolkit.fluxcd.io", ksNS, ksName)...))
		for _, hr := range rc.HelmReleases {
			rc.Commands = append(rc.Commands, d.Target.Command(objectArgs("describe", "helmreleases.helm.toolkit.fluxcd.io", hr.Namespace, hr.Name)...))
			rc.Commands = append(rc.Commands, releaseCommands(d.Target, hr)...)
		}
		for _, item := range rc.Failure.Objects {
			bo, gap := d.examine(ctx, item, inventory[rc.Kustomization], known)
			gaps = append(gaps, gap...)
			rc.Objects = append(rc.Objects, bo)
		}
	}
	return gaps
}

// objectCommands are the commands that show an object cause: describing it, or, when it does
// not exist or could not be read (the describe would fail), describing what waits on it, the
// Kustomizations failing on it and the HelmReleases it holds back.
func (d *Drill) objectCommands(rc *RootCause) []string {
	if rc.Reason != ReasonNotFound && rc.Reason != ReasonDependencyUnread {
		ref, ns, _ := strings.Cut(rc.Object, " -n ")
		return []string{d.Target.Command("describe", ref, "-n", ns)}
	}
	var out []string
	for _, id := range rc.Tiers {
		ns, name := splitID(id)
		out = append(out, d.Target.Command(objectArgs("describe", "kustomizations.kustomize.toolkit.fluxcd.io", ns, name)...))
	}
	for _, id := range rc.HeldBack {
		ns, name := splitID(id)
		out = append(out, d.Target.Command(objectArgs("describe", "helmreleases.helm.toolkit.fluxcd.io", ns, name)...))
	}
	return out
}

// examine resolves, reads and, when it is Terminating, explains one named object; one the
// chain explained already (a deleting HelmRelease or Kustomization) keeps that explanation.
// A read or explanation that fails is a note on the object and the gap returned.
func (d *Drill) examine(ctx context.Context, item ObjectItem, inv map[string]string, known map[string]*finalizers.Explanation) (BlockingObject, []report.Gap) {
	bo := BlockingObject{Item: item}
	res, note := d.resolve(item, inv)
	if note != "" {
		bo.Note = note
		return bo, nil
	}
	ref := finalizers.ObjectRef{Group: res.Group, Version: res.Version, Resource: res.Resource, Kind: res.Kind, Namespace: item.Namespace, Name: item.Name}
	bo.Object = &ref
	u, err := d.Dynamic.Resource(res.GVR()).Namespace(item.Namespace).Get(ctx, item.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		bo.KStatus = string(status.NotFoundStatus)
		bo.Note = "not found on the server now"
		return bo, nil
	case err != nil:
		bo.Note = "could not read it: " + cluster.Reason(err)
		return bo, []report.Gap{cluster.Gap(report.OpGet, ref.ID(), "reading "+ref.String(), err)}
	}
	bo.Found = true
	if r, err := status.Compute(u); err == nil {
		bo.KStatus, bo.KMessage = string(r.Status), r.Message
	}
	bo.Conditions = unhealthyConditions(u, bo.KMessage)
	bo.Command = d.Target.Command(objectArgs("describe", ref.QualifiedResource(), ref.Namespace, ref.Name)...)
	if u.GetDeletionTimestamp() == nil {
		return bo, nil
	}
	bo.Command = d.Target.Plugin("why-terminating", objectArgs("", ref.QualifiedResource(), ref.Namespace, ref.Name)...)
	if exp := known[ref.String()]; exp != nil {
		bo.Terminating = exp
		return bo, nil
	}
	if d.Explainer == nil {
		return bo, nil
	}
	exp, err := d.Explainer.Explain(ctx, res, item.Namespace, item.Name)
	if err != nil {
		bo.Note = "could not explain why it is Terminating: " + err.Error()
		return bo, []report.Gap{explainGap(ref.ID(), "explaining "+ref.String(), err)}
	}
	bo.Terminating = exp
	return bo, nil
}

// resolve finds the resource of a Kind the message named: the group recorded in the
// Kustomization's inventory first, then every group serving that kind — refusing to guess
// when more than one does.
func (d *Drill) resolve(item ObjectItem, inv map[string]string) (kinds.Resource, string) {
	if d.Catalog == nil {
		return kinds.Resource{}, "API discovery unavailable"
	}
	if group, ok := inv[item.Kind+"/"+item.Namespace+"/"+item.Name]; ok {
		if r, err := d.Catalog.ResolveGroupKind(schema.GroupKind{Group: group, Kind: item.Kind}); err == nil {
			return r, ""
		}
	}
	cands := d.Catalog.ForKind(item.Kind)
	switch len(cands) {
	case 1:
		return cands[0], ""
	case 0:
		return kinds.Resource{}, fmt.Sprintf("the server serves no kind %q", item.Kind)
	}
	names := make([]string, len(cands))
	for i, c := range cands {
		names[i] = c.QualifiedName()
	}
	return kinds.Resource{}, fmt.Sprintf("kind %q is served by %s; not guessing which one is meant", item.Kind, strings.Join(names, ", "))
}

// inventories maps each Kustomization id to its applied objects, Kind/ns/name -> group; an
// entry that names no object is a gap, not skipped in silence.
func inventories(objs *Objects) (map[string]map[string]string, []report.Gap) {
	out := map[string]map[string]string{}
	var gaps []report.Gap
	for i := range objs.Kustomizations {
		ks := &objs.Kustomizations[i]
		if ks.Status.Inventory == nil {
			continue
		}
		m := map[string]string{}
		for _, e := range ks.Status.Inventory.Entries {
			om, err := object.ParseObjMetadata(e.ID)
			if err != nil {
				gaps = append(gaps, report.Gap{Op: report.OpDecode, Subject: gvrID(KustomizationGVR, ks.Namespace, ks.Name), Reason: report.GapDecodeError,
					What: "inventory of " + kustomizationRef(ks.Namespace+"/"+ks.Name), Error: err.Error()})
				continue
			}
			m[om.GroupKind.Kind+"/"+om.Namespace+"/"+om.Name] = om.GroupKind.Group
		}
		out[ks.Namespace+"/"+ks.Name] = m
	}
	return out, gaps
}

// objectArgs are the words that name one object to kubectl after verb ("" for none):
// `describe TYPE/NAME [-n NAMESPACE]`; the command builder quotes them.
func objectArgs(verb, resource, namespace, name string) []string {
	var args []string
	if verb != "" {
		args = append(args, verb)
	}
	args = append(args, resource+"/"+name)
	if namespace != "" {
		args = append(args, "-n", namespace)
	}
	return args
}

// NewDrill returns a Drill over c for chain. API discovery (and the explainer it feeds) runs
// only when a root cause names objects or a Flux object is being deleted, so a chain without
// either costs no discovery; a discovery that fails is returned as a gap and the drill reads
// without it.
func NewDrill(c *cluster.Clients, chain *Chain) (*Drill, []report.Gap) {
	d := &Drill{Dynamic: c.Dynamic, Target: c.Target}
	if !needsDiscovery(chain) {
		return d, nil
	}
	catalog, err := kinds.Discover(c.Discovery)
	if err != nil {
		return d, []report.Gap{cluster.Gap(report.OpDiscover, report.ObjectID{}, "API discovery", err)}
	}
	d.Catalog, d.Explainer = catalog, finalizers.New(c, catalog)
	return d, nil
}

// needsDiscovery reports whether the drill will resolve kinds: a root cause names objects, or
// a Kustomization or HelmRelease is Terminating.
func needsDiscovery(chain *Chain) bool {
	for _, rc := range chain.RootCauses {
		if len(rc.Failure.Objects) > 0 {
			return true
		}
	}
	for _, n := range chain.Kustomizations {
		if n.Deleting || slices.ContainsFunc(n.HelmReleases, func(hr HelmRelease) bool { return hr.Deleting }) {
			return true
		}
	}
	return false
}

// unhealthyConditions are the conditions of u that say why it is not healthy: every False
// condition and every True one of a type that reports trouble (Stalled, Failed, Degraded,
// ReplicaFailure), except one whose message kstatus already reported.
func unhealthyConditions(u *unstructured.Unstructured, reported string) []ObjectCondition {
	list, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	var out []ObjectCondition
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		str := func(k string) string { s, _ := m[k].(string); return s }
		c := ObjectCondition{Type: str("type"), Condition: Condition{Status: str("status"), Reason: str("reason"), Message: str("message")}}
		bad := c.Status == string(metav1.ConditionFalse) || (c.Status == string(metav1.ConditionTrue) && troubleConditions[c.Type])
		if bad && c.Message != reported {
			out = append(out, c)
		}
	}
	return out
}

// troubleConditions are the condition types whose True status reports a problem.
var troubleConditions = map[string]bool{"Stalled": true, "Failed": true, "Degraded": true, "ReplicaFailure": true}
