package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/aws/aws-network-policy-agent/issues/567 ("NetworkPolicy objects become
// stuck terminating after disabling enableNetworkPolicy"; #568 is the same report): after the AWS
// VPC CNI add-on's enableNetworkPolicy was turned from true to false, NetworkPolicies carrying
// networking.k8s.aws/resources stay Terminating: with the feature off "no controller removes the
// finalizer anymore. Manual removal of the finalizer is required to recover." The maintainers'
// order, in the threads the report follows (aws/aws-network-policy-agent#97, #258,
// aws/amazon-vpc-cni-k8s#2562): delete the NetworkPolicies first, so that the controller and the
// agent clean up the PolicyEndpoints and the probes they put on pods, then disable the feature.
// The aws-node DaemonSet keeps running, with the agent's --enable-network-policy=false and the
// add-on's ConfigMap saying enable-network-policy-controller "false"; neither may update
// NetworkPolicies.
//
// Modelled on the aws-vpc-cni Helm chart (charts/aws-vpc-cni, v1.19): in kube-system the
// ServiceAccount aws-node, its ClusterRole (eniconfigs, policyendpoints and their status, cninodes,
// pods, namespaces, nodes, events; networkpolicies read only) and binding, the DaemonSet aws-node
// (containers aws-node and aws-eks-nodeagent), the ConfigMap amazon-vpc-cni; the CRDs
// policyendpoints.networking.k8s.aws, eniconfigs.crd.k8s.amazonaws.com and
// cninodes.vpcresources.k8s.aws. The NetworkPolicy demo/allow-frontend with the finalizer, and the
// PolicyEndpoint the controller made for it (owned by it), deleted after the feature was turned off.
func TestCorpusAWSNetworkPolicyAfterTheFeatureWasDisabled(t *testing.T) {
	replay{
		crds: []crd{
			{group: "networking.k8s.aws", kind: "PolicyEndpoint", plural: "policyendpoints", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "crd.k8s.amazonaws.com", kind: "ENIConfig", plural: "eniconfigs", versions: []string{"v1alpha1"}},
			{group: "vpcresources.k8s.aws", kind: "CNINode", plural: "cninodes", versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: ServiceAccount
metadata:
  name: aws-node
  namespace: kube-system
  labels: {app.kubernetes.io/name: aws-node, app.kubernetes.io/instance: aws-vpc-cni, k8s-app: aws-node, app.kubernetes.io/version: v1.19.2}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: aws-node
  labels: {app.kubernetes.io/name: aws-node, app.kubernetes.io/instance: aws-vpc-cni, k8s-app: aws-node}
rules:
- apiGroups: ["crd.k8s.amazonaws.com"]
  resources: ["eniconfigs"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["networking.k8s.aws"]
  resources: ["policyendpoints"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["networking.k8s.aws"]
  resources: ["policyendpoints/status"]
  verbs: ["get"]
- apiGroups: ["vpcresources.k8s.aws"]
  resources: ["cninodes"]
  verbs: ["get", "list", "watch", "patch"]
- apiGroups: [""]
  resources: ["namespaces", "pods"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["get", "list", "watch", "update"]
- apiGroups: ["networking.k8s.io"]
  resources: ["networkpolicies"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["", "events.k8s.io"]
  resources: ["events"]
  verbs: ["create", "patch", "list"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: aws-node
  labels: {app.kubernetes.io/name: aws-node, app.kubernetes.io/instance: aws-vpc-cni, k8s-app: aws-node}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: aws-node
subjects:
- kind: ServiceAccount
  name: aws-node
  namespace: kube-system
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: amazon-vpc-cni
  namespace: kube-system
  labels: {app.kubernetes.io/name: aws-node, app.kubernetes.io/instance: aws-vpc-cni, k8s-app: aws-node}
data:
  enable-network-policy-controller: "false"
  enable-windows-ipam: "false"
  enable-windows-prefix-delegation: "false"
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: aws-node
  namespace: kube-system
  labels: {app.kubernetes.io/name: aws-node, app.kubernetes.io/instance: aws-vpc-cni, k8s-app: aws-node, app.kubernetes.io/version: v1.19.2}
spec:
  selector:
    matchLabels: {k8s-app: aws-node}
  template:
    metadata:
      labels: {app.kubernetes.io/name: aws-node, app.kubernetes.io/instance: aws-vpc-cni, k8s-app: aws-node}
    spec:
      serviceAccountName: aws-node
      hostNetwork: true
      priorityClassName: system-node-critical
      containers:
      - name: aws-node
        image: 602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.19.2-eksbuild.1
        env:
        - {name: NETWORK_POLICY_ENFORCING_MODE, value: standard}
        - {name: AWS_VPC_K8S_CNI_LOGLEVEL, value: DEBUG}
        - {name: ENABLE_PREFIX_DELEGATION, value: "false"}
      - name: aws-eks-nodeagent
        image: 602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon/aws-network-policy-agent:v1.1.6-eksbuild.1
        args: ["--enable-ipv6=false", "--enable-network-policy=false", "--enable-cloudwatch-logs=false", "--enable-policy-event-logs=false", "--log-file=/var/log/aws-routed-eni/network-policy-agent.log", "--metrics-bind-addr=:8162", "--health-probe-bind-addr=:8163", "--conntrack-cache-cleanup-period=300"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: demo
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: allow-frontend
  namespace: demo
  finalizers: [networking.k8s.aws/resources]
spec:
  podSelector:
    matchLabels: {app: backend}
  policyTypes: [Ingress]
  ingress:
  - from:
    - podSelector:
        matchLabels: {app: frontend}
    ports:
    - {protocol: TCP, port: 8080}
---
apiVersion: networking.k8s.aws/v1alpha1
kind: PolicyEndpoint
metadata:
  name: allow-frontend-7xk2q
  namespace: demo
  ownerReferences:
  - apiVersion: networking.k8s.io/v1
    kind: NetworkPolicy
    name: allow-frontend
    controller: true
    blockOwnerDeletion: true
spec:
  policyRef: {name: allow-frontend, namespace: demo}
  podIsolation: [Ingress]
  podSelector:
    matchLabels: {app: backend}
  podSelectorEndpoints:
  - {hostIP: 192.168.14.21, podIP: 192.168.7.110, name: backend-6d9f7c5b8d-2lq4m, namespace: demo}
  ingress:
  - cidr: 192.168.22.53
    ports:
    - {protocol: TCP, port: 8080}
`,
		deletes: []string{"NetworkPolicy/demo/allow-frontend"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "networkpolicies.networking.k8s.io", "allow-frontend", "-n", "demo")
	d.exit(1, "STUCK")
	f := d.finalizer("networkpolicies.networking.k8s.io/allow-frontend -n demo", "networking.k8s.aws/resources")
	// Nothing that runs removes it: the agent and the add-on's controller were switched off, and
	// the aws-node DaemonSet that still runs may not update NetworkPolicies.
	d.noRunningRemover(f)
	// The switch that turned the remover off is the cause the thread names.
	d.explains(f, "enable-network-policy")
	d.offers(f, stripFinalizer)
}
