package whyterminating_test

import (
	"testing"
	"time"
)

// Held back in batch 18, run once by the lead (2026-12-03, main c8e457e): passed its assertions,
// wrong in part at first sight: "read its logs" first, and that no ManagementContext names the
// Secret any more (which makes the strip safe) is not said. Fixed on branch leftclass
// (docs/why-terminating.md, "A product's finalizer on an object nothing of the product refers
// to"): the strip first, saying no ManagementContext refers to the Secret and what was read; the
// assertions now demand that, from the fix the maintainers merged. The ManagementContext CRD now
// carries its schema's spec.auth.secretRef (the chart's CRD, trimmed), which is how the cluster
// says a context can refer to a Secret.
//
// Report: https://github.com/gravitee-io/gravitee-kubernetes-operator/pull/1344 ("fix: remove
// finalizer from un-referenced mgtCtx secrets", GKO-1368): the Gravitee Kubernetes Operator puts
// finalizers.gravitee.io/managementcontextSecret on each Secret a ManagementContext names in
// spec.auth.secretRef, so that the credentials cannot go while a context uses them. Once no
// context references a Secret any more (here: the context was pointed at rotated credentials),
// the operator left the finalizer on the old Secret, and deleting that Secret hangs for ever
// although the operator runs. The fix removes the finalizer from Secrets no context references;
// by hand, the way out is to remove the finalizer: nothing uses the Secret, and nothing outside
// the cluster hangs on it.
//
// Modelled on the operator's Helm chart (helm/gko, 4.x): namespace gko-system, the ServiceAccount
// gko-controller-manager, its ClusterRole gko-controller-manager-cluster-role (secrets create,
// get, list, update, watch; managementcontexts and apidefinitions of gravitee.io, with their
// finalizers and status) and binding, the Deployment gko-controller-manager; the CRDs
// managementcontexts and apidefinitions of gravitee.io. In namespace apim: the ManagementContext
// dev-ctx, now naming the Secret apim-admin-credentials-2026-11; the old Secret
// apim-admin-credentials, whose finalizer the operator's manager added, deleted since.
func TestCorpusGraviteeContextSecretFinalizerLeftAfterItsContextLetGo(t *testing.T) {
	replay{
		crds: []crd{
			{group: "gravitee.io", kind: "ManagementContext", plural: "managementcontexts", namespaced: true, versions: []string{"v1alpha1"}, schema: managementContextSchema},
			{group: "gravitee.io", kind: "ApiDefinition", plural: "apidefinitions", namespaced: true, versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: gko-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: gko-controller-manager
  namespace: gko-system
  labels: {app.kubernetes.io/instance: graviteeio-gko, app.kubernetes.io/managed-by: Helm, app.kubernetes.io/name: gko}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: gko-controller-manager-cluster-role
  labels: {app.kubernetes.io/instance: graviteeio-gko, app.kubernetes.io/managed-by: Helm, app.kubernetes.io/name: gko}
rules:
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["create", "get", "list", "update", "watch"]
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["create", "delete", "get", "list", "update", "watch"]
- apiGroups: ["gravitee.io"]
  resources: ["apidefinitions", "managementcontexts"]
  verbs: ["get", "list", "update", "watch"]
- apiGroups: ["gravitee.io"]
  resources: ["apidefinitions/finalizers", "managementcontexts/finalizers"]
  verbs: ["update"]
- apiGroups: ["gravitee.io"]
  resources: ["apidefinitions/status", "managementcontexts/status"]
  verbs: ["get", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: gko-controller-manager-cluster-role-binding
  labels: {app.kubernetes.io/instance: graviteeio-gko, app.kubernetes.io/managed-by: Helm, app.kubernetes.io/name: gko}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: gko-controller-manager-cluster-role
subjects:
- kind: ServiceAccount
  name: gko-controller-manager
  namespace: gko-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: gko-controller-manager
  namespace: gko-system
  labels: {control-plane: controller-manager, app.kubernetes.io/instance: graviteeio-gko, app.kubernetes.io/managed-by: Helm, app.kubernetes.io/name: gko, app.kubernetes.io/version: 4.8.3}
spec:
  replicas: 1
  selector:
    matchLabels: {control-plane: controller-manager}
  template:
    metadata:
      labels: {control-plane: controller-manager}
    spec:
      serviceAccountName: gko-controller-manager
      terminationGracePeriodSeconds: 10
      containers:
      - name: manager
        image: graviteeio/kubernetes-operator:4.8.3
        command: ["/manager"]
        ports:
        - {containerPort: 8081, name: probes, protocol: TCP}
---
apiVersion: v1
kind: Namespace
metadata:
  name: apim
`,
		objects: `
apiVersion: v1
kind: Secret
metadata:
  name: apim-admin-credentials-2026-11
  namespace: apim
  finalizers: [finalizers.gravitee.io/managementcontextSecret]
type: Opaque
stringData:
  username: gko-admin
  password: rotated-2026-11
---
apiVersion: v1
kind: Secret
metadata:
  name: apim-admin-credentials
  namespace: apim
  finalizers: [finalizers.gravitee.io/managementcontextSecret]
type: Opaque
stringData:
  username: gko-admin
  password: before-rotation
---
apiVersion: gravitee.io/v1alpha1
kind: ManagementContext
metadata:
  name: dev-ctx
  namespace: apim
  finalizers: [finalizers.gravitee.io/managementcontextdeletion]
spec:
  baseUrl: https://apim-api.example.com
  environmentId: DEFAULT
  organizationId: DEFAULT
  auth:
    secretRef:
      name: apim-admin-credentials-2026-11
      namespace: apim
`,
		finalizersBy: map[string]string{
			"Secret/apim/apim-admin-credentials-2026-11": "manager",
			"Secret/apim/apim-admin-credentials":         "manager",
			"ManagementContext/apim/dev-ctx":             "manager",
		},
		deletes: []string{"Secret/apim/apim-admin-credentials"},
	}.run(t)

	// Asked an hour after the deletion: the Secret stays, as the report's did.
	d := diagnoseAfter(t, time.Hour, "secrets", "apim-admin-credentials", "-n", "apim")
	d.exit(1, "STUCK")
	f := d.finalizer("secrets/apim-admin-credentials -n apim", "finalizers.gravitee.io/managementcontextSecret")
	// The operator runs and may update Secrets: it is the remover, and it keeps the finalizer
	// although no ManagementContext names the Secret any more.
	d.remover(f, "deployments.apps/gko-controller-manager -n gko-system", true)
	// Nothing uses the Secret: removing the finalizer is the way out, first (the maintainers' fix
	// removes it from Secrets no context references), not the operator's logs; and the operator
	// runs, so nothing is to be reinstalled or restored.
	d.firstFix(f, stripFinalizer)
	if f.Remedies[0].LastResort {
		t.Errorf("finalizer %s: the strip is first but still a last resort: %q", f.Name, remedyCodes(f))
	}
	// Said as evidence: which of the product's types could refer to the Secret, and that they
	// were read.
	d.mentions(f, "ManagementContext spec.auth.secretRef", "managementcontexts.gravitee.io")
	d.never(f, reinstall, restoreController)
}

// managementContextSchema is the ManagementContext CRD's schema in the operator's chart (4.x),
// trimmed to its spec's connection fields: auth.secretRef names the Secret holding the
// credentials.
const managementContextSchema = `
type: object
properties:
  apiVersion: {type: string}
  kind: {type: string}
  metadata: {type: object}
  spec:
    type: object
    properties:
      baseUrl: {type: string}
      environmentId: {type: string}
      organizationId: {type: string}
      auth:
        type: object
        properties:
          bearerToken: {type: string}
          credentials:
            type: object
            properties:
              username: {type: string}
              password: {type: string}
          secretRef:
            type: object
            properties:
              name: {type: string}
              namespace: {type: string}
  status:
    type: object
    x-kubernetes-preserve-unknown-fields: true
`
