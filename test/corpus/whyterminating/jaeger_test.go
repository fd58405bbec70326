package whyterminating_test

import (
	"testing"

	"github.com/kubeforensics/suite/internal/finalizers"
)

// Report: https://github.com/jaegertracing/jaeger-operator/issues/568 ("Finalizer blocks the
// deletion of CRs if the operator isn't running"): "the same operator instance that created the
// CR has to be running when the CR is deleted, otherwise the kubectl delete command blocks
// indefinitely"; the maintainer stopped the operator and deleted the Jaeger simplest2, which
// stays. The operator is installed, only not running: once it runs again it handles its
// finalizer (the name finalizer.jaegertracing.io agreed in jaeger-operator#453) and the Jaeger
// goes. Removing the finalizer by hand would leave the sidecars it injected in place.
//
// Modelled on the operator's deploy/ manifests of 1.13: namespace observability, ServiceAccount,
// ClusterRole jaeger-operator (its rules on jaegertracing.io and what it creates, abbreviated)
// and binding, the Deployment jaeger-operator with its labels, image and args, stopped (zero
// replicas); the Jaeger's all-in-one Deployment in default runs.
func TestCorpusJaegerOfAStoppedOperator(t *testing.T) {
	replay{
		crds: []crd{{group: "jaegertracing.io", kind: "Jaeger", plural: "jaegers", namespaced: true, versions: []string{"v1"}}},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: observability
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: jaeger-operator
  namespace: observability
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: jaeger-operator
rules:
- apiGroups: ["jaegertracing.io"]
  resources: ["*"]
  verbs: ["*"]
- apiGroups: [""]
  resources: ["pods", "services", "endpoints", "persistentvolumeclaims", "events", "configmaps", "secrets", "serviceaccounts"]
  verbs: ["*"]
- apiGroups: ["apps"]
  resources: ["deployments", "daemonsets", "replicasets", "statefulsets"]
  verbs: ["*"]
- apiGroups: ["extensions", "networking.k8s.io"]
  resources: ["ingresses"]
  verbs: ["*"]
- apiGroups: ["batch"]
  resources: ["jobs", "cronjobs"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: jaeger-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: jaeger-operator
subjects:
- kind: ServiceAccount
  name: jaeger-operator
  namespace: observability
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: jaeger-operator
  namespace: observability
spec:
  replicas: 0
  selector:
    matchLabels:
      name: jaeger-operator
  template:
    metadata:
      labels:
        name: jaeger-operator
    spec:
      serviceAccountName: jaeger-operator
      containers:
      - name: jaeger-operator
        image: jaegertracing/jaeger-operator:1.13.1
        args: ["start"]
        env:
        - name: WATCH_NAMESPACE
          value: ""
        - name: OPERATOR_NAME
          value: jaeger-operator
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: simplest2
  namespace: default
  labels:
    app: jaeger
    app.kubernetes.io/name: simplest2
    app.kubernetes.io/instance: simplest2
    app.kubernetes.io/component: all-in-one
    app.kubernetes.io/part-of: jaeger
    app.kubernetes.io/managed-by: jaeger-operator
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: simplest2
  template:
    metadata:
      labels:
        app: jaeger
        app.kubernetes.io/name: simplest2
        app.kubernetes.io/component: all-in-one
    spec:
      containers:
      - name: jaeger
        image: jaegertracing/all-in-one:1.13.1
`,
		objects: `
apiVersion: jaegertracing.io/v1
kind: Jaeger
metadata:
  name: simplest2
  namespace: default
  finalizers:
  - finalizer.jaegertracing.io
spec:
  strategy: allInOne
status:
  phase: Running
  version: 1.13.1
`,
		deletes: []string{"Jaeger/default/simplest2"},
	}.run(t)

	d := diagnose(t, "jaegers.jaegertracing.io", "simplest2", "-n", "default")
	d.exit(1, "STUCK")
	f := d.finalizer("jaegers.jaegertracing.io/simplest2 -n default", "finalizer.jaegertracing.io")
	// The remover is installed and stopped: bringing it back is the fix, the strip only the
	// last resort; the Jaeger's own all-in-one removes nothing.
	d.remover(f, "deployments.apps/jaeger-operator -n observability", false)
	d.notRemover(f, "deployments.apps/simplest2 -n default")
	d.firstFix(f, restoreController, finalizers.ReasonScaleUpController)
	d.notFirstFix(f, stripFinalizer)
}
