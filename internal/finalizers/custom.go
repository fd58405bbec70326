package finalizers

import (
	"context"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/report"
	workloadhealth "github.com/kubeforensics/suite/internal/workload"
)

// knownOrCustom explains a finalizer removed by a controller outside the core, the registry's
// explainer for every finalizer without one of its own. Who may remove it comes from evidence
// (see attribute): an operator's own custom resources where they name the component, else RBAC
// and the workloads running as the service accounts it allows; the registry's facts add what the
// controller waits for and what stripping the finalizer loses.
func (x *Explainer) knownOrCustom(ctx context.Context, o subject, name string) Finalizer {
	k, isKnown := lookupKnown(name, o.res.Kind)
	_, stem := domainOf(name)
	hints := []string{stem}
	switch {
	case isKnown:
	case noDomain(name):
		k = known{
			removedBy: "whichever controller added it: a finalizer without a domain does not name its owner, so the workloads that may update the object are weighed by what ties them to its type (their roles naming it, webhooks of its API group, product labels of its CustomResourceDefinition, names)",
			waitsFor:  "that controller finishes its cleanup for this object",
			lost:      "whatever that controller would have cleaned up",
		}
		hints = nil
	case namedForObject(name, o.obj.GetName()):
		k, hints = objectNamedKnown(name), nil
	case finalizerDomain(name) == "":
		// A prefix without a dot (`chaos-mesh/records`), or a name alone whose dots write no DNS
		// subdomain (`Some_Finalizer.cleanup`), names no domain to tie a workload to.
		k = known{
			removedBy: fmt.Sprintf("whichever controller added it: %s, so only RBAC (and the workloads' names) can say who may remove it", writesNoDomain(name)),
			waitsFor:  "that controller finishes its cleanup for this object",
			lost:      "whatever the controller would have cleaned up outside the cluster",
		}
	default:
		k = known{
			removedBy: fmt.Sprintf("the controller of the finalizer's domain %s: a workload that may update %s and that the cluster ties to %s", finalizerDomain(name), o.ref().QualifiedResource(), finalizerDomain(name)),
			waitsFor:  "that controller finishes its cleanup for this object",
			lost:      "whatever the controller would have cleaned up outside the cluster",
		}
	}
	f := Finalizer{Name: name, RemovedBy: k.removedBy, WaitsFor: k.waitsFor}
	hints = append(append([]string(nil), k.controllers...), hints...)
	a, gaps, ok := x.operatorEvidence(ctx, o, name)
	if !ok {
		a, gaps = x.attribute(ctx, o, hints)
		var more []report.Gap
		a, more = x.judgeDomain(ctx, o, name, k.controllers, hints, a)
		gaps = append(gaps, more...)
	}
	f.Incomplete = append(f.Incomplete, gaps...)
	f.Controllers, f.Attribution, f.Domain, f.Unrelated = a.controllers, a.summary, a.domain, a.unrelated
	typeEv, owner, gone := x.typeEvidence(ctx, o.res)
	f.TypeEvidence = typeEv
	// A type whose installer is gone waits for that installer, not for a hand edit.
	f.Orphaned = a.orphan && !gone
	f.Remedies = x.controllerRemedies(o, f, k, a, owner)
	x.applyDeselected(ctx, o, &f, k)
	x.applyStaleSibling(ctx, o, &f, k)
	x.applyRenamed(ctx, o, &f, k)
	x.applyRenamedAbsent(ctx, o, &f, k, a)
	x.reinstallRefused(ctx, &f)
	x.reinstallRefusedUnknown(ctx, o.obj.GetNamespace(), &f)
	x.reinstallIntoGoingType(ctx, o.res, &f)
	x.leftNamespaceRBAC(ctx, o.obj.GetNamespace(), &f)
	if !a.unread && !a.guessed {
		// Kept for a verdict decided once the object's own word is read (a stalled remover).
		strip := x.stripStep(o, name, k)
		f.bypass = &strip
	}
	return f
}

// coreControllerFinalizer covers known finalizers removed by kube-controller-manager itself.
func (x *Explainer) coreControllerFinalizer(o subject, f Finalizer) Finalizer {
	f.Remedies = []Remediation{{Summary: f.RemovedBy + " removes it on its own; if it stays for long, check that kube-controller-manager is running."}}
	return f
}

// workload is a controller candidate with its readiness and the service account its pods run as.
type workload struct {
	ref            ObjectRef
	labels         map[string]string
	annotations    map[string]string
	serviceAccount string
	health         workloadhealth.Health
	// podLabels are the labels of the pods it runs (its pod template's), which a Service's
	// selector matches.
	podLabels map[string]string
	// images are its containers' images, part of the evidence that ties it to a product.
	images []string
	// processes are its containers' names and the base names of their commands: what its
	// clients call themselves to the API server (finalizeradder.go).
	processes []string
	// owners are its ownerReferences: an operator that installed it (installer.go).
	owners []metav1.OwnerReference
	// args are its containers' commands and arguments, which may name the kinds it manages
	// (argsnamekind.go); env values and Secrets are never read for this.
	args []string
}

// workloads lists Deployments, StatefulSets and DaemonSets in every namespace, once.
func (x *Explainer) workloads(ctx context.Context) ([]workload, error) {
	return cached(x, "workloads", func() ([]workload, error) {
		var out []workload
		deps, err := x.clusterDeployments(ctx)
		if err != nil {
			return nil, err
		}
		for _, d := range deps {
			if out, err = appendWorkload(out, "deployments", "Deployment", d.ObjectMeta, d.Spec.Template.Spec.ServiceAccountName, &d); err != nil {
				return nil, err
			}
		}
		sts, err := x.clusterStatefulSets(ctx)
		if err != nil {
			return nil, err
		}
		for _, s := range sts {
			if out, err = appendWorkload(out, "statefulsets", "StatefulSet", s.ObjectMeta, s.Spec.Template.Spec.ServiceAccountName, &s); err != nil {
				return nil, err
			}
		}
		dss, err := x.clusterDaemonSets(ctx)
		if err != nil {
			return nil, err
		}
		for _, d := range dss {
			if out, err = appendWorkload(out, "daemonsets", "DaemonSet", d.ObjectMeta, d.Spec.Template.Spec.ServiceAccountName, &d); err != nil {
				return nil, err
			}
		}
		return out, nil
	})
}

// clusterStatefulSets lists the StatefulSets of every namespace once per command: workloads
// reads them, and a sweep's claim checks cut their namespace out of the same list.
func (x *Explainer) clusterStatefulSets(ctx context.Context) ([]appsv1.StatefulSet, error) {
	return cached(x, "statefulsets-all-namespaces", func() ([]appsv1.StatefulSet, error) {
		l, err := x.c.Kube.AppsV1().StatefulSets("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		return l.Items, nil
	})
}

// clusterDeployments and clusterDaemonSets list those of every namespace once per command:
// workloads reads them, and a sweep takes them for its own LIST of the type.
func (x *Explainer) clusterDeployments(ctx context.Context) ([]appsv1.Deployment, error) {
	return cached(x, "deployments-all-namespaces", func() ([]appsv1.Deployment, error) {
		l, err := x.c.Kube.AppsV1().Deployments("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		return l.Items, nil
	})
}

func (x *Explainer) clusterDaemonSets(ctx context.Context) ([]appsv1.DaemonSet, error) {
	return cached(x, "daemonsets-all-namespaces", func() ([]appsv1.DaemonSet, error) {
		l, err := x.c.Kube.AppsV1().DaemonSets("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		return l.Items, nil
	})
}

// appendWorkload adds a workload with its health as kstatus computes it (a stalled rollout or
// a controller being deleted is not running, whatever its ready count).
func appendWorkload(out []workload, resource, kind string, m metav1.ObjectMeta, sa string, obj runtime.Object) ([]workload, error) {
	h, err := workloadhealth.Of(obj)
	if err != nil {
		return out, err
	}
	if sa == "" {
		sa = "default"
	}
	return append(out, workload{
		ref:    ObjectRef{Group: appsv1.GroupName, Version: "v1", Resource: resource, Kind: kind, Namespace: m.Namespace, Name: m.Name},
		labels: m.Labels, annotations: m.Annotations, serviceAccount: sa, health: h, podLabels: templateLabels(obj), images: templateImages(obj),
		processes: templateProcesses(obj), owners: m.OwnerReferences, args: templateArgs(obj),
	}), nil
}

// templateLabels returns the pod template's labels of a Deployment, StatefulSet or DaemonSet.
func templateLabels(obj runtime.Object) map[string]string {
	switch w := obj.(type) {
	case *appsv1.Deployment:
		return w.Spec.Template.Labels
	case *appsv1.StatefulSet:
		return w.Spec.Template.Labels
	case *appsv1.DaemonSet:
		return w.Spec.Template.Labels
	}
	return nil
}

// templateContainers returns a workload's pod template containers, init containers first; nil
// for anything but a Deployment, StatefulSet or DaemonSet.
func templateContainers(obj runtime.Object) []corev1.Container {
	var spec *corev1.PodSpec
	switch w := obj.(type) {
	case *appsv1.Deployment:
		spec = &w.Spec.Template.Spec
	case *appsv1.StatefulSet:
		spec = &w.Spec.Template.Spec
	case *appsv1.DaemonSet:
		spec = &w.Spec.Template.Spec
	default:
		return nil
	}
	return append(append([]corev1.Container(nil), spec.InitContainers...), spec.Containers...)
}

// templateImages returns the images of a workload's containers, init containers included.
func templateImages(obj runtime.Object) []string {
	var out []string
	for _, c := range templateContainers(obj) {
		out = append(out, c.Image)
	}
	return out
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
		case strings.Contains(w.ref.Namespace, h), w.labels["app.kubernetes.io/part-of"] == h:
			score = max(score, 1)
		}
	}
	return score
}

// stripPatch is a JSON patch that removes exactly one finalizer: the test operation makes the
// API server refuse it if the list changed since it was read, so no other finalizer goes.
func stripPatch(finalizers []string, name string) string {
	i := slices.Index(finalizers, name)
	return fmt.Sprintf(`[{"op":"test","path":"/metadata/finalizers/%d","value":%q},{"op":"remove","path":"/metadata/finalizers/%d"}]`, i, name, i)
}

// writesNoDomain says why a finalizer with a dot or a slash has no domain (finalizerDomain): a
// prefix without a dot, or a name alone whose dots write no DNS subdomain.
func writesNoDomain(name string) string {
	if prefix, _, ok := strings.Cut(name, "/"); ok {
		return "its prefix " + prefix + " is no domain"
	}
	return "its name, without a prefix, writes no domain after its first label"
}
