package whyterminating_test

import "testing"

// Report: https://github.com/carlosedp/lbconfig-operator/issues/5 ("Load Balancer instances get
// stuck if deleted and operator is not running"): the operator configures an external load
// balancer (F5, NetScaler) with a VIP and a pool of the cluster's nodes for each
// ExternalLoadBalancer; its finalizer removes that configuration from the appliance. With the
// operator's pods removed, deleting the ExternalLoadBalancer hangs. The maintainer: patch the
// CR to remove the finalizer (kubectl patch externalloadbalancers <name> -n
// lbconfig-operator-system -p '{"metadata":{"finalizers":[]}}' --type=merge), or run the
// operator again so that it cleans the appliance up. Stripping leaves the VIP and its pool
// configured on the appliance.
//
// Modelled on the operator's config/default of May 2021 (namespace lbconfig-operator-system,
// the ServiceAccount lbconfig-operator-controller-manager, the ClusterRole
// lbconfig-operator-manager-role with its rules on lb.lbconfig.io and its binding; the
// Deployment lbconfig-operator-controller-manager removed) and on its samples: the F5 backend
// with its credentials Secret and the infra ExternalLoadBalancer with its VIP.
func TestCorpusLBConfigExternalLoadBalancerOperatorNotRunning(t *testing.T) {
	replay{
		crds: []crd{
			{group: "lb.lbconfig.io", kind: "ExternalLoadBalancer", plural: "externalloadbalancers", namespaced: true, versions: []string{"v1"}},
			{group: "lb.lbconfig.io", kind: "LoadBalancerBackend", plural: "loadbalancerbackends", namespaced: true, versions: []string{"v1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: lbconfig-operator-system
  labels:
    control-plane: controller-manager
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: lbconfig-operator-controller-manager
  namespace: lbconfig-operator-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: lbconfig-operator-manager-role
rules:
- apiGroups: [""]
  resources: ["nodes", "secrets"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["lb.lbconfig.io"]
  resources: ["externalloadbalancers", "loadbalancerbackends"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["lb.lbconfig.io"]
  resources: ["externalloadbalancers/status", "loadbalancerbackends/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: lbconfig-operator-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: lbconfig-operator-manager-role
subjects:
- kind: ServiceAccount
  name: lbconfig-operator-controller-manager
  namespace: lbconfig-operator-system
`,
		objects: `
apiVersion: v1
kind: Secret
metadata:
  name: f5-creds
  namespace: lbconfig-operator-system
type: Opaque
stringData:
  username: admin
  password: replay-placeholder
---
apiVersion: lb.lbconfig.io/v1
kind: LoadBalancerBackend
metadata:
  name: backend-f5-sample
  namespace: lbconfig-operator-system
spec:
  provider:
    vendor: F5
    host: "192.168.1.35"
    port: 443
    creds: f5-creds
    partition: "Common"
    validatecerts: false
---
apiVersion: lb.lbconfig.io/v1
kind: ExternalLoadBalancer
metadata:
  name: externalloadbalancer-infra-sample
  namespace: lbconfig-operator-system
  finalizers:
  - lb.lbconfig.io/finalizer
spec:
  vip: "192.168.1.45"
  type: "infra"
  backend: "backend-f5-sample"
  ports:
  - 80
  - 443
  monitor:
    path: "/healthz"
    port: 1936
    monitortype: http
status:
  vips:
  - name: infra-vip-192.168.1.45-80
    pool: infra-pool-80
    ip: "192.168.1.45"
    port: 80
  - name: infra-vip-192.168.1.45-443
    pool: infra-pool-443
    ip: "192.168.1.45"
    port: 443
  ports: [80, 443]
  monitor:
    name: infra-monitor
    path: "/healthz"
    port: 1936
    monitortype: http
`,
		deletes: []string{"ExternalLoadBalancer/lbconfig-operator-system/externalloadbalancer-infra-sample"},
	}.run(t)

	d := diagnose(t, "externalloadbalancers.lb.lbconfig.io", "externalloadbalancer-infra-sample", "-n", "lbconfig-operator-system")
	d.exit(1, "STUCK")
	f := d.finalizer("externalloadbalancers.lb.lbconfig.io/externalloadbalancer-infra-sample -n lbconfig-operator-system", "lb.lbconfig.io/finalizer")
	// Nothing runs that may remove it: bring the operator back (its namespace stays), or strip,
	// which leaves the VIP the object records configured on the appliance.
	d.verdict(f, controllerAbsent)
	d.noRunningRemover(f)
	d.firstFix(f, reinstall, restoreController)
	d.offers(f, stripFinalizer)
	d.stripCosts(f, "192.168.1.45")
}
