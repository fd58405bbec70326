package finalizers

import (
	"context"
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/cluster"
)

// maxNamesShown bounds the object names listed per remaining type.
const maxNamesShown = 5

var apiServiceGVR = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}

// namespaceFinalizers explains the namespace's spec finalizer `kubernetes`, which the namespace
// controller removes after it has deleted every object in the namespace. The status conditions
// are reported as the controller wrote them and then verified with a live sweep of the content.
func (x *Explainer) namespaceFinalizers(ctx context.Context, o subject, e *Explanation) []Finalizer {
	ns, err := x.c.Kube.CoreV1().Namespaces().Get(ctx, o.obj.GetName(), metav1.GetOptions{})
	f := Finalizer{
		Name:      "kubernetes",
		RemovedBy: "kube-controller-manager (namespace controller)",
		WaitsFor:  "every object in the namespace is deleted, and every API group can be discovered",
	}
	if err != nil {
		f.Incomplete = append(f.Incomplete, x.readFailure("reading namespace "+o.obj.GetName(), err))
		return []Finalizer{f}
	}
	for _, c := range ns.Status.Conditions {
		e.Conditions = append(e.Conditions, Condition{Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message})
	}
	if len(ns.Spec.Finalizers) == 0 {
		return nil
	}
	scan := x.scan(ctx, ns.Name)
	for _, fail := range scan.Failed {
		f.Incomplete = append(f.Incomplete, fmt.Sprintf("listing %s in the namespace: %s", fail.Resource, fail.Reason))
	}
	f.Blockers = append(f.Blockers, x.unavailableAPIServices(ctx, &f)...)
	stuck := 0
	for _, t := range scan.Types {
		if len(t.Items) == 0 {
			continue
		}
		f.Blockers = append(f.Blockers, contentBlocker(t))
		for i := range t.Items {
			item := &t.Items[i]
			if len(item.Finalizers) == 0 || o.depth >= maxDepth {
				continue
			}
			stuck++
			b := Blocker{Object: refFor(t.Resource, item.Namespace, item.Name), Reason: "remains, held by finalizers " + strings.Join(item.Finalizers, ", "), GitOps: gitOpsOwner(item.Labels)}
			if item.DeletionTimestamp != nil {
				b.Terminating = x.explain(ctx, t.Resource, item, o.depth+1)
			}
			f.Blockers = append(f.Blockers, b)
		}
	}
	f.Remedies = x.namespaceRemedies(ns.Name, f, stuck)
	return []Finalizer{f}
}

// contentBlocker summarises the remaining objects of one type.
func contentBlocker(t TypeObjects) Blocker {
	names := make([]string, 0, len(t.Items))
	for _, it := range t.Items {
		names = append(names, it.Name)
	}
	sort.Strings(names)
	shown := names
	if len(shown) > maxNamesShown {
		shown = shown[:maxNamesShown]
	}
	detail := strings.Join(shown, ", ")
	if len(names) > len(shown) {
		detail += fmt.Sprintf(" and %d more", len(names)-len(shown))
	}
	ref := ObjectRef{Group: t.Resource.Group, Version: t.Resource.Version, Resource: t.Resource.Resource, Kind: t.Resource.Kind, Namespace: t.Items[0].Namespace}
	return Blocker{Object: ref, Count: len(t.Items), Reason: fmt.Sprintf("%d remaining", len(t.Items)), Details: []string{detail}}
}

// unavailableAPIServices returns a blocker for every APIService that is not Available: the
// namespace controller cannot delete content of a group it cannot discover.
func (x *Explainer) unavailableAPIServices(ctx context.Context, f *Finalizer) []Blocker {
	list, err := x.c.Dynamic.Resource(apiServiceGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		f.Incomplete = append(f.Incomplete, x.readFailure("listing apiservices.apiregistration.k8s.io", err))
		return nil
	}
	var out []Blocker
	for _, item := range list.Items {
		conds, _, _ := unstructuredConditions(item.Object)
		for _, c := range conds {
			if c.Type != "Available" || c.Status == "True" {
				continue
			}
			out = append(out, Blocker{
				Object:  ObjectRef{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices", Kind: "APIService", Name: item.GetName()},
				Reason:  "is unavailable, so the namespace controller cannot discover and delete that group's objects",
				Details: []string{c.Reason + ": " + c.Message},
			})
		}
	}
	return out
}

func (x *Explainer) namespaceRemedies(ns string, f Finalizer, stuck int) []Remediation {
	var out []Remediation
	for _, b := range f.Blockers {
		if b.Object.Resource == "apiservices" {
			out = append(out, Remediation{
				Summary: fmt.Sprintf("Restore the backend of APIService %s (its Service and pods), or delete the APIService if that API was removed for good.", b.Object.Name),
				Command: x.kubectl("", "delete", "apiservices.apiregistration.k8s.io", b.Object.Name),
				Cost:    "deleting it makes that API's objects unreachable until it is registered again",
			})
		}
	}
	if stuck > 0 {
		out = append(out, Remediation{Summary: fmt.Sprintf("%d remaining object(s) carry finalizers: clear each one's blocker (explained below); the namespace controller then finishes.", stuck)})
	}
	if len(out) == 0 && len(f.Blockers) > 0 {
		out = append(out, Remediation{Summary: "The namespace controller is still deleting the remaining objects; it needs no help unless the count stops falling."})
	}
	out = append(out, Remediation{
		Summary: "Only if the blockers above can never be cleared: remove the namespace finalizer through the finalize subresource.",
		Command: x.kubectl("", "get", "namespace", ns, "-o", "json") + " | " + cluster.Quote("jq", ".spec.finalizers=[]") + " | " +
			x.kubectl("", "replace", "--raw", "/api/v1/namespaces/"+ns+"/finalize", "-f", "-"),
		Cost:       "every object still in the namespace stays in etcd without a namespace, and reappears if a namespace of that name is created again",
		LastResort: true,
	})
	return out
}
