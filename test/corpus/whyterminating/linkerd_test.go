package whyterminating_test

import "testing"

// Report: https://github.com/linkerd/linkerd2/issues/5606 ("Upgrading to recent edge leaves
// orphaned Tap API service"): after `linkerd upgrade | kubectl apply --prune -l
// linkerd.io/control-plane-ns=linkerd -f -`, tap had moved to the viz extension, the Service
// linkerd/linkerd-tap was pruned, but the APIService v1alpha1.tap.linkerd.io (which lacked the
// label) stayed: "False (ServiceNotFound) ... This prevents the deletion of namespaces". The
// fix: delete the orphaned APIService (and label it in the chart).
//
// Modelled on Linkerd stable-2.9's control plane (linkerd install): namespace linkerd with the
// control-plane-ns labels, the Deployments linkerd-controller, linkerd-destination,
// linkerd-identity and linkerd-proxy-injector with their labels and images, and the APIService
// left behind. The namespace being deleted is an application's (emojivoto, Linkerd's demo).
func TestCorpusLinkerdOrphanedTapAPIService(t *testing.T) {
	replay{
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: linkerd
  labels:
    linkerd.io/is-control-plane: "true"
    config.linkerd.io/admission-webhooks: disabled
    linkerd.io/control-plane-ns: linkerd
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: linkerd-destination
  namespace: linkerd
  labels:
    app.kubernetes.io/name: destination
    app.kubernetes.io/part-of: Linkerd
    app.kubernetes.io/version: edge-21.1.3
    linkerd.io/control-plane-component: destination
    linkerd.io/control-plane-ns: linkerd
spec:
  replicas: 1
  selector:
    matchLabels:
      linkerd.io/control-plane-component: destination
  template:
    metadata:
      labels:
        linkerd.io/control-plane-component: destination
        linkerd.io/control-plane-ns: linkerd
    spec:
      containers:
      - name: destination
        image: ghcr.io/linkerd/controller:edge-21.1.3
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: linkerd-identity
  namespace: linkerd
  labels:
    app.kubernetes.io/name: identity
    app.kubernetes.io/part-of: Linkerd
    app.kubernetes.io/version: edge-21.1.3
    linkerd.io/control-plane-component: identity
    linkerd.io/control-plane-ns: linkerd
spec:
  replicas: 1
  selector:
    matchLabels:
      linkerd.io/control-plane-component: identity
  template:
    metadata:
      labels:
        linkerd.io/control-plane-component: identity
        linkerd.io/control-plane-ns: linkerd
    spec:
      containers:
      - name: identity
        image: ghcr.io/linkerd/controller:edge-21.1.3
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: linkerd-proxy-injector
  namespace: linkerd
  labels:
    app.kubernetes.io/name: proxy-injector
    app.kubernetes.io/part-of: Linkerd
    app.kubernetes.io/version: edge-21.1.3
    linkerd.io/control-plane-component: proxy-injector
    linkerd.io/control-plane-ns: linkerd
spec:
  replicas: 1
  selector:
    matchLabels:
      linkerd.io/control-plane-component: proxy-injector
  template:
    metadata:
      labels:
        linkerd.io/control-plane-component: proxy-injector
        linkerd.io/control-plane-ns: linkerd
    spec:
      containers:
      - name: proxy-injector
        image: ghcr.io/linkerd/controller:edge-21.1.3
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1alpha1.tap.linkerd.io
  labels:
    linkerd.io/control-plane-component: tap
spec:
  group: tap.linkerd.io
  version: v1alpha1
  groupPriorityMinimum: 1000
  versionPriority: 100
  insecureSkipTLSVerify: true
  service:
    name: linkerd-tap
    namespace: linkerd
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: emojivoto
  annotations:
    linkerd.io/inject: enabled
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
  namespace: emojivoto
data:
  WEB_PORT: "8080"
`,
		deletes: []string{"Namespace//emojivoto"},
	}.run(t)

	d := diagnose(t, "namespace", "emojivoto")
	d.exit(1, "STUCK")
	f := d.finalizer("namespaces/emojivoto", "kubernetes")
	d.blocker(f, "apiservices.apiregistration.k8s.io/v1alpha1.tap.linkerd.io", "apiservice-unavailable")
	d.firstFix(f, deleteAPIService)
}
