package whyterminating_test

import "testing"

// Report: https://github.com/evryfs/github-actions-runner-operator/issues/212 ("Deleting
// runners results in a stuck terminated state"): after `kubectl delete -f` of the
// GithubActionRunner, its runner pods stay Terminating with
// garo.tietoevry.com/runner-registration although the operator runs. The maintainer: "It's an
// edge case when you delete the actual cr. In this case it's gone and the cleanup step handling
// the finalization ... is not reached." Nothing will remove the finalizer now that the pods'
// owner is gone; removing it by hand deletes the pods, and "the runner is not being removed
// from my list of GitHub self hosted runners" — that registration is what stays behind.
//
// Modelled on the operator's Helm chart (evryfs/helm-charts, github-actions-runner-operator):
// namespace github-actions-runner-operator, ServiceAccount, ClusterRole with its rules on
// garo.tietoevry.com and on pods and secrets, binding, and the Deployment with the chart's
// labels and image; the pods as the operator makes them (pool label, owner reference to the
// GithubActionRunner, the finalizer), their containers already stopped.
func TestCorpusGithubRunnerOperatorPodsOfAGoneRunner(t *testing.T) {
	replay{
		crds: []crd{{group: "garo.tietoevry.com", kind: "GithubActionRunner", plural: "githubactionrunners", namespaced: true, versions: []string{"v1alpha1"}}},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: github-actions-runner-operator
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: github-actions-runner-operator
  namespace: github-actions-runner-operator
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: github-actions-runner-operator
  labels:
    app.kubernetes.io/name: github-actions-runner-operator
rules:
- apiGroups: ["garo.tietoevry.com"]
  resources: ["githubactionrunners", "githubactionrunners/status", "githubactionrunners/finalizers"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["pods", "secrets", "events"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: github-actions-runner-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: github-actions-runner-operator
subjects:
- kind: ServiceAccount
  name: github-actions-runner-operator
  namespace: github-actions-runner-operator
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: github-actions-runner-operator
  namespace: github-actions-runner-operator
  labels:
    app.kubernetes.io/name: github-actions-runner-operator
    app.kubernetes.io/instance: github-actions-runner-operator
    helm.sh/chart: github-actions-runner-operator-2.2.0
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: github-actions-runner-operator
      app.kubernetes.io/instance: github-actions-runner-operator
  template:
    metadata:
      labels:
        app.kubernetes.io/name: github-actions-runner-operator
        app.kubernetes.io/instance: github-actions-runner-operator
    spec:
      serviceAccountName: github-actions-runner-operator
      containers:
      - name: manager
        image: quay.io/evryfs/github-actions-runner-operator:v0.8.1
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: github-action-runners
---
apiVersion: v1
kind: Pod
metadata:
  name: runner-pool-pod-fhthp
  namespace: github-action-runners
  labels:
    garo.tietoevry.com/pool: runner-pool
  finalizers:
  - garo.tietoevry.com/runner-registration
  ownerReferences:
  - apiVersion: garo.tietoevry.com/v1alpha1
    kind: GithubActionRunner
    name: runner-pool
    uid: 5b0f8e7c-3a4d-4c1e-9f2b-6d8a7c5e4f31
    controller: true
    blockOwnerDeletion: true
spec:
  nodeName: worker-1
  containers:
  - name: runner
    image: quay.io/evryfs/github-actions-runner:latest
  - name: docker
    image: docker:stable-dind
status:
  phase: Failed
  containerStatuses:
  - name: runner
    image: quay.io/evryfs/github-actions-runner:latest
    ready: false
    restartCount: 0
    state:
      terminated:
        exitCode: 143
        reason: Error
  - name: docker
    image: docker:stable-dind
    ready: false
    restartCount: 0
    state:
      terminated:
        exitCode: 0
        reason: Completed
`,
		podsStopped: true,
		deletes:     []string{"Pod/github-action-runners/runner-pool-pod-fhthp"},
	}.run(t)

	d := diagnose(t, "pod", "runner-pool-pod-fhthp", "-n", "github-action-runners")
	d.exit(1, "STUCK")
	f := d.finalizer("pods/runner-pool-pod-fhthp -n github-action-runners", "garo.tietoevry.com/runner-registration")
	// The owner whose cleanup would remove the finalizer is gone, and so is the way the running
	// operator reaches it: the finalizer is removed by hand, with what that leaves behind.
	d.names(f, "githubactionrunners.garo.tietoevry.com/runner-pool -n github-action-runners")
	d.offers(f, stripFinalizer)
	d.never(f, reinstall)
}
