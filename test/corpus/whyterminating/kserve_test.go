package whyterminating_test

import "testing"

// Report: https://github.com/opendatahub-io/opendatahub-operator/issues/3808 ("KServe webhook
// configurations block namespace deletion during e2e teardown"): the namespace opendatahub
// stays Terminating with "failed calling webhook
// \"llminferenceserviceconfig.kserve-webhook-server.v1alpha2.validator\" ... service
// \"llmisvc-webhook-server-service\" not found": the cluster-scoped
// ValidatingWebhookConfiguration (failurePolicy Fail) intercepts the DELETE of the
// LLMInferenceServiceConfigs left in the namespace, and its Service was already deleted. The
// fix: remove the webhook configuration (its backend is gone for good), after which the
// namespace controller finishes.
//
// Modelled on KServe's llmisvc webhook configuration (config/llmisvc, serving.kserve.io
// v1alpha2 llminferenceserviceconfigs, as the report quotes its name, service and path) and
// the CRD llminferenceserviceconfigs.serving.kserve.io, as the teardown leaves them: the
// webhook's Service and Deployment gone with the namespace's other content.
func TestCorpusKServeWebhookBlocksNamespace(t *testing.T) {
	replay{
		crds: []crd{
			{group: "serving.kserve.io", kind: "LLMInferenceServiceConfig", plural: "llminferenceserviceconfigs", namespaced: true, versions: []string{"v1alpha2", "v1alpha1"}},
			{group: "serving.kserve.io", kind: "LLMInferenceService", plural: "llminferenceservices", namespaced: true, versions: []string{"v1alpha2", "v1alpha1"}},
		},
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: opendatahub
---
apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceServiceConfig
metadata:
  name: kserve-config-llm-template
  namespace: opendatahub
spec:
  template:
    containers:
    - name: main
      image: ghcr.io/llm-d/llm-d:v0.2.0
---
apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceServiceConfig
metadata:
  name: kserve-config-llm-scheduler
  namespace: opendatahub
spec:
  router:
    scheduler: {}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: llminferenceserviceconfig.serving.kserve.io
  labels:
    app.kubernetes.io/name: llmisvc-controller-manager
    app.kubernetes.io/part-of: kserve
webhooks:
- name: llminferenceserviceconfig.kserve-webhook-server.v1alpha2.validator
  admissionReviewVersions: ["v1"]
  sideEffects: None
  failurePolicy: Fail
  timeoutSeconds: 10
  clientConfig:
    service:
      name: llmisvc-webhook-server-service
      namespace: opendatahub
      path: /validate-serving-kserve-io-v1alpha2-llminferenceserviceconfig
      port: 443
  rules:
  - apiGroups: ["serving.kserve.io"]
    apiVersions: ["v1alpha2"]
    operations: ["CREATE", "UPDATE", "DELETE"]
    resources: ["llminferenceserviceconfigs"]
`,
		deletes: []string{"Namespace//opendatahub"},
	}.run(t)

	d := diagnose(t, "namespace", "opendatahub")
	d.exit(1, "STUCK")
	f := d.finalizer("namespaces/opendatahub", "kubernetes")
	d.blocker(f, "validatingwebhookconfigurations.admissionregistration.k8s.io/llminferenceserviceconfig.serving.kserve.io", "webhook-rejects-delete")
	d.firstFix(f, deleteWebhookConfig)
}
