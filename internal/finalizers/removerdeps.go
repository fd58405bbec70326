package finalizers

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// maxRemoverDeps bounds the in-cluster Services followed from one remover's configuration.
const maxRemoverDeps = 8

// serviceHostRe matches an in-cluster Service's DNS name, `<service>.<namespace>.svc`.
var serviceHostRe = regexp.MustCompile(`\b([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)\.([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)\.svc\b`)

// configValue is one string of a remover's configuration, with where it comes from.
type configValue struct{ source, value string }

// removerDependencies follows the in-cluster Services a running remover's own configuration
// names (`<service>.<namespace>.svc` in its containers' command, args and env, and in the
// ConfigMaps its env reads) to the workloads behind them. A Service that does not exist, or
// whose workloads all have no ready replica, is something the remover works through and cannot
// reach: whatever it has to do through it (deprovision, deregister, delete) never completes, so
// it is the likeliest reason the remover stalls, and bringing it back comes before any strip.
// Services whose pods the remover itself runs, and Services with no workload behind them
// (endpoints kept by hand), are no evidence. Secrets are never read; a read that fails is a gap.
func (x *Explainer) removerDependencies(ctx context.Context, c Controller) (evidence, reasons []string, fixes []Remediation, gaps []report.Gap) {
	values, gap := x.removerConfig(ctx, c.Object)
	if gap != (report.Gap{}) {
		return nil, nil, nil, []report.Gap{gap}
	}
	seen := map[serviceRef]string{}
	var order []serviceRef
	for _, v := range values {
		for _, m := range serviceHostRe.FindAllStringSubmatch(v.value, -1) {
			s := serviceRef{namespace: m[3], name: m[1]}
			if _, ok := seen[s]; !ok && len(order) < maxRemoverDeps {
				seen[s] = v.source
				order = append(order, s)
			}
		}
	}
	for _, s := range order {
		ws, exists, err := x.backendWorkloads(ctx, s)
		if err != nil {
			gaps = append(gaps, getGap(objectID("", "v1", "services", s.namespace, s.name), "following "+s.String()+", which the remover's configuration names", err))
			continue
		}
		where := fmt.Sprintf("%s's configuration (%s) names %s", c.Object.String(), seen[s], s.String())
		if !exists {
			evidence = append(evidence, where+", which does not exist")
			reasons = append(reasons, fmt.Sprintf("it works through %s, which does not exist: what it has to do through it for this object never completes", s.String()))
			fixes = append(fixes, Remediation{Code: ReasonRestoreMissingObject,
				Summary: fmt.Sprintf("Restore %s and what serves it (%s names it in its configuration, %s; it was part of the product's install): %s then finishes the cleanup itself.", s.String(), c.Object.String(), seen[s], c.Object.String())})
			continue
		}
		down := downBackends(ws, c.Object)
		if len(down) == 0 {
			continue
		}
		for _, w := range down {
			wc := w.controller()
			evidence = append(evidence, fmt.Sprintf("%s, whose pods %s runs with %s ready replicas", where, w.ref.String(), wc.Ready))
			reasons = append(reasons, fmt.Sprintf("it works through %s, which cannot answer (%s has no ready replica): what it has to do through it for this object never completes", s.String(), w.ref.String()))
			r := Remediation{Code: ReasonRestoreController,
				Summary: fmt.Sprintf("Bring %s back: it runs the pods behind %s, which %s works through (%s) and has %s ready replicas; once it answers, %s finishes the cleanup and removes the finalizer itself.", w.ref.String(), s.String(), c.Object.String(), seen[s], wc.Ready, c.Object.String()),
				Command: x.kubectl(w.ref.Namespace, "describe", w.ref.QualifiedResource(), w.ref.Name)}
			if wc.ScaledToZero && w.ref.Resource != "daemonsets" {
				r.Code = ReasonScaleUpController
				r.Summary = fmt.Sprintf("Scale %s up: it runs the pods behind %s, which %s works through (%s), and is scaled to 0 (use the replica count it normally runs with); once it answers, %s finishes the cleanup itself.", w.ref.String(), s.String(), c.Object.String(), seen[s], c.Object.String())
				r.Command = x.kubectl(w.ref.Namespace, "scale", w.ref.QualifiedResource(), w.ref.Name, "--replicas=1")
				scaled := kinds.Resource{Group: w.ref.Group, Version: w.ref.Version, Resource: w.ref.Resource, Kind: w.ref.Kind, Namespaced: true}
				r.request = &apiRequest{op: admissionv1.Update, res: scaled, subresource: "scale", namespace: w.ref.Namespace, labels: w.labels, labelsKnown: true}
			}
			fixes = append(fixes, r)
		}
	}
	return evidence, reasons, fixes, gaps
}

// downBackends are the workloads behind a Service when none of them is running and the remover
// is not one of them; nil when one runs (the Service answers) or the remover serves it.
func downBackends(ws []workload, remover ObjectRef) []workload {
	var down []workload
	for _, w := range ws {
		if w.ref == remover {
			return nil
		}
		if w.controller().Healthy {
			return nil
		}
		down = append(down, w)
	}
	return down
}

// removerConfig reads the strings of a remover workload's pod template that may name a Service:
// every container's command, args and env values, and the values of the ConfigMaps its env
// reads (envFrom, or one key). Secrets are never read.
func (x *Explainer) removerConfig(ctx context.Context, ref ObjectRef) ([]configValue, report.Gap) {
	tpl, err := cached(x, "podtemplate/"+ref.String(), func() (*corev1.PodTemplateSpec, error) {
		return x.podTemplate(ctx, ref)
	})
	if err != nil {
		return nil, getGap(ref.ID(), "reading "+ref.String()+"'s pod template for the Services it works through", err)
	}
	if tpl == nil {
		return nil, report.Gap{}
	}
	var out []configValue
	for _, ct := range append(append([]corev1.Container(nil), tpl.Spec.InitContainers...), tpl.Spec.Containers...) {
		for _, s := range append(append([]string(nil), ct.Command...), ct.Args...) {
			out = append(out, configValue{"container " + ct.Name + " args", s})
		}
		for _, e := range ct.Env {
			switch {
			case e.Value != "":
				out = append(out, configValue{"env " + e.Name + " of container " + ct.Name, e.Value})
			case e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil:
				k := e.ValueFrom.ConfigMapKeyRef
				data, gap := x.configMapData(ctx, ref.Namespace, k.Name)
				if gap != (report.Gap{}) {
					return nil, gap
				}
				out = append(out, configValue{fmt.Sprintf("env %s of container %s, from configmaps/%s", e.Name, ct.Name, k.Name), data[k.Key]})
			}
		}
		for _, from := range ct.EnvFrom {
			if from.ConfigMapRef == nil {
				continue
			}
			data, gap := x.configMapData(ctx, ref.Namespace, from.ConfigMapRef.Name)
			if gap != (report.Gap{}) {
				return nil, gap
			}
			keys := slices.Sorted(maps.Keys(data))
			for _, k := range keys {
				out = append(out, configValue{fmt.Sprintf("env %s%s of container %s, from configmaps/%s", from.Prefix, k, ct.Name, from.ConfigMapRef.Name), data[k]})
			}
		}
	}
	return out, report.Gap{}
}

// podTemplate reads the pod template of a Deployment, StatefulSet or DaemonSet; nil for other
// kinds of remover.
func (x *Explainer) podTemplate(ctx context.Context, ref ObjectRef) (*corev1.PodTemplateSpec, error) {
	apps := x.c.Kube.AppsV1()
	switch {
	case ref.Group != "apps":
		return nil, nil
	case ref.Resource == "deployments":
		d, err := apps.Deployments(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return &d.Spec.Template, nil
	case ref.Resource == "statefulsets":
		s, err := apps.StatefulSets(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return &s.Spec.Template, nil
	case ref.Resource == "daemonsets":
		d, err := apps.DaemonSets(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return &d.Spec.Template, nil
	}
	return nil, nil
}

// configMapData reads one ConfigMap a remover's env names; a ConfigMap that does not exist has
// no values (the workload would not start without it unless it is optional).
func (x *Explainer) configMapData(ctx context.Context, namespace, name string) (map[string]string, report.Gap) {
	cm, err := cached(x, "configmap/"+namespace+"/"+name, func() (*corev1.ConfigMap, error) {
		return x.c.Kube.CoreV1().ConfigMaps(namespace).Get(ctx, name, metav1.GetOptions{})
	})
	if apierrors.IsNotFound(err) {
		return nil, report.Gap{}
	}
	if err != nil {
		return nil, getGap(objectID("", "v1", "configmaps", namespace, name), "reading configmaps/"+name+" -n "+namespace+", which a remover's env reads", err)
	}
	return cm.Data, report.Gap{}
}

// withDependencies puts what the remover's unreachable dependencies call for first: the steps
// that bring them back before the logs and the strip, their evidence and reasons first.
func withDependencies(f *Finalizer, s *Stall, evidence, reasons []string, fixes []Remediation) {
	if len(fixes) == 0 {
		return
	}
	withFailedCleanup(f, s, evidence, reasons, fixes)
	for i := range f.Remedies {
		if f.Remedies[i].Code == ReasonStripFinalizer {
			f.Remedies[i].Summary = "Only if what it works through is gone for good, and " + strings.TrimPrefix(f.Remedies[i].Summary, "Then, ")
			f.Remedies[i].LastResort = true
		}
	}
}
