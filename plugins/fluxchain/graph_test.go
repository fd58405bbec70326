package fluxchain_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/testsupport/rbacwait"
)

// The walk of the Flux object graph: replays with status as the controllers write it, each
// cause the deepest object not Ready for its own reason, what waits above it held back.

// helmRepo creates a HelmRepository with its Ready condition (and spec.secretRef when secret
// is set).
func (f *fixture) helmRepo(name, secret string, ready map[string]any) {
	f.t.Helper()
	spec := map[string]any{"url": "https://stefanprodan.github.io/podinfo2", "interval": "10m"}
	if secret != "" {
		spec["secretRef"] = map[string]any{"name": secret}
	}
	f.createAs(flux.ExtraGVRs["HelmRepository"], &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "HelmRepository",
		"metadata": map[string]any{"name": name, "namespace": f.ns}, "spec": spec,
	}}, map[string]any{"conditions": []any{ready}})
}

// helmChart creates the HelmChart helm-controller generates for HelmRelease hr (named
// `<namespace>-<hr>`), from HelmRepository repo, with no artifact: source-controller's
// helmchart_controller.go:461 (NoSourceArtifact) when the repository has none.
func (f *fixture) helmChart(hr, repo string) string {
	f.t.Helper()
	name := f.ns + "-" + hr
	f.createAs(flux.ExtraGVRs["HelmChart"], &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "HelmChart",
		"metadata": map[string]any{"name": name, "namespace": f.ns},
		"spec": map[string]any{"chart": hr, "interval": "10m", "reconcileStrategy": "ChartVersion",
			"sourceRef": map[string]any{"kind": "HelmRepository", "name": repo}},
	}}, map[string]any{"conditions": []any{
		cond("Ready", "False", "NoSourceArtifact", "no artifact available for HelmRepository source '"+repo+"'"),
		cond("FetchFailed", "True", "NoSourceArtifact", "no artifact available for HelmRepository source '"+repo+"'"),
	}})
	return name
}

// chartWaitingHR is HelmRelease name waiting for its HelmChart, as helm-controller writes it
// (helmrelease_controller.go:301, SourceNotReady with isReady's message, :892).
func (f *fixture) chartWaitingHR(name, chart string) {
	f.t.Helper()
	f.appliedHR(name, map[string]any{"helmChart": f.ns + "/" + chart, "conditions": []any{
		cond("Ready", "False", "SourceNotReady", "HelmChart '"+f.ns+"/"+chart+"' is not ready: does not have an artifact"),
	}})
}

// causeNamed returns the root cause whose object is ref.
func causeNamed(t *testing.T, res []flux.RootCause, ref string) flux.RootCause {
	t.Helper()
	for _, rc := range res {
		if rc.Object == ref {
			return rc
		}
	}
	t.Fatalf("no cause %s among %+v", ref, res)
	return flux.RootCause{}
}

// A HelmRelease whose HelmChart has no artifact because its HelmRepository answers 404: the
// cause is the HelmRepository (source-controller's helmrepository_controller.go:455, "failed to
// fetch Helm repository index"), the HelmChart waits on it, the HelmRelease and the
// Kustomization whose health check waits for it are held back. It stopped at "HelmChart … is
// not ready" before. Replays the HelmChart-not-ready FAQ of
// https://github.com/fluxcd/flux2/pull/821 with the index URL answering 404 as in
// https://github.com/neo4j/helm-charts/issues/347.
func TestHelmRepository404IsTheCause(t *testing.T) {
	needEnv(t)
	f := newFixture(t, "fc-graph-helmrepo")
	f.gitRepo("fleet", rev1)
	s := readyKS("apps", rev1)
	s.ready = cond("Ready", "False", "HealthCheckFailed", "health check failed after 5m0.02s: timeout waiting for: [HelmRelease/"+f.ns+"/podinfo status: 'Failed']")
	f.ks(s)
	msg := "failed to fetch Helm repository index: failed to cache index to temporary file: failed to fetch https://stefanprodan.github.io/podinfo2/index.yaml : 404 Not Found"
	f.helmRepo("podinfo", "", cond("Ready", "False", "Failed", msg))
	f.chartWaitingHR("podinfo", f.helmChart("podinfo", "podinfo"))
	res, code := decode(t, "-n", f.ns)
	if code != 1 || len(res.RootCauses) != 1 {
		t.Fatalf("exit %d, causes %+v, want 1 and one cause", code, res.RootCauses)
	}
	rc := causeNamed(t, res.RootCauses, "helmrepositories.source.toolkit.fluxcd.io/podinfo -n "+f.ns)
	if rc.Reason != "Failed" || rc.Message != msg || rc.Code != flux.CodeSourceNotReady ||
		!slices.Equal(rc.Waiters, []string{"helmcharts.source.toolkit.fluxcd.io/" + f.ns + "-podinfo -n " + f.ns}) ||
		!slices.Equal(rc.HeldBack, []string{f.ns + "/podinfo"}) || !slices.Equal(rc.Tiers, []string{f.ns + "/apps"}) {
		t.Errorf("cause %+v", rc)
	}
}

// A HelmRelease whose chartRef is an OCIRepository with a tag that does not exist
// (source-controller's ocirepository_controller.go:501, OCIArtifactPullFailed), applied with it
// by a Kustomization whose health check waits for both: the OCIRepository is the one cause, the
// HelmRelease (helm-controller's SourceNotReady, helmrelease_controller.go:301) and the
// Kustomization wait on it. Before, the Kustomization was the cause with the source beside it as
// a peer. Replays https://github.com/fluxcd/helm-controller/pull/905 (chartRef to an
// OCIRepository) with the tag missing as in https://github.com/fluxcd/flux2/issues/4814.
func TestChartRefOCIRepositoryIsTheCause(t *testing.T) {
	needEnv(t)
	f := newFixture(t, "fc-graph-chartref")
	f.gitRepo("fleet", rev1)
	s := readyKS("apps", rev1)
	s.ready = cond("Ready", "False", "HealthCheckFailed", "health check failed after 5m0.01s: timeout waiting for: [HelmRelease/"+f.ns+"/podinfo status: 'Failed', OCIRepository/"+f.ns+"/podinfo status: 'Failed']")
	f.ks(s)
	msg := "failed to determine artifact digest: GET https://ghcr.io/v2/stefanprodan/charts/podinfo/manifests/6.99.0: MANIFEST_UNKNOWN: manifest unknown; unknown tag=6.99.0"
	f.createAs(flux.SourceGVRs["OCIRepository"], &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "OCIRepository",
		"metadata": map[string]any{"name": "podinfo", "namespace": f.ns},
		"spec":     map[string]any{"url": "oci://ghcr.io/stefanprodan/charts/podinfo", "interval": "10m", "ref": map[string]any{"tag": "6.99.0"}},
	}}, map[string]any{"conditions": []any{
		cond("Ready", "False", "OCIArtifactPullFailed", msg), cond("FetchFailed", "True", "OCIArtifactPullFailed", msg)}})
	f.create(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
		"metadata": map[string]any{"name": "podinfo", "namespace": f.ns, "labels": map[string]any{
			"kustomize.toolkit.fluxcd.io/name": "apps", "kustomize.toolkit.fluxcd.io/namespace": f.ns}},
		"spec": map[string]any{"interval": "10m", "chartRef": map[string]any{"kind": "OCIRepository", "name": "podinfo"}},
	}}, map[string]any{"conditions": []any{
		cond("Ready", "False", "SourceNotReady", "OCIRepository '"+f.ns+"/podinfo' is not ready: does not have an artifact")}})
	res, code := decode(t, "-n", f.ns)
	if code != 1 || len(res.RootCauses) != 1 {
		t.Fatalf("exit %d, causes %+v, want 1 and one cause", code, res.RootCauses)
	}
	rc := causeNamed(t, res.RootCauses, "ocirepositories.source.toolkit.fluxcd.io/podinfo -n "+f.ns)
	if rc.Reason != "OCIArtifactPullFailed" || rc.Message != msg || !slices.Equal(rc.HeldBack, []string{f.ns + "/podinfo"}) ||
		!slices.Equal(rc.Tiers, []string{f.ns + "/apps"}) || !slices.Equal(rc.BlastRadius, []string{f.ns + "/apps"}) {
		t.Errorf("cause %+v", rc)
	}
}

// resourceSetCRD serves fluxcd.controlplane.io/v1 ResourceSets with a status subresource: the
// Flux Operator's API group, version and names, its schema left open.
func resourceSetCRD(t *testing.T) {
	t.Helper()
	open := true
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "resourcesets.fluxcd.controlplane.io"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "fluxcd.controlplane.io", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "resourcesets", Singular: "resourceset", Kind: "ResourceSet", ListKind: "ResourceSetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: &open}}}},
		},
	}
	if err := env.ApplyCRDs(context.Background(), crd); err != nil {
		t.Fatal(err)
	}
}

// A Flux Operator ResourceSet whose HelmRelease exhausted its upgrade retries: the ResourceSet's
// health check fails (flux-operator resourceset_controller.go:209, ReconciliationFailed, with
// the not-Ready Flux objects it applied, common.go:113) and so does the Kustomization that applies
// it. The cause is the HelmRelease, read itself (Stalled RetriesExceeded, helm-controller's
// atomic_release.go), with its release state; the ResourceSet and the Kustomization wait on
// it. Before, the ResourceSet's message was the cause and the HelmRelease was never read.
// Replays the ResourceSet wait of https://github.com/controlplaneio-fluxcd/flux-operator/pull/98
// with the retries exhausted of https://github.com/fluxcd/flux2/issues/5592.
func TestResourceSetHelmReleaseIsTheCause(t *testing.T) {
	needEnv(t)
	resourceSetCRD(t)
	f := newFixture(t, "fc-graph-rset")
	f.extraController("flux-operator") // the ResourceSet's controller, up
	f.gitRepo("fleet", rev1)
	s := readyKS("apps", rev1)
	s.ready = cond("Ready", "False", "HealthCheckFailed", "health check failed after 5m0.01s: timeout waiting for: [ResourceSet/"+f.ns+"/apps status: 'Failed']")
	s.inventory = []string{f.ns + "_apps_fluxcd.controlplane.io_ResourceSet"}
	f.ks(s)
	upgrade := "Helm upgrade failed for release " + f.ns + "/podinfo with chart podinfo@6.6.0: context deadline exceeded"
	f.createAs(flux.ExtraGVRs["ResourceSet"], &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "fluxcd.controlplane.io/v1", "kind": "ResourceSet",
		"metadata": map[string]any{"name": "apps", "namespace": f.ns},
		"spec":     map[string]any{"wait": true},
	}}, map[string]any{
		"conditions": []any{cond("Ready", "False", "ReconciliationFailed",
			"reconciliation failed: failed early due to stalled resources: [HelmRelease/"+f.ns+"/podinfo status: 'Failed']\nHelmRelease/"+f.ns+"/podinfo status: "+upgrade)},
		"inventory": map[string]any{"entries": []any{map[string]any{"id": f.ns + "_podinfo_helm.toolkit.fluxcd.io_HelmRelease", "v": "v2"}}},
	})
	f.create(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
		"metadata": map[string]any{"name": "podinfo", "namespace": f.ns, "labels": map[string]any{
			"resourceset.fluxcd.controlplane.io/name": "apps", "resourceset.fluxcd.controlplane.io/namespace": f.ns}},
		"spec": map[string]any{"interval": "10m", "chart": map[string]any{"spec": map[string]any{"chart": "podinfo",
			"sourceRef": map[string]any{"kind": "HelmRepository", "name": "podinfo"}}}},
	}}, map[string]any{
		"conditions": []any{
			cond("Ready", "False", "UpgradeFailed", upgrade),
			cond("Stalled", "True", "RetriesExceeded", "Failed to upgrade after 4 attempt(s)"),
			cond("Released", "False", "UpgradeFailed", upgrade),
		},
		"lastAttemptedReleaseAction": "upgrade", "upgradeFailures": int64(4), "failures": int64(4),
	})
	res, code := decode(t, "-n", f.ns)
	if code != 1 || len(res.RootCauses) != 1 {
		t.Fatalf("exit %d, causes %+v, want 1 and one cause", code, res.RootCauses)
	}
	rc := causeOf(t, res.RootCauses, f.ns, "podinfo")
	if rc.Code != flux.CodeHelmRetriesExhausted || !slices.Equal(rc.Waiters, []string{"resourcesets.fluxcd.controlplane.io/apps -n " + f.ns}) ||
		!slices.Equal(rc.Tiers, []string{f.ns + "/apps"}) {
		t.Errorf("cause %+v", rc)
	}
	// liveness covers the ResourceSet's controller too
	i := slices.IndexFunc(res.Liveness.Controllers, func(c flux.Controller) bool { return c.Name == "flux-operator" })
	if i < 0 || !res.Liveness.Controllers[i].Up || !slices.Equal(res.Liveness.Controllers[i].Kinds, []string{"ResourceSet"}) {
		t.Errorf("liveness controllers %+v, want flux-operator up for ResourceSet", res.Liveness.Controllers)
	}
}

// A HelmRepository whose auth Secret does not exist (source-controller's
// internal/helm/getter/client_opts.go:123 via helmrepository_controller.go:422,
// AuthenticationFailed): the cause is the Secret, named in its namespace and read by its
// metadata only; the HelmRepository and HelmChart wait on it, the HelmRelease is held back.
// Replays https://github.com/fluxcd/source-controller/issues/1344's HelmRepository secretRef
// with the Secret missing.
func TestMissingSecretIsTheCause(t *testing.T) {
	needEnv(t)
	f := newFixture(t, "fc-graph-secret")
	f.gitRepo("fleet", rev1)
	f.ks(readyKS("apps", rev1))
	f.helmRepo("podinfo", "podinfo-auth", cond("Ready", "False", "AuthenticationFailed",
		"failed to get authentication secret '"+f.ns+"/podinfo-auth': secrets \"podinfo-auth\" not found"))
	f.chartWaitingHR("podinfo", f.helmChart("podinfo", "podinfo"))
	res, code := decode(t, "-n", f.ns)
	if code != 1 || len(res.RootCauses) != 1 {
		t.Fatalf("exit %d, causes %+v, want 1 and one cause", code, res.RootCauses)
	}
	rc := causeNamed(t, res.RootCauses, "secrets/podinfo-auth -n "+f.ns)
	if rc.Code != flux.CodeSecretNotFound || rc.Reason != flux.ReasonNotFound || !slices.Equal(rc.HeldBack, []string{f.ns + "/podinfo"}) ||
		len(rc.Waiters) != 2 || !strings.HasPrefix(rc.Waiters[1], "helmrepositories.") {
		t.Errorf("cause %+v", rc)
	}
}

// The same HelmRepository, read by a user who may read Flux's objects and its controllers but
// not Secrets: whether the Secret exists is not known, so the cause is the Secret unread
// (object-unread), the read is named under INCOMPLETE and the exit is 2 — never a missing Secret
// claimed, nor the HelmRepository blamed in its place.
func TestForbiddenSecretIsUnknown(t *testing.T) {
	needEnv(t)
	f := newFixture(t, "fc-graph-secret-rbac")
	f.gitRepo("fleet", rev1)
	f.ks(readyKS("apps", rev1))
	f.helmRepo("podinfo", "podinfo-auth", cond("Ready", "False", "AuthenticationFailed",
		"failed to get authentication secret '"+f.ns+"/podinfo-auth': secrets \"podinfo-auth\" not found"))
	f.chartWaitingHR("podinfo", f.helmChart("podinfo", "podinfo"))
	ctx := context.Background()
	rbac := f.kube.RbacV1()
	_, err := rbac.ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "flux-no-secrets"},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"kustomize.toolkit.fluxcd.io", "helm.toolkit.fluxcd.io", "source.toolkit.fluxcd.io"}, Resources: []string{"*"}, Verbs: []string{"get", "list"}},
			{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get", "list"}},
			{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}},
		}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = rbac.ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "flux-no-secrets"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "flux-no-secrets"},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: "flux-no-secrets", APIGroup: "rbac.authorization.k8s.io"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rbacwait.AwaitAllowed(t, f.kube, "flux-no-secrets", authorizationv1.ResourceAttributes{Namespace: f.ns, Verb: "list", Resource: "pods"})
	res, code := decode(t, "-n", f.ns, "--as=flux-no-secrets")
	if code != 2 || len(res.RootCauses) != 1 {
		t.Fatalf("exit %d, causes %+v, want 2 and one cause", code, res.RootCauses)
	}
	rc := causeNamed(t, res.RootCauses, "secrets/podinfo-auth -n "+f.ns)
	if rc.Code != flux.CodeObjectUnread || !strings.Contains(rc.Message, "forbidden") {
		t.Errorf("cause %+v", rc)
	}
	named := false
	for _, g := range res.Incomplete {
		named = named || strings.Contains(g.String(), "podinfo-auth")
	}
	if !named {
		t.Errorf("the forbidden Secret read is not among the incomplete reads: %+v", res.Incomplete)
	}
}

// extraController runs controller name (healthy) beside Flux's three, with its ServiceAccount.
func (f *fixture) extraController(name string) {
	f.t.Helper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := f.kube.CoreV1().ServiceAccounts("flux-system").Create(context.Background(), sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		f.t.Fatal(err)
	}
	f.controller(name, ctrlState{})
}

// A Kustomization that builds from an ExternalArtifact (Flux 2.7's ArtifactGenerator output)
// that exists and is Ready, as source-watcher writes it, with source-watcher up: HEALTHY. Before,
// ExternalArtifacts were not read and the chain reported its source missing (a MissingSource
// finding, exit 1). The layout is fluxcd/flux2-kustomize-helm-example's since Flux 2.7
// (https://github.com/fluxcd/flux2-kustomize-helm-example/tree/4f1a5b1).
func TestExternalArtifactSourceIsRead(t *testing.T) {
	needEnv(t)
	f := newFixture(t, "fc-graph-artifact")
	f.extraController("source-watcher")
	f.createAs(flux.ExtraGVRs["ExternalArtifact"], &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "ExternalArtifact",
		"metadata": map[string]any{"name": "apps", "namespace": f.ns},
		"spec":     map[string]any{"sourceRef": map[string]any{"apiVersion": "source.extensions.fluxcd.io/v1beta1", "kind": "ArtifactGenerator", "name": "flux-system"}},
	}}, map[string]any{
		"conditions": []any{cond("Ready", "True", "Succeeded", "stored artifact for revision '"+rev1+"'")},
		"artifact": map[string]any{"revision": rev1, "path": "p", "url": "http://source-watcher/p.tar.gz",
			"digest": "sha256:0", "lastUpdateTime": "2026-01-01T00:00:00Z"},
	})
	s := readyKS("apps", rev1)
	s.source, s.sourceKind = "apps", "ExternalArtifact"
	f.ks(s)
	res, code := decode(t, "-n", f.ns)
	if code != 0 || res.Verdict != "HEALTHY" || len(res.Findings) != 0 {
		t.Errorf("exit %d verdict %s findings %+v, want 0 HEALTHY and none", code, res.Verdict, res.Findings)
	}
}
