package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/kubeovn/kube-ovn/issues/4243 ("Unable to delete subnet due to
// leftover IP"): Kube-OVN v1.12.12. The custom-VPC example (a VPC, its subnets and a
// NetworkAttachmentDefinition for a second interface) was deleted with `kubectl delete -f`; the
// NetworkAttachmentDefinition went before the Subnet attach-subnet, and the Subnet stays, its
// finalizer kept by kube-ovn-controller, which logs "subnet attach-subnet has 1 v4 ip in use,
// while the v4 using ip range is empty" and requeues. The controller removes the Subnet's
// finalizer only once no IP of it is in use. The resolution in the thread: "delete leftover ip
// in kubectl get ip" (the ips.kubeovn.io object of the attachment, whose pod is gone), after which
// the controller lets the Subnet go.
//
// Modelled on Kube-OVN's install.sh of v1.12 (namespace kube-system): the ServiceAccount ovn and
// its ClusterRole system:ovn (kubeovn.io resources with their status; pods, namespaces, services,
// nodes; network-attachment-definitions read; abbreviated to those) with its binding, the
// Deployment kube-ovn-controller (labels app: kube-ovn-controller, component: network, type:
// infra) and the DaemonSet kube-ovn-cni (ServiceAccount kube-ovn-cni, which may read and update
// ips) and Deployment ovn-central, running; the CRDs of kubeovn.io (cluster-scoped subnets, ips,
// vpcs) and k8s.cni.cncf.io's NetworkAttachmentDefinition. The Subnet attach-subnet with the
// controller's finalizer and its status counting one IP in use; the leftover IP of the deleted
// pod's attachment, labelled with the subnet as the controller labels IPs.
func TestCorpusKubeOVNSubnetHeldByALeftoverIP(t *testing.T) {
	ko := func(kind, plural string) crd {
		return crd{group: "kubeovn.io", kind: kind, plural: plural, versions: []string{"v1"}}
	}
	replay{
		crds: []crd{
			ko("Subnet", "subnets"),
			ko("IP", "ips"),
			ko("Vpc", "vpcs"),
			ko("VpcNatGateway", "vpc-nat-gateways"),
			{group: "k8s.cni.cncf.io", kind: "NetworkAttachmentDefinition", plural: "network-attachment-definitions", namespaced: true, versions: []string{"v1"}},
		},
		install: `
apiVersion: v1
kind: ServiceAccount
metadata:
  name: ovn
  namespace: kube-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kube-ovn-cni
  namespace: kube-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: system:ovn
  annotations: {rbac.authorization.k8s.io/system-only: "true"}
rules:
- apiGroups: ["kubeovn.io"]
  resources: ["vpcs", "vpcs/status", "vpc-nat-gateways", "vpc-nat-gateways/status", "subnets", "subnets/status", "ips"]
  verbs: ["*"]
- apiGroups: [""]
  resources: ["pods", "namespaces", "nodes", "services", "endpoints", "configmaps"]
  verbs: ["get", "list", "watch", "patch", "update"]
- apiGroups: ["k8s.cni.cncf.io"]
  resources: ["network-attachment-definitions"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["", "events.k8s.io"]
  resources: ["events"]
  verbs: ["create", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: ovn
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: system:ovn
subjects:
- kind: ServiceAccount
  name: ovn
  namespace: kube-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: system:kube-ovn-cni
rules:
- apiGroups: ["kubeovn.io"]
  resources: ["subnets", "vlans", "provider-networks"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["kubeovn.io"]
  resources: ["ips"]
  verbs: ["get", "update"]
- apiGroups: [""]
  resources: ["pods", "nodes"]
  verbs: ["get", "list", "patch", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kube-ovn-cni
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: system:kube-ovn-cni
subjects:
- kind: ServiceAccount
  name: kube-ovn-cni
  namespace: kube-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kube-ovn-controller
  namespace: kube-system
  labels: {app: kube-ovn-controller, component: network, type: infra}
spec:
  replicas: 1
  selector:
    matchLabels: {app: kube-ovn-controller}
  template:
    metadata:
      labels: {app: kube-ovn-controller, component: network, type: infra}
    spec:
      serviceAccountName: ovn
      containers:
      - name: kube-ovn-controller
        image: docker.io/kubeovn/kube-ovn:v1.12.12
        command: ["/kube-ovn/start-controller.sh"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ovn-central
  namespace: kube-system
  labels: {app: ovn-central, component: network, type: infra}
spec:
  replicas: 1
  selector:
    matchLabels: {app: ovn-central}
  template:
    metadata:
      labels: {app: ovn-central, component: network, type: infra}
    spec:
      serviceAccountName: ovn
      containers:
      - name: ovn-central
        image: docker.io/kubeovn/kube-ovn:v1.12.12
        command: ["/kube-ovn/start-db.sh"]
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: kube-ovn-cni
  namespace: kube-system
  labels: {app: kube-ovn-cni, component: network, type: infra}
spec:
  selector:
    matchLabels: {app: kube-ovn-cni}
  template:
    metadata:
      labels: {app: kube-ovn-cni, component: network, type: infra}
    spec:
      serviceAccountName: kube-ovn-cni
      containers:
      - name: cni-server
        image: docker.io/kubeovn/kube-ovn:v1.12.12
        command: ["bash", "/kube-ovn/start-cniserver.sh"]
`,
		objects: `
apiVersion: kubeovn.io/v1
kind: Subnet
metadata:
  name: attach-subnet
  finalizers: [kube-ovn-controller]
spec:
  cidrBlock: 172.17.0.0/16
  gateway: 172.17.0.1
  protocol: IPv4
  provider: attachnet.default.ovn
  excludeIps: [172.17.0.1]
status:
  v4usingIPs: 1
  v4availableIPs: 65532
  v4usingIPrange: ""
  conditions:
  - type: Ready
    status: "True"
    reason: ResetLogicalSwitchAclSuccess
    lastTransitionTime: "2024-06-30T03:40:12Z"
---
apiVersion: kubeovn.io/v1
kind: IP
metadata:
  name: attach-pod.default.attachnet.default.ovn
  labels:
    ovn.kubernetes.io/subnet: attach-subnet
    attach-subnet: ""
spec:
  podName: attach-pod
  namespace: default
  subnet: attach-subnet
  nodeName: worker-1
  ipAddress: 172.17.0.2
  v4IpAddress: 172.17.0.2
  macAddress: 00:00:00:5e:12:7a
  podType: ""
  attachIps: []
  attachMacs: []
  attachSubnets: []
`,
		deletes: []string{"Subnet//attach-subnet"},
	}.run(t)

	// "After wait a few minutes".
	d := diagnoseAfter(t, 10*time.Minute, "subnets.kubeovn.io", "attach-subnet")
	d.exit(1, "STUCK")
	f := d.finalizer("subnets.kubeovn.io/attach-subnet", "kube-ovn-controller")
	// kube-ovn-controller runs and waits for the IPs of the subnet to go: the leftover IP is the
	// blocker, and deleting it is the fix; stripping would leave its allocation in OVN.
	d.remover(f, "deployments.apps/kube-ovn-controller -n kube-system", true)
	d.blocker(f, "ips.kubeovn.io/attach-pod.default.attachnet.default.ovn")
	d.notFirstFix(f, stripFinalizer)
	d.never(f, reinstall)
}
