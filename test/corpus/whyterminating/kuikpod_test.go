//go:build corpusopen

// Open (corpusopen): remover-stalled, the logs first, the strip last. That the running release
// no longer adds the finalizer (a live pod of the same workload, rewritten by kuik after the
// upgrade, carries none) is not read; the rule for finalizers a running product dropped is
// another helper's (renamedabsent.go, followups) and was left alone here.

package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/enix/kube-image-keeper/issues/183 ("Upgrading from version 1.2 to
// 1.3 makes Pods stuck on Terminating"): kube-image-keeper (kuik) 1.2 put the finalizer
// pod.kuik.enix.io/finalizer on every pod whose images it rewrote; 1.3 (#136, closing #135)
// computes its CachedImages without it and no longer adds or removes it. Pods created under 1.2
// and deleted after the upgrade keep it for ever, while the 1.3 controllers run. The thread's way
// out, as the upgrade notes in the README say: remove that finalizer from the old pods (nothing is
// left behind: 1.3 no longer needs it).
//
// Modelled on the Helm chart of 1.3.0 (helm/kube-image-keeper): namespace kuik-system, the
// controllers Deployment kube-image-keeper-controllers with its ServiceAccount and ClusterRole
// (which still allows pods update and pods/finalizers, cachedimages of kuik.enix.io), the proxy
// DaemonSet and the registry StatefulSet; the CRD cachedimages.kuik.enix.io. Two pods of the
// report's workload in namespace frontegg, both rewritten by kuik (images from localhost:7439, the
// original-image annotation, the images-rewritten label): one created under 1.2 (with the
// finalizer), deleted after the upgrade; one created under 1.3 (without it), running.
func TestCorpusKuikPodFinalizerDroppedByAnUpgrade(t *testing.T) {
	replay{
		crds: []crd{
			{group: "kuik.enix.io", kind: "CachedImage", plural: "cachedimages", versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: kuik-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kube-image-keeper
  namespace: kuik-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kube-image-keeper
rules:
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["pods/finalizers"]
  verbs: ["update"]
- apiGroups: [""]
  resources: ["pods/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["kuik.enix.io"]
  resources: ["cachedimages"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["kuik.enix.io"]
  resources: ["cachedimages/finalizers"]
  verbs: ["update"]
- apiGroups: ["kuik.enix.io"]
  resources: ["cachedimages/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kube-image-keeper
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: kube-image-keeper
subjects:
- kind: ServiceAccount
  name: kube-image-keeper
  namespace: kuik-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kube-image-keeper-controllers
  namespace: kuik-system
  labels: {app.kubernetes.io/name: kube-image-keeper, app.kubernetes.io/instance: kube-image-keeper, app.kubernetes.io/component: controllers, helm.sh/chart: kube-image-keeper-1.3.0}
spec:
  replicas: 2
  selector:
    matchLabels: {app.kubernetes.io/name: kube-image-keeper, app.kubernetes.io/instance: kube-image-keeper, app.kubernetes.io/component: controllers}
  template:
    metadata:
      labels: {app.kubernetes.io/name: kube-image-keeper, app.kubernetes.io/instance: kube-image-keeper, app.kubernetes.io/component: controllers}
    spec:
      serviceAccountName: kube-image-keeper
      containers:
      - name: cache-manager
        image: quay.io/enix/kube-image-keeper:1.3.0
        command: ["manager", "-leader-elect", "-expiry-delay=30", "-proxy-port=7439", "-registry-endpoint=kube-image-keeper-registry:5000"]
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: kube-image-keeper-proxy
  namespace: kuik-system
  labels: {app.kubernetes.io/name: kube-image-keeper, app.kubernetes.io/instance: kube-image-keeper, app.kubernetes.io/component: proxy, helm.sh/chart: kube-image-keeper-1.3.0}
spec:
  selector:
    matchLabels: {app.kubernetes.io/name: kube-image-keeper, app.kubernetes.io/instance: kube-image-keeper, app.kubernetes.io/component: proxy}
  template:
    metadata:
      labels: {app.kubernetes.io/name: kube-image-keeper, app.kubernetes.io/instance: kube-image-keeper, app.kubernetes.io/component: proxy}
    spec:
      containers:
      - name: cache-proxy
        image: quay.io/enix/kube-image-keeper:1.3.0
        command: ["registry-proxy", "-v=1", "-bind-address=127.0.0.1:7439", "-registry-endpoint=kube-image-keeper-registry:5000"]
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: kube-image-keeper-registry
  namespace: kuik-system
  labels: {app.kubernetes.io/name: kube-image-keeper, app.kubernetes.io/instance: kube-image-keeper, app.kubernetes.io/component: registry, helm.sh/chart: kube-image-keeper-1.3.0}
spec:
  replicas: 1
  serviceName: kube-image-keeper-registry
  selector:
    matchLabels: {app.kubernetes.io/name: kube-image-keeper, app.kubernetes.io/instance: kube-image-keeper, app.kubernetes.io/component: registry}
  template:
    metadata:
      labels: {app.kubernetes.io/name: kube-image-keeper, app.kubernetes.io/instance: kube-image-keeper, app.kubernetes.io/component: registry}
    spec:
      containers:
      - name: registry
        image: registry:2.8
---
apiVersion: v1
kind: Namespace
metadata:
  name: frontegg
`,
		objects: `
apiVersion: v1
kind: Pod
metadata:
  name: api-gateway-5d8c7b9f4-7qz2m
  namespace: frontegg
  labels: {app: api-gateway, kuik.enix.io/images-rewritten: "true"}
  annotations:
    original-image-api-gateway: frontegg/api-gateway:4.12.0
  finalizers: [pod.kuik.enix.io/finalizer]
spec:
  nodeName: worker-1
  containers:
  - name: api-gateway
    image: localhost:7439/frontegg/api-gateway:4.12.0
status:
  phase: Running
  conditions:
  - {type: Ready, status: "True", lastTransitionTime: "2023-09-20T09:12:44Z"}
  containerStatuses:
  - name: api-gateway
    image: localhost:7439/frontegg/api-gateway:4.12.0
    imageID: ""
    ready: true
    restartCount: 0
    started: true
    state:
      running: {startedAt: "2023-09-20T09:12:40Z"}
---
apiVersion: v1
kind: Pod
metadata:
  name: api-gateway-5d8c7b9f4-lw8tn
  namespace: frontegg
  labels: {app: api-gateway, kuik.enix.io/images-rewritten: "true"}
  annotations:
    original-image-api-gateway: frontegg/api-gateway:4.12.0
spec:
  nodeName: worker-1
  containers:
  - name: api-gateway
    image: localhost:7439/frontegg/api-gateway:4.12.0
status:
  phase: Running
  conditions:
  - {type: Ready, status: "True", lastTransitionTime: "2023-09-27T14:02:11Z"}
  containerStatuses:
  - name: api-gateway
    image: localhost:7439/frontegg/api-gateway:4.12.0
    imageID: ""
    ready: true
    restartCount: 0
    started: true
    state:
      running: {startedAt: "2023-09-27T14:02:09Z"}
`,
		deletes:     []string{"Pod/frontegg/api-gateway-5d8c7b9f4-7qz2m"},
		podsStopped: true,
	}.run(t)

	// Noticed the day after the upgrade.
	d := diagnoseAfter(t, 20*time.Hour, "pods", "api-gateway-5d8c7b9f4-7qz2m", "-n", "frontegg")
	d.exit(1, "STUCK")
	f := d.finalizer("pods/api-gateway-5d8c7b9f4-7qz2m -n frontegg", "pod.kuik.enix.io/finalizer")
	// The running release no longer removes it: removing it by hand is the way out, first.
	d.firstFix(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
