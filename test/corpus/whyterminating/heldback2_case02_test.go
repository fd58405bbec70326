package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/kubewarden/adm-controller/issues/130 ("Unable to remove
// unschedulable clusteradmissionpolicy"): a ClusterAdmissionPolicy created with spec.policyServer
// "typo" (no PolicyServer of that name exists) shows status unschedulable; deleting it hangs.
// The controller (running) removes its finalizer kubewarden only once the policy server the
// policy names has dropped the policy, and that policy server does not exist; "the only way to
// remove is apparently to edit the ClusterAdmissionPolicy and remove the kubewarden finalizer"
// (spec.policyServer is immutable). Nothing was ever deployed for the policy, so nothing is left
// behind.
//
// Modelled on the kubewarden-controller Helm chart (v0.4, Nov 2021): namespace kubewarden,
// ServiceAccount kubewarden-controller, ClusterRole kubewarden-controller-manager-cluster-role
// with its rules on policies.kubewarden.io (abbreviated) and binding, the Deployment
// kubewarden-controller, the default PolicyServer and its Deployment policy-server-default; the
// CRDs of policies.kubewarden.io (v1alpha2). The webhook configurations are left out: the
// replay's pods answer no requests.
func TestCorpusKubewardenPolicyOfMissingPolicyServer(t *testing.T) {
	chart := map[string]string{"app.kubernetes.io/managed-by": "Helm", "app.kubernetes.io/part-of": "kubewarden"}
	replay{
		crds: []crd{
			{group: "policies.kubewarden.io", kind: "PolicyServer", plural: "policyservers", versions: []string{"v1alpha2"}, labels: chart},
			{group: "policies.kubewarden.io", kind: "ClusterAdmissionPolicy", plural: "clusteradmissionpolicies", versions: []string{"v1alpha2"}, labels: chart},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: kubewarden
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kubewarden-controller
  namespace: kubewarden
  labels:
    app.kubernetes.io/name: kubewarden-controller
    app.kubernetes.io/instance: kubewarden-controller
    app.kubernetes.io/part-of: kubewarden
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: policy-server
  namespace: kubewarden
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kubewarden-controller-manager-cluster-role
  labels:
    app.kubernetes.io/name: kubewarden-controller
    app.kubernetes.io/instance: kubewarden-controller
    app.kubernetes.io/part-of: kubewarden
rules:
- apiGroups: ["admissionregistration.k8s.io"]
  resources: ["mutatingwebhookconfigurations", "validatingwebhookconfigurations"]
  verbs: ["create", "delete", "list", "patch", "watch"]
- apiGroups: ["policies.kubewarden.io"]
  resources: ["clusteradmissionpolicies", "policyservers"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["policies.kubewarden.io"]
  resources: ["clusteradmissionpolicies/finalizers", "policyservers/finalizers"]
  verbs: ["update"]
- apiGroups: ["policies.kubewarden.io"]
  resources: ["clusteradmissionpolicies/status", "policyservers/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kubewarden-controller-manager-cluster-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: kubewarden-controller-manager-cluster-role
subjects:
- kind: ServiceAccount
  name: kubewarden-controller
  namespace: kubewarden
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kubewarden-controller
  namespace: kubewarden
  labels:
    app.kubernetes.io/name: kubewarden-controller
    app.kubernetes.io/instance: kubewarden-controller
    app.kubernetes.io/component: controller
    app.kubernetes.io/part-of: kubewarden
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: kubewarden-controller-0.3.6
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: kubewarden-controller
      app.kubernetes.io/instance: kubewarden-controller
  template:
    metadata:
      labels:
        app.kubernetes.io/name: kubewarden-controller
        app.kubernetes.io/instance: kubewarden-controller
    spec:
      serviceAccountName: kubewarden-controller
      containers:
      - name: manager
        image: ghcr.io/kubewarden/kubewarden-controller:v0.4.2
        command: ["/manager"]
        args: ["--leader-elect", "--deployments-namespace", "kubewarden"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: policy-server-default
  namespace: kubewarden
  labels:
    app: kubewarden-policy-server-default
spec:
  replicas: 1
  selector:
    matchLabels:
      app: kubewarden-policy-server-default
  template:
    metadata:
      labels:
        app: kubewarden-policy-server-default
    spec:
      serviceAccountName: policy-server
      containers:
      - name: policy-server-default
        image: ghcr.io/kubewarden/policy-server:v0.2.5
---
apiVersion: policies.kubewarden.io/v1alpha2
kind: PolicyServer
metadata:
  name: default
  finalizers:
  - kubewarden
spec:
  image: ghcr.io/kubewarden/policy-server:v0.2.5
  replicas: 1
  serviceAccountName: policy-server
`,
		objects: `
apiVersion: policies.kubewarden.io/v1alpha2
kind: ClusterAdmissionPolicy
metadata:
  name: privileged-pods
  finalizers:
  - kubewarden
spec:
  policyServer: typo
  module: registry://ghcr.io/kubewarden/policies/pod-privileged:v0.1.9
  rules:
  - apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["pods"]
    operations: ["CREATE", "UPDATE"]
  mutating: false
status:
  policyStatus: unschedulable
`,
		deletes: []string{"ClusterAdmissionPolicy//privileged-pods"},
	}.run(t)

	d := diagnoseAfter(t, 30*time.Minute, "clusteradmissionpolicies.policies.kubewarden.io", "privileged-pods")
	d.exit(1, "STUCK")
	f := d.finalizer("clusteradmissionpolicies.policies.kubewarden.io/privileged-pods", "kubewarden")
	d.remover(f, "deployments.apps/kubewarden-controller -n kubewarden", true)
	// What it waits for is a PolicyServer that does not exist: named, with the strip as the way
	// out (the field is immutable), never a reinstall.
	d.names(f, "policyservers.policies.kubewarden.io/typo")
	d.offers(f, stripFinalizer)
	d.never(f, reinstall)
}
