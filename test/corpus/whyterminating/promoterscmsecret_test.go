package whyterminating_test

import (
	"testing"
	"time"
)

// Development case of the class "a product's finalizer on an object nothing of the product
// refers to" (docs/why-terminating.md), written on branch leftclass after the held-back Gravitee
// case (heldback18_case02) showed it.
//
// Report: https://github.com/argoproj-labs/gitops-promoter/issues/1766 ("ScmProvider secret
// finalizer not removed when secretRef changes"): the controller puts
// scmprovider.promoter.argoproj.io/secret-finalizer on the Secret an ScmProvider's spec.secretRef
// names, and removes it only when that ScmProvider is deleted, using its current secretRef. The
// reporters switched an ScmProvider from a GitLab to a Gitea secret; the old Secret
// scm-labels-gitlab-secret kept the finalizer, could no longer be deleted and held the namespace.
// Nothing refers to it, so removing the finalizer is the way out (the fix removes it from
// Secrets no provider references).
//
// Modelled on the project's kustomize install (config/default): namespace promoter-system, the
// ServiceAccount promoter-controller-manager, its ClusterRole promoter-manager-role (secrets get,
// list, watch, update, patch; the promoter.argoproj.io types with their finalizers and status)
// and binding, the Deployment promoter-controller-manager; the CRDs scmproviders,
// clusterscmproviders and gitrepositories of promoter.argoproj.io, with their schemas' reference
// fields (trimmed): a provider's spec.secretRef, a repository's spec.scmProviderRef. In namespace
// scm-labels: the ScmProvider scm-labels-scm naming the Gitea secret, a GitRepository naming the
// provider, and the old Secret, deleted since.
func TestCorpusPromoterOldSCMSecretAfterItsProviderSwitched(t *testing.T) {
	replay{
		crds: []crd{
			{group: "promoter.argoproj.io", kind: "ScmProvider", plural: "scmproviders", namespaced: true, versions: []string{"v1alpha1"}, schema: scmProviderSchema},
			{group: "promoter.argoproj.io", kind: "ClusterScmProvider", plural: "clusterscmproviders", versions: []string{"v1alpha1"}, schema: scmProviderSchema},
			{group: "promoter.argoproj.io", kind: "GitRepository", plural: "gitrepositories", namespaced: true, versions: []string{"v1alpha1"}, schema: gitRepositorySchema},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: promoter-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: promoter-controller-manager
  namespace: promoter-system
  labels: {app.kubernetes.io/name: promoter, app.kubernetes.io/managed-by: kustomize}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: promoter-manager-role
rules:
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "list", "patch", "update", "watch"]
- apiGroups: ["promoter.argoproj.io"]
  resources: ["scmproviders", "clusterscmproviders", "gitrepositories"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["promoter.argoproj.io"]
  resources: ["scmproviders/finalizers", "clusterscmproviders/finalizers", "gitrepositories/finalizers"]
  verbs: ["update"]
- apiGroups: ["promoter.argoproj.io"]
  resources: ["scmproviders/status", "clusterscmproviders/status", "gitrepositories/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: promoter-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: promoter-manager-role
subjects:
- kind: ServiceAccount
  name: promoter-controller-manager
  namespace: promoter-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: promoter-controller-manager
  namespace: promoter-system
  labels: {control-plane: controller-manager, app.kubernetes.io/name: promoter, app.kubernetes.io/managed-by: kustomize}
spec:
  replicas: 1
  selector:
    matchLabels: {control-plane: controller-manager}
  template:
    metadata:
      labels: {control-plane: controller-manager}
    spec:
      serviceAccountName: promoter-controller-manager
      containers:
      - name: manager
        image: quay.io/argoprojlabs/gitops-promoter:v0.14.0
        command: ["/gitops-promoter"]
        args: ["controller", "--leader-elect"]
---
apiVersion: v1
kind: Namespace
metadata:
  name: scm-labels
`,
		objects: `
apiVersion: v1
kind: Secret
metadata:
  name: scm-labels-gitea-secret
  namespace: scm-labels
  finalizers: [scmprovider.promoter.argoproj.io/secret-finalizer]
type: Opaque
stringData:
  token: gitea-token
---
apiVersion: v1
kind: Secret
metadata:
  name: scm-labels-gitlab-secret
  namespace: scm-labels
  finalizers: [scmprovider.promoter.argoproj.io/secret-finalizer]
type: Opaque
stringData:
  token: gitlab-token
---
apiVersion: promoter.argoproj.io/v1alpha1
kind: ScmProvider
metadata:
  name: scm-labels-scm
  namespace: scm-labels
  finalizers: [scmprovider.promoter.argoproj.io/finalizer]
spec:
  secretRef:
    name: scm-labels-gitea-secret
  gitea:
    domain: gitea.example.com
---
apiVersion: promoter.argoproj.io/v1alpha1
kind: GitRepository
metadata:
  name: scm-labels-repo
  namespace: scm-labels
spec:
  gitea:
    owner: promoter
    name: scm-labels
  scmProviderRef:
    kind: ScmProvider
    name: scm-labels-scm
`,
		finalizersBy: map[string]string{
			"Secret/scm-labels/scm-labels-gitea-secret":  "gitops-promoter",
			"Secret/scm-labels/scm-labels-gitlab-secret": "gitops-promoter",
			"ScmProvider/scm-labels/scm-labels-scm":      "gitops-promoter",
		},
		deletes: []string{"Secret/scm-labels/scm-labels-gitlab-secret"},
	}.run(t)

	// Asked after the namespace's deletion had hung for half an hour.
	d := diagnoseAfter(t, 30*time.Minute, "secrets", "scm-labels-gitlab-secret", "-n", "scm-labels")
	d.exit(1, "STUCK")
	f := d.finalizer("secrets/scm-labels-gitlab-secret -n scm-labels", "scmprovider.promoter.argoproj.io/secret-finalizer")
	// The controller runs and may update Secrets: it is the remover, and it keeps the finalizer
	// though no provider names the Secret.
	d.remover(f, "deployments.apps/promoter-controller-manager -n promoter-system", true)
	// Nothing refers to the Secret: removing the finalizer comes first, not the logs, and says
	// which of the product's types were read.
	d.firstFix(f, stripFinalizer)
	if f.Remedies[0].LastResort {
		t.Errorf("finalizer %s: the strip is first but still a last resort: %q", f.Name, remedyCodes(f))
	}
	d.mentions(f, "ScmProvider spec.secretRef", "scmproviders.promoter.argoproj.io", "clusterscmproviders.promoter.argoproj.io")
	d.never(f, reinstall, restoreController)
}

// scmProviderSchema is the ScmProvider (and ClusterScmProvider) CRD's schema, trimmed to the
// reference to its credentials and two of its providers.
const scmProviderSchema = `
type: object
properties:
  apiVersion: {type: string}
  kind: {type: string}
  metadata: {type: object}
  spec:
    type: object
    properties:
      secretRef:
        type: object
        properties:
          name: {type: string}
      github:
        type: object
        properties:
          domain: {type: string}
          appID: {type: integer}
      gitea:
        type: object
        properties:
          domain: {type: string}
  status:
    type: object
    x-kubernetes-preserve-unknown-fields: true
`

// gitRepositorySchema is the GitRepository CRD's schema, trimmed to its provider reference.
const gitRepositorySchema = `
type: object
properties:
  apiVersion: {type: string}
  kind: {type: string}
  metadata: {type: object}
  spec:
    type: object
    properties:
      gitea:
        type: object
        properties:
          owner: {type: string}
          name: {type: string}
      scmProviderRef:
        type: object
        properties:
          kind: {type: string}
          name: {type: string}
  status:
    type: object
    x-kubernetes-preserve-unknown-fields: true
`
