package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/metacontroller/metacontroller/issues/252 ("Describe migration from
// GCP metacontroller"): after an upgrade from GoogleCloudPlatform/metacontroller to
// metacontroller v1.5.6, objects created under the old release fail to delete. Their finalizer
// metacontroller.app/compositecontroller-<name> is the old release's; the new one writes and
// removes metacontroller.io/compositecontroller-<name> (the prefix changed in a refactoring), so
// nothing will ever remove the old one. The maintainer's answer: patch the old finalizers away.
// Metacontroller runs (with rights on every resource, as its install grants), the
// CompositeController and its hooks run: the old finalizer is orphaned, its removal by hand is
// the fix, and the new release already ran the finalize hook under its own finalizer.
//
// Modelled on metacontroller's manifests/production of v1.5.6: namespace metacontroller, its
// ServiceAccount, the ClusterRole metacontroller (every verb on every resource) and its binding,
// the StatefulSet metacontroller; the CRDs of metacontroller.k8s.io, unlabelled. The report names
// the CompositeController (ecr-repository-e2e-operator) but not its parent type: the parent
// EcrRepository of e2e.example.com and the hooks' Deployment and Service in namespace
// ecr-operator (no RBAC of their own: metacontroller calls them) are this replay's assumption.
// Of the two repositories, team-a-images was created under the old release and is being
// deleted; team-b-images, created since, carries the new release's finalizer.
func TestCorpusMetacontrollerLegacyFinalizerPrefix(t *testing.T) {
	const old = "metacontroller.app/compositecontroller-ecr-repository-e2e-operator"
	// metacontroller.k8s.io is a protected group: its CRDs carry the annotation the real ones do.
	approved := map[string]string{"api-approved.kubernetes.io": "unapproved, request not yet submitted"}
	replay{
		crds: []crd{
			{group: "metacontroller.k8s.io", kind: "CompositeController", plural: "compositecontrollers", annotations: approved, versions: []string{"v1alpha1"}},
			{group: "metacontroller.k8s.io", kind: "DecoratorController", plural: "decoratorcontrollers", annotations: approved, versions: []string{"v1alpha1"}},
			{group: "metacontroller.k8s.io", kind: "ControllerRevision", plural: "controllerrevisions", namespaced: true, annotations: approved, versions: []string{"v1alpha1"}},
			{group: "e2e.example.com", kind: "EcrRepository", plural: "ecrrepositories", namespaced: true, versions: []string{"v1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: metacontroller
---
apiVersion: v1
kind: Namespace
metadata:
  name: ecr-operator
---
apiVersion: v1
kind: Namespace
metadata:
  name: team-a
---
apiVersion: v1
kind: Namespace
metadata:
  name: team-b
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: metacontroller
  namespace: metacontroller
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: metacontroller
rules:
- apiGroups: ["*"]
  resources: ["*"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: metacontroller
subjects:
- kind: ServiceAccount
  name: metacontroller
  namespace: metacontroller
roleRef:
  kind: ClusterRole
  name: metacontroller
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: metacontroller
  namespace: metacontroller
  labels: {app.kubernetes.io/name: metacontroller}
spec:
  replicas: 1
  serviceName: ""
  selector:
    matchLabels: {app.kubernetes.io/name: metacontroller}
  template:
    metadata:
      labels: {app.kubernetes.io/name: metacontroller}
    spec:
      serviceAccountName: metacontroller
      containers:
      - name: metacontroller
        image: metacontrollerio/metacontroller:v1.5.6
        command: ["/usr/bin/metacontroller"]
        args: ["--zap-log-level=4", "--discovery-interval=20s"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ecr-repository-e2e-operator
  namespace: ecr-operator
  labels: {app: ecr-repository-e2e-operator}
spec:
  replicas: 1
  selector:
    matchLabels: {app: ecr-repository-e2e-operator}
  template:
    metadata:
      labels: {app: ecr-repository-e2e-operator}
    spec:
      containers:
      - name: hooks
        image: registry.example.com/ecr-repository-e2e-operator:1.4.0
        ports:
        - containerPort: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: ecr-repository-e2e-operator
  namespace: ecr-operator
spec:
  selector: {app: ecr-repository-e2e-operator}
  ports:
  - port: 80
    targetPort: 8080
---
apiVersion: metacontroller.k8s.io/v1alpha1
kind: CompositeController
metadata:
  name: ecr-repository-e2e-operator
spec:
  generateSelector: true
  resyncPeriodSeconds: 60
  parentResource:
    apiVersion: e2e.example.com/v1
    resource: ecrrepositories
  hooks:
    sync:
      webhook:
        url: http://ecr-repository-e2e-operator.ecr-operator/sync
    finalize:
      webhook:
        url: http://ecr-repository-e2e-operator.ecr-operator/finalize
`,
		objects: `
apiVersion: e2e.example.com/v1
kind: EcrRepository
metadata:
  name: team-a-images
  namespace: team-a
  finalizers: [` + old + `]
spec:
  repositoryName: team-a/images
  region: eu-west-1
status:
  repositoryUri: 123456789012.dkr.ecr.eu-west-1.amazonaws.com/team-a/images
---
apiVersion: e2e.example.com/v1
kind: EcrRepository
metadata:
  name: team-b-images
  namespace: team-b
  finalizers: [metacontroller.io/compositecontroller-ecr-repository-e2e-operator]
spec:
  repositoryName: team-b/images
  region: eu-west-1
status:
  repositoryUri: 123456789012.dkr.ecr.eu-west-1.amazonaws.com/team-b/images
`,
		deletes: []string{"EcrRepository/team-a/team-a-images"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "ecrrepositories.e2e.example.com", "team-a-images", "-n", "team-a")
	d.exit(1, "STUCK")
	ref := "ecrrepositories.e2e.example.com/team-a-images -n team-a"
	f := d.finalizer(ref, old)
	// Metacontroller may update every object, and runs, but removes only the finalizers of its
	// own release (metacontroller.io/…, as on team-b-images): the old one is orphaned.
	d.verdict(f, finalizerOrphaned)
	d.firstFix(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
	d.notDeleting(ref, "a repository unfinalized for an hour")
}
