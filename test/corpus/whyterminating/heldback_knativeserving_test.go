package whyterminating_test

import "testing"

// Report: https://github.com/knative/serving/issues/2897 ("Pods stuck a long time in
// Terminating"): after `kubectl delete ksvc helloworld-go`, the revision's pods stay Terminating
// for minutes; the maintainers' answer: "we set the termination grace period here based on the
// timeout, so the default timeout of 5 minutes means it takes 5 minutes to tear down the pod".
// The pods shut down within the grace period they were given on a healthy node: the deletion is
// on course, nothing is stuck, and forcing them would cut off requests in flight.
//
// Modelled on Knative Serving 0.3's serving.yaml (namespace knative-serving, the controller,
// activator and autoscaler Deployments with their app labels and images) and on the pod a
// Revision's Deployment makes (user-container and queue-proxy, the serving.knative.dev labels,
// terminationGracePeriodSeconds 300).
func TestCorpusKnativeRevisionPodWithinGracePeriod(t *testing.T) {
	replay{
		crds: []crd{
			{group: "serving.knative.dev", kind: "Service", plural: "services", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "serving.knative.dev", kind: "Revision", plural: "revisions", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "serving.knative.dev", kind: "Configuration", plural: "configurations", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "serving.knative.dev", kind: "Route", plural: "routes", namespaced: true, versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: knative-serving
  labels:
    istio-injection: enabled
    serving.knative.dev/release: v0.3.0
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: controller
  namespace: knative-serving
  labels:
    serving.knative.dev/release: v0.3.0
spec:
  replicas: 1
  selector:
    matchLabels:
      app: controller
  template:
    metadata:
      labels:
        app: controller
    spec:
      containers:
      - name: controller
        image: gcr.io/knative-releases/github.com/knative/serving/cmd/controller:v0.3.0
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: activator
  namespace: knative-serving
  labels:
    serving.knative.dev/release: v0.3.0
spec:
  replicas: 1
  selector:
    matchLabels:
      app: activator
  template:
    metadata:
      labels:
        app: activator
        role: activator
    spec:
      containers:
      - name: activator
        image: gcr.io/knative-releases/github.com/knative/serving/cmd/activator:v0.3.0
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: autoscaler
  namespace: knative-serving
  labels:
    serving.knative.dev/release: v0.3.0
spec:
  replicas: 1
  selector:
    matchLabels:
      app: autoscaler
  template:
    metadata:
      labels:
        app: autoscaler
    spec:
      containers:
      - name: autoscaler
        image: gcr.io/knative-releases/github.com/knative/serving/cmd/autoscaler:v0.3.0
`,
		objects: `
apiVersion: v1
kind: Pod
metadata:
  name: helloworld-go-00001-deployment-5d9c7f6b8-x2lqp
  namespace: default
  labels:
    app: helloworld-go-00001
    serving.knative.dev/configuration: helloworld-go
    serving.knative.dev/revision: helloworld-go-00001
    serving.knative.dev/service: helloworld-go
spec:
  nodeName: worker-1
  terminationGracePeriodSeconds: 300
  containers:
  - name: user-container
    image: gcr.io/knative-samples/helloworld-go
  - name: queue-proxy
    image: gcr.io/knative-releases/github.com/knative/serving/cmd/queue:v0.3.0
status:
  phase: Running
  conditions:
  - type: Ready
    status: "True"
  - type: ContainersReady
    status: "True"
`,
		deletes: []string{"Pod/default/helloworld-go-00001-deployment-5d9c7f6b8-x2lqp"},
	}.run(t)

	d := diagnose(t, "pod", "helloworld-go-00001-deployment-5d9c7f6b8-x2lqp", "-n", "default")
	d.exit(0, "DELETING")
	e := d.object("pods/helloworld-go-00001-deployment-5d9c7f6b8-x2lqp -n default")
	if !e.Deleting {
		t.Errorf("the pod shutting down within its 300s grace period is not reported as deleting")
	}
	for _, r := range e.Remedies {
		if r.LastResort {
			t.Errorf("a forced step is offered for a pod within its grace period: %s", r.Summary)
		}
	}
}
