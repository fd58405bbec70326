package fluxchain_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/testsupport/fluxcontrollers"
	"github.com/kubeforensics/suite/internal/testsupport/testenv"
	"github.com/kubeforensics/suite/plugins/fluxchain"
)

// fluxNS is where the Flux controllers run, as flux install puts them.
const fluxNS = "flux-system"

// resources maps the kinds the cases create to their resources, at the versions the test
// control plane serves (internal/testsupport/testenv/crds; the Flux Operator's below).
var resources = map[string]schema.GroupVersionResource{
	"GitRepository":  {Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: "gitrepositories"},
	"OCIRepository":  {Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: "ocirepositories"},
	"Bucket":         {Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: "buckets"},
	"HelmRepository": {Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: "helmrepositories"},
	"HelmChart":      {Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: "helmcharts"},
	"Kustomization":  {Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations"},
	"HelmRelease":    {Group: "helm.toolkit.fluxcd.io", Version: "v2", Resource: "helmreleases"},
	"FluxInstance":   {Group: "fluxcd.controlplane.io", Version: "v1", Resource: "fluxinstances"},
	"ResourceSet":    {Group: "fluxcd.controlplane.io", Version: "v1", Resource: "resourcesets"},
}

// installOperatorCRDs serves the Flux Operator's FluxInstance and ResourceSet kinds
// (fluxcd.controlplane.io/v1) on the control plane. Their schemas are kept open: the cases
// write spec and status as flux-operator writes them, and nothing here validates them.
func installOperatorCRDs(ctx context.Context, e *testenv.Env) error {
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, kind := range []string{"FluxInstance", "ResourceSet"} {
		gvr := resources[kind]
		open := true
		schemaProps := &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &open}
		crds = append(crds, &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: gvr.Resource + "." + gvr.Group},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: gvr.Group, Scope: apiextensionsv1.NamespaceScoped,
				Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: gvr.Resource, Kind: kind, ListKind: kind + "List", Singular: strings.ToLower(kind)},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
					Name: gvr.Version, Served: true, Storage: true,
					Schema:       &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: schemaProps},
					Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				}},
			},
		})
	}
	return e.ApplyCRDs(ctx, crds...)
}

// controllersOnce puts Flux's controllers in flux-system once, healthy.
var controllersOnce sync.Once

// replay builds one report's objects on the control plane.
type replay struct {
	t    *testing.T
	dyn  dynamic.Interface
	kube kubernetes.Interface
}

// newReplay skips under -short, makes sure Flux's controllers run (healthy) and creates the
// namespaces the report's objects live in.
func newReplay(t *testing.T, namespaces ...string) *replay {
	t.Helper()
	if env == nil {
		t.Skip("integration test: needs the local control plane (run without -short)")
	}
	dyn, err := dynamic.NewForConfig(env.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	kube, err := kubernetes.NewForConfig(env.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	r := &replay{t: t, dyn: dyn, kube: kube}
	var installErr error
	controllersOnce.Do(func() { installErr = fluxcontrollers.InstallHealthy(context.Background(), kube, fluxNS) })
	if installErr != nil {
		t.Fatal(installErr)
	}
	for _, ns := range namespaces {
		_, err := kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	return r
}

// controller sets the controller name's Deployment and pod to st for the case and restores it
// healthy after.
func (r *replay) controller(name string, st fluxcontrollers.State) {
	r.t.Helper()
	if err := fluxcontrollers.Set(context.Background(), r.kube, fluxNS, name, st); err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() {
		if err := fluxcontrollers.Set(context.Background(), r.kube, fluxNS, name, fluxcontrollers.State{}); err != nil {
			r.t.Error(err)
		}
	})
}

// object is one Flux object as the report shows it.
type object struct {
	apiVersion, kind, ns, name string
	labels                     map[string]any
	spec                       map[string]any
	// status is written through the status subresource, as the controller would; nil: none.
	status map[string]any
	// specChanges are applied to spec one after the other once created, each bumping
	// metadata.generation (a spec changed after the controller last observed it).
	specChanges []map[string]any
}

// create creates o and writes its status.
func (r *replay) create(o object) {
	r.t.Helper()
	gvr, ok := resources[o.kind]
	if !ok {
		r.t.Fatalf("no resource for kind %s", o.kind)
	}
	meta := map[string]any{"name": o.name, "namespace": o.ns}
	if o.labels != nil {
		meta["labels"] = o.labels
	}
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": o.apiVersion, "kind": o.kind, "metadata": meta, "spec": o.spec}}
	ctx := context.Background()
	ri := r.dyn.Resource(gvr).Namespace(o.ns)
	created, err := ri.Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		r.t.Fatalf("creating %s %s/%s: %v", o.kind, o.ns, o.name, err)
	}
	for _, change := range o.specChanges {
		spec, _ := created.Object["spec"].(map[string]any)
		for k, v := range change {
			spec[k] = v
		}
		if created, err = ri.Update(ctx, created, metav1.UpdateOptions{}); err != nil {
			r.t.Fatalf("changing the spec of %s %s/%s: %v", o.kind, o.ns, o.name, err)
		}
	}
	if o.status == nil {
		return
	}
	created.Object["status"] = o.status
	if _, err := ri.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		r.t.Fatalf("writing the status of %s %s/%s: %v", o.kind, o.ns, o.name, err)
	}
}

// secret creates a Secret the report's objects reference.
func (r *replay) secret(ns, name string, data map[string][]byte) {
	r.t.Helper()
	_, err := r.kube.CoreV1().Secrets(ns).Create(context.Background(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Data: data}, metav1.CreateOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
}

// serviceAccount creates a ServiceAccount the report's objects reference.
func (r *replay) serviceAccount(ns, name string) {
	r.t.Helper()
	_, err := r.kube.CoreV1().ServiceAccounts(ns).Create(context.Background(), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}, metav1.CreateOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
}

// cond is a status condition written ago before now, at observedGeneration gen.
func cond(typ, status, reason, msg string, ago time.Duration, gen int64) map[string]any {
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": msg,
		"lastTransitionTime": time.Now().Add(-ago).UTC().Format(time.RFC3339), "observedGeneration": gen}
}

// conds is a status conditions list.
func conds(c ...map[string]any) []any {
	out := make([]any, len(c))
	for i := range c {
		out[i] = c[i]
	}
	return out
}

// artifact is a source artifact at revision, as source-controller records it.
func artifact(path, revision string) map[string]any {
	return map[string]any{"path": path, "url": "http://source-controller." + fluxNS + ".svc.cluster.local./" + path,
		"revision": revision, "digest": "sha256:4f74d61c31c3b6904316c6498274304879b66abd34f53ab834aa6492684d7646",
		"lastUpdateTime": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), "size": int64(1024)}
}

// appliedBy are the labels kustomize-controller puts on what Kustomization ns/name applies.
func appliedBy(ns, name string) map[string]any {
	return map[string]any{"kustomize.toolkit.fluxcd.io/name": name, "kustomize.toolkit.fluxcd.io/namespace": ns}
}

// diagnose runs flux-chain with args and -o json against the control plane.
func diagnose(t *testing.T, args ...string) (fluxchain.Result, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut}
	full := append([]string{"--kubeconfig=" + env.Kubeconfig, "--context=" + env.Context}, args...)
	full = append(full, "-o", "json")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code := cli.Run(ctx, fluxchain.NewCmdFluxChain(streams), full, &errOut)
	var res fluxchain.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("exit %d, decoding %q (stderr %q): %v", code, out.String(), errOut.String(), err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("flux-chain result:\n%s", out.String())
		}
	})
	return res, code
}

// ref is an object's fully qualified reference as flux-chain's root causes name it.
func ref(resource, ns, name string) string {
	return fmt.Sprintf("%s/%s -n %s", resource, name, ns)
}

// The resources of ref.
const (
	gitRepositories  = "gitrepositories.source.toolkit.fluxcd.io"
	buckets          = "buckets.source.toolkit.fluxcd.io"
	helmCharts       = "helmcharts.source.toolkit.fluxcd.io"
	helmRepositories = "helmrepositories.source.toolkit.fluxcd.io"
	ociRepositories  = "ocirepositories.source.toolkit.fluxcd.io"
	helmReleases     = "helmreleases.helm.toolkit.fluxcd.io"
	fluxInstances    = "fluxinstances.fluxcd.controlplane.io"
)

// causeByObject is the root cause whose object is obj, or nil.
func causeByObject(res fluxchain.Result, obj string) *flux.RootCause {
	for i := range res.RootCauses {
		if res.RootCauses[i].Object == obj {
			return &res.RootCauses[i]
		}
	}
	return nil
}

// causeByKustomization is the root cause that is Kustomization id (namespace/name) itself, or
// nil.
func causeByKustomization(res fluxchain.Result, id string) *flux.RootCause {
	for i := range res.RootCauses {
		if res.RootCauses[i].Object == "" && res.RootCauses[i].Kustomization == id {
			return &res.RootCauses[i]
		}
	}
	return nil
}

// causeObjects lists the root causes by what they are, for failure messages.
func causeObjects(res fluxchain.Result) []string {
	var out []string
	for _, rc := range res.RootCauses {
		what := rc.Object
		if what == "" {
			what = "kustomization " + rc.Kustomization
		}
		out = append(out, what+" ("+rc.Reason+")")
	}
	return out
}

// contains reports whether list has s.
func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// wantVerdict fails the case unless the run ended with verdict and exit code.
func wantVerdict(t *testing.T, res fluxchain.Result, code int, verdict string, exit int) {
	t.Helper()
	if res.Verdict != verdict || code != exit || res.ExitCode != exit {
		t.Errorf("verdict %s, exit %d (exitCode %d); want %s, exit %d; root causes %v", res.Verdict, code, res.ExitCode, verdict, exit, causeObjects(res))
	}
}

// wantObjectCause fails the case unless obj is a root cause for reason, and returns it.
func wantObjectCause(t *testing.T, res fluxchain.Result, obj, reason string) *flux.RootCause {
	t.Helper()
	rc := causeByObject(res, obj)
	if rc == nil {
		t.Errorf("no root cause %s; root causes %v", obj, causeObjects(res))
		return nil
	}
	if reason != "" && rc.Reason != reason {
		t.Errorf("root cause %s: reason %q, want %q", obj, rc.Reason, reason)
	}
	return rc
}

// wantNotACause fails the case if Kustomization id is a root cause of its own: it waits on
// another object.
func wantNotACause(t *testing.T, res fluxchain.Result, id string) {
	t.Helper()
	if rc := causeByKustomization(res, id); rc != nil {
		t.Errorf("Kustomization %s is a root cause (%s %s); it only waits on another object", id, rc.Reason, rc.Code)
	}
}
