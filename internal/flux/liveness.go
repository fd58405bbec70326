package flux

// Controller liveness: a status is only as fresh as the controller writing it. A Flux object
// keeps the last status its controller wrote; when the controller crash-loops, is scaled to zero
// or stopped reconciling, every object still says what it said then (Ready at an old revision).
// The chain finds each controller that reconciles a kind it read by the labels Flux's install
// manifests put on its Deployment (app.kubernetes.io/part-of=flux with
// app.kubernetes.io/component=<controller>, or control-plane=controller with app=<controller>),
// in whichever namespace they are, judges it from the Deployment and its pods, and holds each
// Kustomization's last reconciliation against its interval.

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/report"
)

// The Flux controllers whose objects the chain reads.
const (
	SourceController    = "source-controller"
	KustomizeController = "kustomize-controller"
	HelmController      = "helm-controller"
	// SourceWatcher reconciles ArtifactGenerators into ExternalArtifacts (Flux 2.7+);
	// FluxOperator reconciles ResourceSets and FluxInstances.
	SourceWatcher = "source-watcher"
	FluxOperator  = "flux-operator"
)

// graphControllers maps the kinds of the object graph beyond Kustomizations, HelmReleases and
// the sources to the controller that writes their status.
var graphControllers = map[string]string{
	helmRepositoryKind: SourceController, helmChartKind: SourceController,
	externalArtifactKind: SourceWatcher, artifactGeneratorKind: SourceWatcher,
	resourceSetKind: FluxOperator, fluxInstanceKind: FluxOperator,
}

// controllerSelectors are the label selectors of Flux's controller Deployments: the
// recommended labels of flux install and the Flux Operator, the older control-plane label, and
// the Flux Operator's own Deployment (config/manager/deployment.yaml:
// app.kubernetes.io/name=flux-operator).
var controllerSelectors = []string{"app.kubernetes.io/part-of=flux", "control-plane=controller", "app.kubernetes.io/name=" + FluxOperator}

// deploymentsID is the Deployments, the subject of the gap that leaves liveness unchecked.
var deploymentsID = report.ObjectID{Group: "apps", Version: "v1", Resource: "deployments"}

// staleSlack is the queueing a controller may take beyond an object's interval and its 5%
// interval jitter (fluxcd/pkg runtime/jitter/interval.go:31) before its status is stale.
const staleSlack = 2 * time.Minute

// Liveness is what the chain found of the controllers that write its objects' status.
type Liveness struct {
	// Checked is set when every controller the chain needs was found and judged; Unchecked
	// says why not, as the gap that left it unchecked (Deployments could not be read, a
	// controller was not found).
	Checked   bool         `json:"checked"`
	Unchecked []report.Gap `json:"unchecked,omitempty"`
	// Controllers are the controllers the chain's kinds need, found or not.
	Controllers []Controller `json:"controllers"`
	// Stale are the objects whose status is older than their controller can explain.
	Stale []StaleStatus `json:"stale,omitempty"`
}

// Controller is one Flux controller the chain depends on, as its Deployment and pods are now.
type Controller struct {
	Name string `json:"name"`
	// Kinds are the kinds of the chain it reconciles.
	Kinds []string `json:"kinds"`
	// Deployments are the Deployments found for it (namespace/name): more than one when it is
	// sharded.
	Deployments []string `json:"deployments,omitempty"`
	Found       bool     `json:"found"`
	// Up is set when a Deployment of it has an available replica whose pod is ready; Down says
	// why not.
	Up   bool   `json:"up"`
	Down string `json:"down,omitempty"`
	// Restarts counts its pods' container restarts; LastTermination is the last one's reason
	// (OOMKilled, Error), exit code and time; Waiting why a container is not running
	// (CrashLoopBackOff).
	Restarts        int32  `json:"restarts"`
	LastTermination string `json:"lastTermination,omitempty"`
	Waiting         string `json:"waiting,omitempty"`
	// Note says what could not be read of it (its pods).
	Note string `json:"note,omitempty"`
}

// StaleStatus is an object whose status its controller has not refreshed for longer than its
// interval explains.
type StaleStatus struct {
	Object     string `json:"object"`
	Controller string `json:"controller"`
	// LastReconciled is when its controller last finished reconciling it (RFC 3339), Age how
	// long ago that is, Interval its spec.interval.
	LastReconciled string `json:"lastReconciled"`
	Age            string `json:"age"`
	Interval       string `json:"interval"`
}

// IsStale reports whether a controller the chain needs is down or a status is stale: the
// chain's status cannot be trusted.
func (l *Liveness) IsStale() bool {
	if l == nil {
		return false
	}
	for _, c := range l.Controllers {
		if c.Found && !c.Up {
			return true
		}
	}
	return len(l.Stale) > 0
}

// Verified reports whether every controller the chain needs was found and judged.
func (l *Liveness) Verified() bool { return l != nil && l.Checked }

// kindsByController maps each controller to the kinds of c and objs it reconciles.
func kindsByController(c *Chain, objs *Objects) map[string][]string {
	out := map[string][]string{}
	add := func(ctrl, kind string) {
		if !slices.Contains(out[ctrl], kind) {
			out[ctrl] = append(out[ctrl], kind)
		}
	}
	if len(c.Kustomizations) > 0 {
		add(KustomizeController, "Kustomization")
	}
	for _, n := range c.Kustomizations {
		if n.Source.Found {
			add(SourceController, n.Source.Kind)
		}
	}
	if len(objs.HelmReleases) > 0 {
		add(HelmController, helmReleaseKind)
		add(SourceController, "HelmChart")
	}
	for _, o := range objs.graph {
		// every object of the graph read has its controller: source-controller for each source
		// (a HelmRelease's chart and its repository, an OCIRepository a chartRef names),
		// source-watcher for generated artifacts, the Flux Operator for its objects
		if _, src := SourceGVRs[o.kind]; src {
			add(SourceController, o.kind)
		} else if ctrl, ok := graphControllers[o.kind]; ok {
			add(ctrl, o.kind)
		}
	}
	for _, kinds := range out {
		slices.Sort(kinds)
	}
	return out
}

// CheckLiveness finds and judges the controllers of the kinds in c, and the Kustomizations
// whose status is older than their interval explains, at now. A read that fails leaves
// liveness unchecked, saying why.
func CheckLiveness(ctx context.Context, kube kubernetes.Interface, c *Chain, objs *Objects, now time.Time) *Liveness {
	l := &Liveness{Controllers: []Controller{}}
	need := kindsByController(c, objs)
	if len(need) == 0 {
		l.Checked = true
		return l
	}
	deps, err := controllerDeployments(ctx, kube)
	if err != nil {
		l.Unchecked = []report.Gap{{Op: report.OpList, Subject: deploymentsID, Reason: cluster.GapReason(err),
			What: "listing the Flux controllers' Deployments failed", Error: err.Error()}}
	}
	var missing []string
	for _, name := range slices.Sorted(maps.Keys(need)) {
		ctrl := Controller{Name: name, Kinds: need[name]}
		if err == nil {
			judge(ctx, kube, &ctrl, deps[name])
		}
		if err == nil && !ctrl.Found {
			missing = append(missing, name)
		}
		l.Controllers = append(l.Controllers, ctrl)
	}
	if len(missing) > 0 {
		l.Unchecked = []report.Gap{{Op: report.OpCheck, Subject: deploymentsID, Reason: report.GapNotFound,
			What: fmt.Sprintf("no Deployment of %s found in any namespace by Flux's labels (%s)", joinList(missing), strings.Join(controllerSelectors, " or "))}}
	}
	l.Checked = len(l.Unchecked) == 0
	if i := slices.IndexFunc(l.Controllers, func(c Controller) bool { return c.Name == KustomizeController }); i >= 0 && l.Controllers[i].Found {
		// Ages are judged against a controller found: without one, liveness is unverified
		// already, and an old status is not told from a test or a restored backup.
		l.Stale = staleKustomizations(c, now)
	}
	return l
}

// controllerDeployments lists the Deployments Flux's labels mark as controllers, by controller
// name, in every namespace.
func controllerDeployments(ctx context.Context, kube kubernetes.Interface) (map[string][]appsv1.Deployment, error) {
	out := map[string][]appsv1.Deployment{}
	seen := map[string]bool{}
	for _, sel := range controllerSelectors {
		list, err := kube.AppsV1().Deployments("").List(ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			return nil, err
		}
		for _, d := range list.Items {
			key := d.Namespace + "/" + d.Name
			if seen[key] {
				continue
			}
			seen[key] = true
			name := cmp.Or(d.Labels["app.kubernetes.io/component"], d.Labels["app"], d.Labels["app.kubernetes.io/name"])
			if name == "" {
				name = d.Name
			}
			out[name] = append(out[name], d)
		}
	}
	return out, nil
}

// judge fills ctrl from its Deployments and their pods: up when one has an available replica
// whose pod is ready.
func judge(ctx context.Context, kube kubernetes.Interface, ctrl *Controller, deps []appsv1.Deployment) {
	var downs []string
	for _, d := range deps {
		ctrl.Found = true
		ctrl.Deployments = append(ctrl.Deployments, d.Namespace+"/"+d.Name)
		why := deploymentDown(&d)
		pods, err := controllerPods(ctx, kube, &d)
		if err != nil {
			ctrl.Note = "its pods could not be read: " + err.Error()
		}
		ready := false
		for i := range pods {
			ready = podReady(&pods[i]) || ready
			notePod(ctrl, &pods[i])
		}
		if why == "" && err == nil && !ready {
			why = "no pod of it is ready"
		}
		if why == "" {
			ctrl.Up = true
			continue
		}
		downs = append(downs, d.Namespace+"/"+d.Name+": "+why)
	}
	if ctrl.Found && !ctrl.Up {
		ctrl.Down = strings.Join(downs, "; ")
		if ctrl.Waiting != "" {
			ctrl.Down += "; " + ctrl.Waiting
		}
		if ctrl.LastTermination != "" {
			ctrl.Down += "; last terminated " + ctrl.LastTermination
		}
	}
}

// deploymentDown says why d has no available replica, or "".
func deploymentDown(d *appsv1.Deployment) string {
	if d.Spec.Replicas != nil && *d.Spec.Replicas == 0 {
		return "scaled to 0 replicas"
	}
	if d.Status.AvailableReplicas > 0 {
		return ""
	}
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable && c.Status != corev1.ConditionTrue {
			return fmt.Sprintf("no available replica since %s (%s: %s)", c.LastTransitionTime.UTC().Format(time.RFC3339), c.Reason, c.Message)
		}
	}
	return "no available replica"
}

// controllerPods lists d's pods by its selector.
func controllerPods(ctx context.Context, kube kubernetes.Interface, d *appsv1.Deployment) ([]corev1.Pod, error) {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("the selector of %s/%s: %w", d.Namespace, d.Name, err)
	}
	list, err := kube.CoreV1().Pods(d.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// podReady reports whether p's Ready condition is True.
func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// notePod adds p's restarts, its latest termination and why a container waits to ctrl.
func notePod(ctrl *Controller, p *corev1.Pod) {
	var last time.Time
	for _, cs := range p.Status.ContainerStatuses {
		ctrl.Restarts += cs.RestartCount
		if w := cs.State.Waiting; w != nil && w.Reason != "" && ctrl.Waiting == "" {
			ctrl.Waiting = fmt.Sprintf("pod %s container %s is waiting: %s", p.Name, cs.Name, w.Reason)
		}
		if t := cs.LastTerminationState.Terminated; t != nil && !t.FinishedAt.Time.Before(last) {
			last = t.FinishedAt.Time
			ctrl.LastTermination = fmt.Sprintf("%s (exit code %d) at %s", t.Reason, t.ExitCode, t.FinishedAt.UTC().Format(time.RFC3339))
		}
	}
}

// staleKustomizations are the Ready Kustomizations of c whose last reconciliation ended longer
// ago than their interval, its jitter and staleSlack explain. kustomize-controller marks
// Ready=Unknown at the start of every reconciliation (kustomization_controller.go:325), so a
// Ready one's lastTransitionTime is when the last one ended. A suspended one is not
// reconciled, and waiting or failing ones are retried on other timers: they are not judged.
func staleKustomizations(c *Chain, now time.Time) []StaleStatus {
	var out []StaleStatus
	for _, n := range c.Kustomizations {
		interval, err := time.ParseDuration(n.Interval)
		if n.State != Ready || n.readySince.IsZero() || err != nil || interval <= 0 {
			continue
		}
		age := now.Sub(n.readySince)
		if age <= interval+interval/20+staleSlack {
			continue
		}
		out = append(out, StaleStatus{Object: kustomizationRef(n.ID), Controller: KustomizeController,
			LastReconciled: n.readySince.UTC().Format(time.RFC3339), Age: age.Truncate(time.Second).String(), Interval: n.Interval})
	}
	return out
}
