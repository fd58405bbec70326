package whyterminating_test

import "testing"

// Report: https://github.com/argoproj/argo-events/issues/2408 (Argo Events v1.7.4, Argo CD):
// Argo Events was installed by an Argo CD Application; its EventBus (JetStream 2.9.1) carried
// the sync option PruneLast. "When I delete the application from ArgoCD ... the termination
// process gets stuck on the EventBus termination"; the reporter force-deleted the EventBus. The
// EventBus's finalizer eventbus-controller is removed only by Argo Events' own controller-manager
// (controllers/eventbus), which Argo CD had deleted before the EventBus, with its service account
// and RBAC. Argo CD's application controller runs, may update anything (its ClusterRole is * on
// *), and serves a CRD of the same group argoproj.io — but it never removes that finalizer: it
// is not the remover. The way out: reinstall the Argo Events controller so that it finalizes
// the bus, or (as the reporter did) remove the finalizer by hand; the JetStream StatefulSet,
// Service, ConfigMap and Secrets the bus owns then go with it.
//
// Modelled on manifests/install.yaml of argo-events v1.7.4 (namespace argo-events, whose
// ServiceAccount argo-events-sa, ClusterRole argo-events-role, binding, ConfigMap and Deployment
// controller-manager are gone with the Application; the CRDs eventbus, eventsources and sensors
// of argoproj.io stay) and on what its JetStream installer made for the EventBus default
// (controllers/eventbus/installer/jetstream.go: StatefulSet eventbus-default-js, Service
// eventbus-default-js-svc, ConfigMap and Secrets, controller-owned by the bus, labels
// controller=eventbus-controller, eventbus-name, owner-name). Argo CD v2.5 as its install.yaml
// leaves it in namespace argocd: the application controller's ServiceAccount, ClusterRole
// (* on *) and binding, and StatefulSet; argocd-server's ClusterRole (delete, get, patch on *);
// the CRDs applications and appprojects of argoproj.io. The EventBus carries Argo CD's tracking
// label app.kubernetes.io/instance=argo-events.
func TestCorpusArgoEventsEventBusAfterArgoCDDeletedItsController(t *testing.T) {
	argocd := map[string]string{"app.kubernetes.io/part-of": "argocd"}
	replay{
		crds: []crd{
			{group: "argoproj.io", kind: "EventBus", plural: "eventbus", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "argoproj.io", kind: "EventSource", plural: "eventsources", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "argoproj.io", kind: "Sensor", plural: "sensors", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "argoproj.io", kind: "Application", plural: "applications", namespaced: true, versions: []string{"v1alpha1"}, labels: argocd},
			{group: "argoproj.io", kind: "AppProject", plural: "appprojects", namespaced: true, versions: []string{"v1alpha1"}, labels: argocd},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: argocd
---
apiVersion: v1
kind: Namespace
metadata:
  name: argo-events
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: argocd-application-controller
  namespace: argocd
  labels:
    app.kubernetes.io/component: application-controller
    app.kubernetes.io/name: argocd-application-controller
    app.kubernetes.io/part-of: argocd
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: argocd-application-controller
  labels:
    app.kubernetes.io/component: application-controller
    app.kubernetes.io/name: argocd-application-controller
    app.kubernetes.io/part-of: argocd
rules:
- apiGroups: ["*"]
  resources: ["*"]
  verbs: ["*"]
- nonResourceURLs: ["*"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: argocd-application-controller
  labels:
    app.kubernetes.io/component: application-controller
    app.kubernetes.io/name: argocd-application-controller
    app.kubernetes.io/part-of: argocd
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: argocd-application-controller
subjects:
- kind: ServiceAccount
  name: argocd-application-controller
  namespace: argocd
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: argocd-application-controller
  namespace: argocd
  labels:
    app.kubernetes.io/component: application-controller
    app.kubernetes.io/name: argocd-application-controller
    app.kubernetes.io/part-of: argocd
spec:
  replicas: 1
  serviceName: argocd-application-controller
  selector:
    matchLabels:
      app.kubernetes.io/name: argocd-application-controller
  template:
    metadata:
      labels:
        app.kubernetes.io/name: argocd-application-controller
    spec:
      serviceAccountName: argocd-application-controller
      containers:
      - name: argocd-application-controller
        image: quay.io/argoproj/argocd:v2.5.5
        args: ["/usr/local/bin/argocd-application-controller"]
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: argocd-server
  namespace: argocd
  labels:
    app.kubernetes.io/component: server
    app.kubernetes.io/name: argocd-server
    app.kubernetes.io/part-of: argocd
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: argocd-server
  labels:
    app.kubernetes.io/component: server
    app.kubernetes.io/name: argocd-server
    app.kubernetes.io/part-of: argocd
rules:
- apiGroups: ["*"]
  resources: ["*"]
  verbs: ["delete", "get", "patch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["list"]
- apiGroups: [""]
  resources: ["pods", "pods/log"]
  verbs: ["get"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: argocd-server
  labels:
    app.kubernetes.io/component: server
    app.kubernetes.io/name: argocd-server
    app.kubernetes.io/part-of: argocd
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: argocd-server
subjects:
- kind: ServiceAccount
  name: argocd-server
  namespace: argocd
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: argocd-server
  namespace: argocd
  labels:
    app.kubernetes.io/component: server
    app.kubernetes.io/name: argocd-server
    app.kubernetes.io/part-of: argocd
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: argocd-server
  template:
    metadata:
      labels:
        app.kubernetes.io/name: argocd-server
    spec:
      serviceAccountName: argocd-server
      containers:
      - name: argocd-server
        image: quay.io/argoproj/argocd:v2.5.5
        args: ["/usr/local/bin/argocd-server"]
`,
		objects: `
apiVersion: argoproj.io/v1alpha1
kind: EventBus
metadata:
  name: default
  namespace: argo-events
  labels:
    app.kubernetes.io/instance: argo-events
  annotations:
    argocd.argoproj.io/sync-options: PruneLast=true
  finalizers:
  - eventbus-controller
spec:
  jetstream:
    version: 2.9.1
    replicas: 3
status:
  conditions:
  - type: Configured
    status: "True"
    lastTransitionTime: "2023-01-12T10:02:11Z"
  - type: Deployed
    status: "True"
    reason: Succeeded
    message: JetStream is deployed
    lastTransitionTime: "2023-01-12T10:02:14Z"
  config:
    jetstream:
      url: nats://eventbus-default-js-svc.argo-events.svc:4222
      streamConfig: |
        maxMsgs: 50000
        maxAge: 168h
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: eventbus-default-js-config
  namespace: argo-events
  labels:
    controller: eventbus-controller
    eventbus-name: default
    owner-name: default
  ownerReferences:
  - apiVersion: argoproj.io/v1alpha1
    kind: EventBus
    name: default
    controller: true
    blockOwnerDeletion: true
data:
  nats-js.conf: |
    max_payload: 1048576
---
apiVersion: v1
kind: Secret
metadata:
  name: eventbus-default-js-server
  namespace: argo-events
  labels:
    controller: eventbus-controller
    eventbus-name: default
    owner-name: default
  ownerReferences:
  - apiVersion: argoproj.io/v1alpha1
    kind: EventBus
    name: default
    controller: true
    blockOwnerDeletion: true
stringData:
  auth: redacted
---
apiVersion: v1
kind: Service
metadata:
  name: eventbus-default-js-svc
  namespace: argo-events
  labels:
    controller: eventbus-controller
    eventbus-name: default
    owner-name: default
  ownerReferences:
  - apiVersion: argoproj.io/v1alpha1
    kind: EventBus
    name: default
    controller: true
    blockOwnerDeletion: true
spec:
  clusterIP: None
  selector:
    controller: eventbus-controller
    eventbus-name: default
    owner-name: default
  ports:
  - name: tcp-client
    port: 4222
  - name: cluster
    port: 6222
  - name: metrics
    port: 7777
  - name: monitor
    port: 8222
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: eventbus-default-js
  namespace: argo-events
  labels:
    controller: eventbus-controller
    eventbus-name: default
    owner-name: default
  ownerReferences:
  - apiVersion: argoproj.io/v1alpha1
    kind: EventBus
    name: default
    controller: true
    blockOwnerDeletion: true
spec:
  replicas: 3
  serviceName: eventbus-default-js-svc
  podManagementPolicy: Parallel
  selector:
    matchLabels:
      controller: eventbus-controller
      eventbus-name: default
      owner-name: default
  template:
    metadata:
      labels:
        controller: eventbus-controller
        eventbus-name: default
        owner-name: default
    spec:
      containers:
      - name: main
        image: nats:2.9.1
        args: ["--config", "/etc/nats-config/nats-js.conf"]
      - name: reloader
        image: natsio/nats-server-config-reloader:0.7.0
      - name: metrics
        image: natsio/prometheus-nats-exporter:0.9.1
`,
		deletes: []string{"EventBus/argo-events/default"},
	}.run(t)

	d := diagnose(t, "eventbus.argoproj.io", "default", "-n", "argo-events")
	d.exit(1, "STUCK")
	f := d.finalizer("eventbus.argoproj.io/default -n argo-events", "eventbus-controller")
	// Argo Events' controller is gone; Argo CD, broad RBAC and a CRD of the same group, is not
	// its remover, nor is the NATS StatefulSet whose label names the finalizer.
	d.verdict(f, controllerAbsent)
	d.noRunningRemover(f)
	d.notRemover(f, "statefulsets.apps/argocd-application-controller -n argocd")
	d.notRemover(f, "deployments.apps/argocd-server -n argocd")
	d.notRemover(f, "statefulsets.apps/eventbus-default-js -n argo-events")
	// Bring the controller back, or remove the finalizer by hand as the reporter did.
	d.firstFix(f, reinstall, restoreController, stripFinalizer)
	d.offers(f, stripFinalizer)
}
