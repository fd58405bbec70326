package whyterminating_test

import "testing"

// Report: https://github.com/kubernetes-retired/multi-tenancy/issues/1255 (HNC, v0.6): the HNC
// manager was deleted with its all-in-one manifest (`kubectl delete -f hnc-manager.yaml`), and the
// CRDs stayed Terminating. Listing the anchors failed: "conversion webhook for
// hnc.x-k8s.io/v1alpha1, Kind=SubnamespaceAnchor failed: Post
// "https://hnc-webhook-service.hnc-system.svc:443/convert?timeout=30s": service
// "hnc-webhook-service" not found". What the reporter did: delete the validating webhook
// configuration that still pointed at the gone service, then get the CRDs deleted, then reinstall
// HNC. The maintainers' guidance of that time (#1320): delete the CRDs while the manager runs and
// let it remove the finalizers of the anchors and hierarchy configurations. With the manager gone,
// the instances' finalizers (hnc.x-k8s.io on anchors) stay, so the API server's
// customresourcecleanup finalizer on the CRD waits for them; the conversion webhook and the
// fail-closed validating webhook both name a Service that no longer exists. Removing the CRD's
// own finalizer is not the fix (it strands the instances in storage); the way out is to bring
// HNC back (which removes its finalizers) or to delete the webhook configuration and then remove
// the instances' finalizers by hand.
//
// Modelled on hnc-manager.yaml of HNC v0.6: the CRDs of hnc.x-k8s.io (served at v1alpha2, the
// storage version, and v1alpha1, converted by the webhook at
// hnc-system/hnc-webhook-service), the ValidatingWebhookConfiguration
// hnc-validating-webhook-configuration (failurePolicy Fail) that stays, and an anchor with the
// subnamespace it made; the namespace hnc-system (manager, Service) is gone.
func TestCorpusHNCCRDsAfterTheManagerAndItsWebhookServiceWereDeleted(t *testing.T) {
	hnc := map[string]string{"app.kubernetes.io/part-of": "hnc"}
	conv := "hnc-system/hnc-webhook-service"
	replay{
		crds: []crd{
			{group: "hnc.x-k8s.io", kind: "SubnamespaceAnchor", plural: "subnamespaceanchors", namespaced: true, versions: []string{"v1alpha2", "v1alpha1"}, labels: hnc, conversion: conv},
			{group: "hnc.x-k8s.io", kind: "HierarchyConfiguration", plural: "hierarchyconfigurations", namespaced: true, versions: []string{"v1alpha2", "v1alpha1"}, labels: hnc, conversion: conv},
			{group: "hnc.x-k8s.io", kind: "HNCConfiguration", plural: "hncconfigurations", versions: []string{"v1alpha2", "v1alpha1"}, labels: hnc, conversion: conv},
		},
		install: `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: hnc-validating-webhook-configuration
webhooks:
- name: subnamespaceanchors.hnc.x-k8s.io
  admissionReviewVersions: ["v1", "v1beta1"]
  sideEffects: None
  failurePolicy: Fail
  clientConfig:
    service:
      name: hnc-webhook-service
      namespace: hnc-system
      path: /validate-hnc-x-k8s-io-v1alpha2-subnamespaceanchors
  rules:
  - apiGroups: ["hnc.x-k8s.io"]
    apiVersions: ["v1alpha2"]
    operations: ["CREATE", "DELETE"]
    resources: ["subnamespaceanchors"]
- name: hierarchyconfigurations.hnc.x-k8s.io
  admissionReviewVersions: ["v1", "v1beta1"]
  sideEffects: None
  failurePolicy: Fail
  clientConfig:
    service:
      name: hnc-webhook-service
      namespace: hnc-system
      path: /validate-hnc-x-k8s-io-v1alpha2-hierarchyconfigurations
  rules:
  - apiGroups: ["hnc.x-k8s.io"]
    apiVersions: ["v1alpha2"]
    operations: ["CREATE", "UPDATE"]
    resources: ["hierarchyconfigurations"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: team-a
---
apiVersion: v1
kind: Namespace
metadata:
  name: team-a-dev
  annotations:
    hnc.x-k8s.io/subnamespace-of: team-a
  labels:
    team-a.tree.hnc.x-k8s.io/depth: "1"
    team-a-dev.tree.hnc.x-k8s.io/depth: "0"
---
apiVersion: hnc.x-k8s.io/v1alpha2
kind: SubnamespaceAnchor
metadata:
  name: team-a-dev
  namespace: team-a
  finalizers:
  - hnc.x-k8s.io
status:
  status: ok
`,
		deletes: []string{"CustomResourceDefinition//subnamespaceanchors.hnc.x-k8s.io"},
	}.run(t)

	d := diagnose(t, "customresourcedefinition", "subnamespaceanchors.hnc.x-k8s.io")
	d.exit(1, "STUCK")
	f := d.finalizer("customresourcedefinitions.apiextensions.k8s.io/subnamespaceanchors.hnc.x-k8s.io", "customresourcecleanup.apiextensions.k8s.io")
	// The anchor that remains is what the CRD waits for, and the Service both webhooks name is
	// gone; the CRD's own finalizer is never the first thing to strip.
	d.names(f, "subnamespaceanchors.hnc.x-k8s.io/team-a-dev -n team-a", "services/hnc-webhook-service -n hnc-system")
	d.notFirstFix(f, stripFinalizer)
	a := d.finalizer("subnamespaceanchors.hnc.x-k8s.io/team-a-dev -n team-a", "hnc.x-k8s.io")
	d.verdict(a, controllerAbsent, finalizerOrphaned)
	d.noRunningRemover(a)
	d.never(a, readLogs)
	d.offers(a, reinstall, stripFinalizer)
}
