package finalizers

import (
	"context"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// knownOrCustom explains a finalizer removed by a controller outside the core: a known one gets
// specific text, any other `domain/name` is attributed by searching for a workload whose name or
// labels match the domain. An absent or unready controller is the blocker.
func (x *Explainer) knownOrCustom(ctx context.Context, o subject, name string) Finalizer {
	k, isKnown := lookupKnown(name, o.res.Kind)
	domain, stem := domainOf(name)
	if !isKnown {
		k = known{
			removedBy: fmt.Sprintf("the controller of %s (a custom finalizer)", domain),
			waitsFor:  "that controller finishes its cleanup for this object",
			lost:      "whatever the controller would have cleaned up outside the cluster",
		}
	}
	f := Finalizer{Name: name, RemovedBy: k.removedBy, WaitsFor: k.waitsFor}
	if len(k.controllers) == 0 && isKnown {
		return x.coreControllerFinalizer(o, f)
	}
	hints := append(append([]string(nil), k.controllers...), stem)
	ctrl, gaps := x.findController(ctx, hints)
	f.Incomplete = append(f.Incomplete, gaps...)
	f.Controller = ctrl
	f.Remedies = x.controllerRemedies(o, f, k)
	return f
}

// coreControllerFinalizer covers known finalizers removed by kube-controller-manager itself.
func (x *Explainer) coreControllerFinalizer(o subject, f Finalizer) Finalizer {
	f.Remedies = []Remediation{{Summary: f.RemovedBy + " removes it on its own; if it stays for long, check that kube-controller-manager is running."}}
	return f
}

// workload is a controller candidate with its readiness.
type workload struct {
	ref           ObjectRef
	labels        map[string]string
	ready, wanted int32
}

// workloads lists Deployments, StatefulSets and DaemonSets in every namespace, once.
func (x *Explainer) workloads(ctx context.Context) ([]workload, error) {
	return cached(x, "workloads", func() ([]workload, error) {
		var out []workload
		apps := x.c.Kube.AppsV1()
		deps, err := apps.Deployments("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for _, d := range deps.Items {
			out = append(out, newWorkload("deployments", "Deployment", d.ObjectMeta, d.Status.ReadyReplicas, replicas(d.Spec.Replicas)))
		}
		sts, err := apps.StatefulSets("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for _, s := range sts.Items {
			out = append(out, newWorkload("statefulsets", "StatefulSet", s.ObjectMeta, s.Status.ReadyReplicas, replicas(s.Spec.Replicas)))
		}
		dss, err := apps.DaemonSets("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for _, d := range dss.Items {
			out = append(out, newWorkload("daemonsets", "DaemonSet", d.ObjectMeta, d.Status.NumberReady, d.Status.DesiredNumberScheduled))
		}
		return out, nil
	})
}

func newWorkload(resource, kind string, m metav1.ObjectMeta, ready, wanted int32) workload {
	return workload{
		ref:    ObjectRef{Group: appsv1.GroupName, Version: "v1", Resource: resource, Kind: kind, Namespace: m.Namespace, Name: m.Name},
		labels: m.Labels, ready: ready, wanted: wanted,
	}
}

func replicas(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}

// findController returns the best-matching workload for the name hints: an exact name first,
// then a name, namespace or app label containing a hint. Absent means Found false.
func (x *Explainer) findController(ctx context.Context, hints []string) (*Controller, []string) {
	ws, err := x.workloads(ctx)
	if err != nil {
		return nil, []string{x.readFailure("listing workloads to find the controller", err)}
	}
	best, score := workload{}, 0
	for _, w := range ws {
		if s := matchScore(w, hints); s > score || (s == score && s > 0 && w.ref.String() < best.ref.String()) {
			best, score = w, s
		}
	}
	if score == 0 {
		return &Controller{Found: false, Note: "no Deployment, StatefulSet or DaemonSet named like " + quote(hints) + " exists in any namespace"}, nil
	}
	c := &Controller{Object: best.ref, Found: true, Ready: fmt.Sprintf("%d/%d", best.ready, best.wanted), Healthy: best.ready > 0}
	if !c.Healthy {
		c.Note = "it has no ready replica, so nothing removes the finalizer"
	}
	return c, nil
}

func matchScore(w workload, hints []string) int {
	score := 0
	for _, h := range hints {
		if h == "" {
			continue
		}
		switch {
		case w.ref.Name == h:
			score = max(score, 3)
		case strings.Contains(w.ref.Name, h), w.labels["app.kubernetes.io/name"] == h, w.labels["app"] == h:
			score = max(score, 2)
		case w.ref.Namespace == h, w.labels["app.kubernetes.io/part-of"] == h:
			score = max(score, 1)
		}
	}
	return score
}

// controllerRemedies: get the controller running; strip the finalizer only when it is gone for good.
func (x *Explainer) controllerRemedies(o subject, f Finalizer, k known) []Remediation {
	ref := o.ref()
	strip := Remediation{
		Summary:    fmt.Sprintf("Only if the controller is gone for good: remove finalizer %s by hand.", f.Name),
		Command:    x.kubectl(ref.Namespace, "patch", ref.QualifiedResource(), ref.Name, "--type=json", "-p", stripPatch(o.obj.GetFinalizers(), f.Name)),
		Cost:       "left behind: " + k.lost,
		LastResort: true,
	}
	c := f.Controller
	switch {
	case c == nil:
		return []Remediation{strip}
	case !c.Found:
		return []Remediation{{Summary: "Reinstall the controller (" + k.removedBy + "); it then removes the finalizer itself."}, strip}
	case !c.Healthy:
		return []Remediation{{
			Summary: fmt.Sprintf("Bring %s back to ready replicas (it has %s); it then removes the finalizer itself.", c.Object.String(), c.Ready),
			Command: x.kubectl(c.Object.Namespace, "describe", c.Object.QualifiedResource(), c.Object.Name),
		}, strip}
	}
	return []Remediation{{
		Summary: fmt.Sprintf("The controller %s is running (%s ready): read its logs for why it does not finish.", c.Object.String(), c.Ready),
		Command: x.kubectl(c.Object.Namespace, "logs", c.Object.QualifiedResource()+"/"+c.Object.Name, "--tail=100"),
	}}
}

// stripPatch is a JSON patch that removes exactly one finalizer: the test operation makes the
// API server refuse it if the list changed since it was read, so no other finalizer goes.
func stripPatch(finalizers []string, name string) string {
	i := slices.Index(finalizers, name)
	return fmt.Sprintf(`[{"op":"test","path":"/metadata/finalizers/%d","value":%q},{"op":"remove","path":"/metadata/finalizers/%d"}]`, i, name, i)
}
