package fluxchain_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/report"
)

// The replays below put on the control plane the dependency situations users reported, with
// the status the controllers write (condition types, reasons and messages as in their source:
// fluxcd/kustomize-controller internal/controller/kustomization_controller.go,
// fluxcd/source-controller internal/controller/gitrepository_controller.go, cert-manager's
// certificates issuing controller).

const rev0 = "main@sha1:0000000000000000000000000000000000000000"

// lockstep is the readyExpr from the pull request that introduced it
// (https://github.com/fluxcd/kustomize-controller/pull/1491): the frontend waits until the
// backend runs its version and is Ready at its generation.
const lockstep = `dep.metadata.labels['app/version'] == self.metadata.labels['app/version'] &&
dep.status.conditions.filter(e, e.type == 'Ready').all(e, e.status == 'True') &&
dep.metadata.generation == dep.status.observedGeneration`

// notReadyByExpr is what kustomize-controller writes when a readyExpr is false.
func notReadyByExpr(ns, dep string) map[string]any {
	return cond("Ready", "False", "DependencyNotReady", "dependency '"+ns+"/"+dep+"' is not ready according to readyExpr eval")
}

// TestReadyExprFalse: the backend is Ready at v1.2.3 and the frontend, bumped to v1.2.4, waits
// on its lockstep readyExpr. It used to be a stale wait ("retries every 1m0s") with no cause;
// the cause is now the frontend's expression, with the two labels it compared.
func TestReadyExprFalse(t *testing.T) {
	needEnv(t)
	const ns = "fc-readyexpr"
	f := newFixture(t, ns)
	f.gitRepo("fleet", rev1)
	backend := readyKS("app-backend", rev1)
	backend.labels = map[string]any{"app/version": "v1.2.3"}
	f.ks(backend)
	f.ks(kspec{name: "app-frontend", deps: []string{"app-backend"}, applied: rev1,
		labels: map[string]any{"app/version": "v1.2.4"}, readyExprs: map[string]string{"app-backend": lockstep},
		ready: notReadyByExpr(ns, "app-backend")})
	res, code := decode(t, "-n", ns)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if len(res.RootCauses) != 1 || res.RootCauses[0].Kustomization != ns+"/app-frontend" || res.RootCauses[0].Reason != flux.ReasonReadyExprFalse {
		t.Fatalf("root causes = %+v, want the frontend's readyExpr", res.RootCauses)
	}
	saw := strings.Join(res.RootCauses[0].Explanation, " ")
	for _, want := range []string{`dep.metadata.labels['app/version'] = "v1.2.3"`, `self.metadata.labels['app/version'] = "v1.2.4"`} {
		if !strings.Contains(saw, want) {
			t.Errorf("explanation %q lacks %s", saw, want)
		}
	}
	if got := findingKinds(res)[flux.FindingStaleWait]; len(got) != 0 {
		t.Errorf("still a stale wait: %v", got)
	}
	text, _, _ := run(t, "-n", ns)
	goldens.Assert(t, ns+".txt", text)
}

// TestReadyExprUnevaluated: an expression that reads a field the dependency does not have
// cannot be evaluated (kustomize-controller fails the same way): the verdict is UNKNOWN and
// names the expression, never a confident answer.
func TestReadyExprUnevaluated(t *testing.T) {
	needEnv(t)
	const ns = "fc-readyexpr-unknown"
	f := newFixture(t, ns)
	f.gitRepo("fleet", rev1)
	f.ks(readyKS("db", rev1))
	expr := "dep.status.replicas == 3"
	f.ks(kspec{name: "api", deps: []string{"db"}, applied: rev1, readyExprs: map[string]string{"db": expr},
		ready: cond("Ready", "False", "DependencyNotReady", "failed to evaluate the CEL expression '"+expr+"': no such key: replicas")})
	res, code := decode(t, "-n", ns)
	if code != 2 || res.Verdict != "UNKNOWN" {
		t.Fatalf("exit %d verdict %s, want 2 UNKNOWN", code, res.Verdict)
	}
	if len(res.Incomplete) != 1 || !strings.Contains(res.Incomplete[0].What, expr) || !strings.Contains(res.Incomplete[0].Error, "no such key") || res.Incomplete[0].Op != report.OpEvaluate {
		t.Errorf("incomplete = %+v, want the expression and why it did not evaluate", res.Incomplete)
	}
	if len(res.RootCauses) != 1 || res.RootCauses[0].Reason != flux.ReasonReadyExprUnevaluated {
		t.Errorf("root causes = %+v", res.RootCauses)
	}
}

// TestDeletingTier replays https://github.com/fluxcd/flux2/issues/2486: the Kustomization
// infra and a HelmRelease stay deleting on finalizers.fluxcd.io once the controllers are gone
// (no Flux controller runs on this control plane). Both were shown Ready, the Kustomization
// with a generation lag; they are Terminating, with why-terminating's explanation.
func TestDeletingTier(t *testing.T) {
	needEnv(t)
	const ns = "fc-deleting"
	f := newFixture(t, ns)
	f.gitRepo("fleet", rev1)
	infra := readyKS("infra", rev1)
	infra.finalizers = []any{"finalizers.fluxcd.io"}
	f.ks(infra)
	f.ks(readyKS("apps", rev1, "infra"))
	f.create(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
		"metadata": map[string]any{"name": "podinfo", "namespace": ns, "finalizers": []any{"finalizers.fluxcd.io"}, "labels": map[string]any{
			"kustomize.toolkit.fluxcd.io/name": "apps", "kustomize.toolkit.fluxcd.io/namespace": ns}},
		"spec": map[string]any{"interval": "10m",
			"chart": map[string]any{"spec": map[string]any{"chart": "podinfo", "sourceRef": map[string]any{"kind": "HelmRepository", "name": "podinfo"}}}},
	}}, map[string]any{"conditions": []any{cond("Ready", "True", "InstallSucceeded", "Helm install succeeded for release "+ns+"/podinfo.v1 with chart podinfo@6.7.0")}})
	ctx := context.Background()
	for _, del := range []struct {
		gvr  schema.GroupVersionResource
		name string
	}{{flux.KustomizationGVR, "infra"}, {flux.HelmReleaseGVR, "podinfo"}} {
		if err := f.dyn.Resource(del.gvr).Namespace(ns).Delete(ctx, del.name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	res, code := decode(t, "-n", ns)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	n := res.Node(ns + "/infra")
	if n == nil || n.State != flux.Terminating || n.Terminating == nil || len(n.Terminating.Finalizers) != 1 ||
		n.Terminating.Finalizers[0].Name != "finalizers.fluxcd.io" || !strings.Contains(n.Terminating.Finalizers[0].RemovedBy, "kustomize-controller") {
		t.Fatalf("infra = %+v, want Terminating with the explanation of finalizers.fluxcd.io", n)
	}
	apps := res.Node(ns + "/apps")
	if len(apps.HelmReleases) != 1 || apps.HelmReleases[0].Terminating == nil || !strings.Contains(apps.HelmReleases[0].Terminating.Finalizers[0].RemovedBy, "helm-controller") {
		t.Errorf("apps' HelmRelease = %+v, want it explained as Terminating", apps.HelmReleases)
	}
	kinds := findingKinds(res)
	if got := kinds[flux.FindingTerminating]; !slices.Equal(got, []string{ns + "/apps", ns + "/infra"}) {
		t.Errorf("Terminating findings = %v", got)
	}
	if got := kinds[flux.FindingGenerationLag]; len(got) != 0 {
		t.Errorf("the deletion is reported as a generation lag: %v", got)
	}
	if text, _, _ := run(t, "-n", ns); !strings.Contains(text, "fc-deleting/infra Terminating") || !strings.Contains(text, "finalizer finalizers.fluxcd.io: removed by") {
		t.Errorf("the tree does not show the deletion:\n%s", text)
	}
}

// TestBrokenSourceIsOneCause replays https://github.com/fluxcd/flux2/issues/1494, a
// GitRepository source-controller cannot clone: every tier built from it reports "Source
// artifact not found". The source is the one root cause; infra and apps fail on it directly
// (apps is not "frozen" behind infra) and monitoring, built from another source, waits.
func TestBrokenSourceIsOneCause(t *testing.T) {
	needEnv(t)
	const ns = "fc-broken-source"
	f := newFixture(t, ns)
	f.create(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "GitRepository",
		"metadata": map[string]any{"name": "fleet", "namespace": ns},
		"spec":     map[string]any{"url": "https://github.com/example/fleet.git", "interval": "1m"},
	}}, map[string]any{"conditions": []any{
		cond("Ready", "False", "GitOperationFailed", "failed to checkout and determine revision: unable to clone 'https://github.com/example/fleet.git': authentication required"),
		cond("FetchFailed", "True", "GitOperationFailed", "failed to checkout and determine revision: unable to clone 'https://github.com/example/fleet.git': authentication required"),
	}})
	f.gitRepo("charts", rev1)
	artifactFailed := cond("Ready", "False", "ArtifactFailed", "Source artifact not found, retrying in 30s")
	f.ks(kspec{name: "infra", applied: rev0, ready: artifactFailed})
	f.ks(kspec{name: "apps", deps: []string{"infra"}, applied: rev0, ready: artifactFailed})
	f.ks(kspec{name: "monitoring", source: "charts", deps: []string{"infra"}, applied: rev1,
		ready: cond("Ready", "False", "DependencyNotReady", "dependency '"+ns+"/infra' is not ready")})
	res, code := decode(t, "-n", ns)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if len(res.RootCauses) != 1 {
		t.Fatalf("%d root causes, want the source alone: %+v", len(res.RootCauses), res.RootCauses)
	}
	rc := res.RootCauses[0]
	if rc.Object != "gitrepositories.source.toolkit.fluxcd.io/fleet -n "+ns || rc.Reason != "GitOperationFailed" || !strings.Contains(rc.Message, "authentication required") {
		t.Errorf("root cause = %+v, want the GitRepository with its own reason", rc)
	}
	if !slices.Equal(rc.Tiers, []string{ns + "/apps", ns + "/infra"}) || !slices.Equal(rc.BlastRadius, []string{ns + "/apps", ns + "/infra", ns + "/monitoring"}) {
		t.Errorf("tiers %v, blast radius %v", rc.Tiers, rc.BlastRadius)
	}
	text, _, _ := run(t, "-n", ns)
	goldens.Assert(t, ns+".txt", text)
}

// TestSuspendedAtRevision replays https://github.com/fluxcd/flux2/issues/5341: a suspended
// Kustomization stays Ready at the revision it applied while its source moves on, and the tier
// depending on it waits for the new one. The cause said "suspended while not ready".
func TestSuspendedAtRevision(t *testing.T) {
	needEnv(t)
	const ns = "fc-suspended-at"
	f := newFixture(t, ns)
	f.gitRepo("fleet", rev1)
	infra := readyKS("infra", rev0)
	infra.suspend = true
	f.ks(infra)
	f.ks(kspec{name: "apps", deps: []string{"infra"}, applied: rev0,
		ready: cond("Ready", "False", "DependencyNotReady", "dependency '"+ns+"/infra' revision is not up to date")})
	res, code := decode(t, "-n", ns)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	want := "suspended at " + rev0 + "; dependents wait for " + rev1
	if len(res.RootCauses) != 1 || res.RootCauses[0].Kustomization != ns+"/infra" || res.RootCauses[0].Message != want {
		t.Fatalf("root causes = %+v, want infra: %s", res.RootCauses, want)
	}
}

// TestHealthCheckCondition: a tier's health check times out on a cert-manager Certificate
// whose issuance failed. Ready only says the Secret does not exist; the drill-down shows the
// Issuing condition, which says why, as cert-manager writes it. The CRD is a minimal stand-in
// for cert-manager's (group, kind, a status subresource).
func TestHealthCheckCondition(t *testing.T) {
	needEnv(t)
	const ns = "fc-certificate"
	installCertificateCRD(t)
	f := newFixture(t, ns)
	f.gitRepo("fleet", rev1)
	f.ks(kspec{name: "ingress", wait: true, timeout: "5m", applied: rev1,
		ready: cond("Ready", "False", "HealthCheckFailed", "health check failed after 5m0.03s: timeout waiting for: [Certificate/"+ns+"/api-tls status: 'InProgress']")})
	issuing := "The certificate request has failed to complete and will be retried: Failed to wait for order resource \"api-tls-1-2299060280\" to become ready: order is in \"invalid\" state"
	f.createAs(schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "certificates"}, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
		"metadata": map[string]any{"name": "api-tls", "namespace": ns},
		"spec":     map[string]any{"secretName": "api-tls", "dnsNames": []any{"api.example.com"}, "issuerRef": map[string]any{"name": "letsencrypt", "kind": "ClusterIssuer"}},
	}}, map[string]any{"conditions": []any{
		cond("Ready", "False", "DoesNotExist", "Issuing certificate as Secret does not exist"),
		cond("Issuing", "False", "Failed", issuing),
	}})
	res, code := decode(t, "-n", ns)
	if code != 1 || len(res.RootCauses) != 1 || len(res.RootCauses[0].Objects) != 1 {
		t.Fatalf("exit %d, root causes %+v", code, res.RootCauses)
	}
	bo := res.RootCauses[0].Objects[0]
	want := flux.ObjectCondition{Type: "Issuing", Condition: flux.Condition{Status: "False", Reason: "Failed", Message: issuing}}
	if !slices.Contains(bo.Conditions, want) {
		t.Errorf("conditions = %+v, want Issuing=False Failed", bo.Conditions)
	}
	if text, _, _ := run(t, "-n", ns); !strings.Contains(text, "Issuing=False Failed: "+issuing) {
		t.Errorf("the tree lacks the Issuing condition:\n%s", text)
	}
}

// installCertificateCRD serves certificates.cert-manager.io/v1 with a status subresource.
func installCertificateCRD(t *testing.T) {
	t.Helper()
	preserve := true
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "certificates.cert-manager.io"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "cert-manager.io", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "certificates", Singular: "certificate", Kind: "Certificate", ListKind: "CertificateList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema:       &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &preserve}},
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
			}},
		},
	}
	if err := env.ApplyCRDs(context.Background(), crd); err != nil {
		t.Fatal(err)
	}
}

// TestMissingSecretIsOneCause replays https://github.com/onedr0p/cluster-template/issues/156:
// the sops-age Secret the Kustomizations decrypt with was created in another namespace, so
// every tier that decrypts fails its build on it, with the message kustomize-controller's
// decryptor returns for a missing Secret. The Secret is the one cause, named fully qualified.
func TestMissingSecretIsOneCause(t *testing.T) {
	needEnv(t)
	const ns = "fc-missing-secret"
	f := newFixture(t, ns)
	f.gitRepo("fleet", rev1)
	missing := cond("Ready", "False", "BuildFailed", `secrets "sops-age" not found`)
	f.ks(kspec{name: "cluster-meta", applied: rev0, ready: missing})
	f.ks(kspec{name: "cluster-apps", deps: []string{"cluster-meta"}, applied: rev0, ready: missing})
	res, code := decode(t, "-n", ns)
	if code != 1 || len(res.RootCauses) != 1 {
		t.Fatalf("exit %d, root causes %+v; want 1 and the Secret alone", code, res.RootCauses)
	}
	rc := res.RootCauses[0]
	if rc.Object != "secrets/sops-age -n "+ns || rc.Reason != flux.ReasonNotFound || !slices.Equal(rc.Tiers, []string{ns + "/cluster-apps", ns + "/cluster-meta"}) {
		t.Errorf("root cause = %+v", rc)
	}
}

// TestDeletingHelmReleaseDrawnOnce replays https://github.com/fluxcd/flux2/issues/2486 with the
// tier failing on its HelmRelease: helm-controller is gone, the HelmRelease stays deleting on
// finalizers.fluxcd.io, and the Kustomization's health check times out on it (kstatus reports
// an object with a deletionTimestamp as Terminating). The HelmRelease was drawn with its
// finalizer's explanation under the root cause and again under its tier; it is explained once,
// where it first appears, and named with a pointer there elsewhere.
func TestDeletingHelmReleaseDrawnOnce(t *testing.T) {
	needEnv(t)
	const ns = "fc-deleting-hr"
	f := newFixture(t, ns)
	f.gitRepo("fleet", rev1)
	f.ks(kspec{name: "apps", wait: true, timeout: "5m", applied: rev1,
		ready: cond("Ready", "False", "HealthCheckFailed", "health check failed after 5m0.02s: timeout waiting for: [HelmRelease/"+ns+"/podinfo status: 'Terminating']")})
	f.create(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
		"metadata": map[string]any{"name": "podinfo", "namespace": ns, "finalizers": []any{"finalizers.fluxcd.io"}, "labels": map[string]any{
			"kustomize.toolkit.fluxcd.io/name": "apps", "kustomize.toolkit.fluxcd.io/namespace": ns}},
		"spec": map[string]any{"interval": "10m",
			"chart": map[string]any{"spec": map[string]any{"chart": "podinfo", "sourceRef": map[string]any{"kind": "HelmRepository", "name": "podinfo"}}}},
	}}, map[string]any{"conditions": []any{cond("Ready", "True", "UpgradeSucceeded", "Helm upgrade succeeded for release "+ns+"/podinfo.v2 with chart podinfo@6.7.1")}})
	if err := f.dyn.Resource(flux.HelmReleaseGVR).Namespace(ns).Delete(context.Background(), "podinfo", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	text, _, code := run(t, "-n", ns)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if n := strings.Count(text, "removed by Flux helm-controller"); n != 1 {
		t.Errorf("the HelmRelease's finalizer is explained %d times, want once:\n%s", n, text)
	}
	res, _ := decode(t, "-n", ns)
	if len(res.RootCauses) != 1 || len(res.RootCauses[0].HelmReleases) != 1 || res.RootCauses[0].HelmReleases[0].Terminating == nil {
		t.Errorf("root causes = %+v, want apps with its HelmRelease explained", res.RootCauses)
	}
	goldens.Assert(t, ns+".txt", text)
}

// lockstepHR is helm-controller's readyExpr example, from the pull request that introduced
// readyExpr for HelmReleases (https://github.com/fluxcd/helm-controller/pull/1271) and its
// documentation (docs/spec/v2/helmreleases.md, "Dependency Ready Expression"): the frontend
// waits until the backend runs its app version and is Ready at its generation.
const lockstepHR = `dep.spec.values.app.version == self.spec.values.app.version &&
dep.status.conditions.filter(e, e.type == 'Ready').all(e, e.status == 'True') &&
dep.metadata.generation == dep.status.observedGeneration`

// versionedHelmRelease creates a HelmRelease applied by the Kustomization apps, at app
// version, with dependsOn entries (name or namespace/name -> readyExpr) and status conditions.
func (f *fixture) versionedHelmRelease(name, version string, deps map[string]string, conds ...any) {
	f.t.Helper()
	spec := map[string]any{"interval": "10m", "values": map[string]any{"app": map[string]any{"version": version}},
		"chart": map[string]any{"spec": map[string]any{"chart": name, "sourceRef": map[string]any{"kind": "HelmRepository", "name": "charts"}}}}
	var dependsOn []any
	for dep, expr := range deps {
		ref := map[string]any{"name": dep, "readyExpr": expr}
		if ns, name, ok := strings.Cut(dep, "/"); ok {
			ref["namespace"], ref["name"] = ns, name
		}
		dependsOn = append(dependsOn, ref)
	}
	if dependsOn != nil {
		spec["dependsOn"] = dependsOn
	}
	f.create(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
		"metadata": map[string]any{"name": name, "namespace": f.ns, "labels": map[string]any{
			"kustomize.toolkit.fluxcd.io/name": "apps", "kustomize.toolkit.fluxcd.io/namespace": f.ns}},
		"spec": spec,
	}}, map[string]any{"conditions": conds})
}

// TestHelmReleaseReadyExprFalse replays helm-controller's lockstep upgrade: the backend
// HelmRelease is Ready at app version v1.2.3, the frontend was bumped to v1.2.4 and
// helm-controller holds it back on its readyExpr (Ready=False DependencyNotReady with the
// message of its dependency check, Reconciling=True "Fulfilling prerequisites"), so the
// Kustomization applying both times out on the frontend. The Kustomization's health check was
// the root cause, with nothing saying why; the frontend's readyExpr is, naming the expression and
// the two versions it compared, and the Kustomization is its tier.
func TestHelmReleaseReadyExprFalse(t *testing.T) {
	needEnv(t)
	const ns = "fc-hr-readyexpr"
	f := newFixture(t, ns)
	f.gitRepo("fleet", rev1)
	f.ks(kspec{name: "apps", wait: true, timeout: "5m", applied: rev1,
		ready: cond("Ready", "False", "HealthCheckFailed", "health check failed after 5m0.04s: timeout waiting for: [HelmRelease/"+ns+"/frontend status: 'InProgress']")})
	f.versionedHelmRelease("backend", "v1.2.3", nil, cond("Ready", "True", "UpgradeSucceeded", "Helm upgrade succeeded for release "+ns+"/backend.v3 with chart backend@1.2.3"))
	f.versionedHelmRelease("frontend", "v1.2.4", map[string]string{"backend": lockstepHR},
		cond("Ready", "False", "DependencyNotReady", "dependency '"+ns+"/backend' is not ready according to readyExpr eval"),
		cond("Reconciling", "True", "Progressing", "Fulfilling prerequisites"))
	res, code := decode(t, "-n", ns)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if len(res.RootCauses) != 1 {
		t.Fatalf("root causes = %+v, want the frontend's readyExpr alone", res.RootCauses)
	}
	rc := res.RootCauses[0]
	if rc.Object != "helmreleases.helm.toolkit.fluxcd.io/frontend -n "+ns || rc.Reason != flux.ReasonReadyExprFalse || !slices.Equal(rc.Tiers, []string{ns + "/apps"}) {
		t.Errorf("root cause = %+v, want the frontend's readyExpr with apps failing on it", rc)
	}
	saw := strings.Join(rc.Explanation, " ")
	for _, want := range []string{`dep.spec.values.app.version = "v1.2.3"`, `self.spec.values.app.version = "v1.2.4"`, "helm-controller waits until it holds"} {
		if !strings.Contains(saw, want) {
			t.Errorf("explanation %q lacks %s", saw, want)
		}
	}
	text, _, _ := run(t, "-n", ns)
	goldens.Assert(t, ns+".txt", text)
}

// TestHelmReleaseReadyExprUnevaluated: the frontend's readyExpr reads a field the backend does
// not have; helm-controller's evaluation fails the same way and it keeps waiting. The chain
// cannot tell whether the expression holds: UNKNOWN, naming the expression and the error.
func TestHelmReleaseReadyExprUnevaluated(t *testing.T) {
	needEnv(t)
	const ns = "fc-hr-readyexpr-unknown"
	f := newFixture(t, ns)
	f.gitRepo("fleet", rev1)
	f.ks(readyKS("apps", rev1))
	expr := "dep.status.replicas == 3"
	f.versionedHelmRelease("backend", "v1.2.3", nil, cond("Ready", "True", "InstallSucceeded", "Helm install succeeded for release "+ns+"/backend.v1 with chart backend@1.2.3"))
	f.versionedHelmRelease("frontend", "v1.2.3", map[string]string{"backend": expr},
		cond("Ready", "False", "DependencyNotReady", "no such key: replicas"))
	res, code := decode(t, "-n", ns)
	if code != 2 || res.Verdict != "UNKNOWN" {
		t.Fatalf("exit %d verdict %s, want 2 UNKNOWN", code, res.Verdict)
	}
	if len(res.Incomplete) != 1 || !strings.Contains(res.Incomplete[0].What, expr) || !strings.Contains(res.Incomplete[0].What, "helmreleases.helm.toolkit.fluxcd.io/frontend") || !strings.Contains(res.Incomplete[0].Error, "no such key") || res.Incomplete[0].Op != report.OpEvaluate {
		t.Errorf("incomplete = %+v, want the expression and why it did not evaluate", res.Incomplete)
	}
	if len(res.RootCauses) != 1 || res.RootCauses[0].Reason != flux.ReasonReadyExprUnevaluated || res.RootCauses[0].AppliedBy != ns+"/apps" {
		t.Errorf("root causes = %+v", res.RootCauses)
	}
}

// TestHelmReleaseReadyExprOtherNamespace: the backend the frontend's readyExpr reads lives in
// another namespace than the one flux-chain lists (-n); it is read with one GET, so the
// expression is evaluated rather than skipped and the wait left unexplained.
func TestHelmReleaseReadyExprOtherNamespace(t *testing.T) {
	needEnv(t)
	const ns, other = "fc-hr-readyexpr-ns", "fc-hr-readyexpr-backend"
	back := newFixture(t, other)
	back.versionedHelmRelease("backend", "v1.2.3", nil, cond("Ready", "True", "UpgradeSucceeded", "Helm upgrade succeeded for release "+other+"/backend.v3 with chart backend@1.2.3"))
	f := newFixture(t, ns)
	f.gitRepo("fleet", rev1)
	f.ks(readyKS("apps", rev1))
	f.versionedHelmRelease("frontend", "v1.2.4", map[string]string{other + "/backend": lockstepHR},
		cond("Ready", "False", "DependencyNotReady", "dependency '"+other+"/backend' is not ready according to readyExpr eval"))
	res, code := decode(t, "-n", ns)
	if code != 1 || len(res.RootCauses) != 1 || res.RootCauses[0].Reason != flux.ReasonReadyExprFalse ||
		!strings.Contains(strings.Join(res.RootCauses[0].Explanation, " "), "helmreleases.helm.toolkit.fluxcd.io/backend -n "+other) {
		t.Errorf("exit %d, root causes %+v; want 1 and the frontend's readyExpr on %s/backend", code, res.RootCauses, other)
	}
}
