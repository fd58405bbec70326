package flux

import (
	"context"
	"fmt"
	"strings"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/cli-utils/pkg/object"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/kinds"
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
// on the object and warnings in the returned list; they never hide the root cause itself.
func (d *Drill) Run(ctx context.Context, c *Chain, objs *Objects) []string {
	var warnings []string
	inventory := inventories(objs)
	for i := range c.RootCauses {
		rc := &c.RootCauses[i]
		ksNS, ksName, _ := strings.Cut(rc.Kustomization, "/")
		rc.Commands = append(rc.Commands, d.Target.Command(objectArgs("describe", "kustomizations.kustomize.toolkit.fluxcd.io", ksNS, ksName)...))
		for _, hr := range rc.HelmReleases {
			rc.Commands = append(rc.Commands, d.Target.Command(objectArgs("describe", "helmreleases.helm.toolkit.fluxcd.io", hr.Namespace, hr.Name)...))
		}
		for _, item := range rc.Failure.Objects {
			bo, warn := d.examine(ctx, item, inventory[rc.Kustomization])
			if warn != "" {
				warnings = append(warnings, warn)
			}
			rc.Objects = append(rc.Objects, bo)
		}
	}
	return warnings
}

// examine resolves, reads and, when it is Terminating, explains one named object.
func (d *Drill) examine(ctx context.Context, item ObjectItem, inv map[string]string) (BlockingObject, string) {
	bo := BlockingObject{Item: item}
	res, note := d.resolve(item, inv)
	if note != "" {
		bo.Note = note
		return bo, ""
	}
	ref := finalizers.ObjectRef{Group: res.Group, Version: res.Version, Resource: res.Resource, Kind: res.Kind, Namespace: item.Namespace, Name: item.Name}
	bo.Object = &ref
	u, err := d.Dynamic.Resource(res.GVR()).Namespace(item.Namespace).Get(ctx, item.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		bo.KStatus = string(status.NotFoundStatus)
		bo.Note = "not found on the server now"
		return bo, ""
	case err != nil:
		bo.Note = "could not read it: " + cluster.Reason(err)
		return bo, fmt.Sprintf("reading %s: %s", ref, cluster.Reason(err))
	}
	bo.Found = true
	if r, err := status.Compute(u); err == nil {
		bo.KStatus, bo.KMessage = string(r.Status), r.Message
	}
	bo.Command = d.Target.Command(objectArgs("describe", ref.QualifiedResource(), ref.Namespace, ref.Name)...)
	if u.GetDeletionTimestamp() == nil {
		return bo, ""
	}
	bo.Command = d.Target.Plugin("why-terminating", objectArgs("", ref.QualifiedResource(), ref.Namespace, ref.Name)...)
	if d.Explainer == nil {
		return bo, ""
	}
	exp, err := d.Explainer.Explain(ctx, res, item.Namespace, item.Name)
	if err != nil {
		bo.Note = "could not explain why it is Terminating: " + err.Error()
		return bo, fmt.Sprintf("explaining %s: %v", ref, err)
	}
	bo.Terminating = exp
	return bo, ""
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

// inventories maps each Kustomization id to its applied objects, Kind/ns/name -> group.
func inventories(objs *Objects) map[string]map[string]string {
	out := map[string]map[string]string{}
	for i := range objs.Kustomizations {
		ks := &objs.Kustomizations[i]
		if ks.Status.Inventory == nil {
			continue
		}
		m := map[string]string{}
		for _, e := range ks.Status.Inventory.Entries {
			if om, err := object.ParseObjMetadata(e.ID); err == nil {
				m[om.GroupKind.Kind+"/"+om.Namespace+"/"+om.Name] = om.GroupKind.Group
			}
		}
		out[ks.Namespace+"/"+ks.Name] = m
	}
	return out
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
// only when a root cause names objects, so a chain that names none costs no discovery; a
// discovery that fails is returned as a warning and the drill reads without it.
func NewDrill(c *cluster.Clients, chain *Chain) (*Drill, []string) {
	d := &Drill{Dynamic: c.Dynamic, Target: c.Target}
	for _, rc := range chain.RootCauses {
		if len(rc.Failure.Objects) == 0 {
			continue
		}
		catalog, err := kinds.Discover(c.Discovery)
		if err != nil {
			return d, []string{fmt.Sprintf("API discovery: %s", cluster.Reason(err))}
		}
		d.Catalog, d.Explainer = catalog, finalizers.New(c, catalog)
		break
	}
	return d, nil
}
