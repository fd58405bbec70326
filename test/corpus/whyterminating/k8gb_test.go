package whyterminating_test

import (
	"strings"
	"testing"
	"time"
)

// Report: https://github.com/k8gb-io/k8gb/issues/300 ("[Infoblox] Finalizer should not fail when
// provider can't communicate with underlying WAPI endpoint"): a Gslb's finalizer
// k8gb.absa.oss/finalizer removes the zone delegation k8gb configured in the edge DNS
// (Infoblox) before the Gslb goes. When k8gb cannot talk to the Infoblox WAPI, the finalizer
// "always returns the error" (`Can't finalize GSLB ... invalid character '<' looking for
// beginning of value`, in k8gb's log only) and the Gslb's deletion "gets stuck and blocks user
// application upgrade or deletion". The maintainers kept the behaviour: the failure shows a
// problem to fix (the connection to the edge DNS), and "the cluster operator always has the
// option to remove the finalizer manually in case of emergency", which leaves the delegation in
// Infoblox. k8gb runs throughout.
//
// Modelled on k8gb's Helm chart (chart/k8gb, v0.7.4) with the Infoblox provider: namespace
// k8gb, the ServiceAccount, ClusterRole (rules abbreviated to the groups that bear on the case)
// and binding, the Deployment k8gb with the chart's labels, image and Infoblox settings, the
// k8gb-coredns Deployment; the CRDs gslbs.k8gb.absa.oss and dnsendpoints.externaldns.k8s.io.
func TestCorpusK8gbGslbEdgeDNSUnreachable(t *testing.T) {
	chart := map[string]string{"app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "k8gb-v0.7.4"}
	replay{
		crds: []crd{
			{group: "k8gb.absa.oss", kind: "Gslb", plural: "gslbs", namespaced: true, versions: []string{"v1beta1"}, labels: chart},
			{group: "externaldns.k8s.io", kind: "DNSEndpoint", plural: "dnsendpoints", namespaced: true, versions: []string{"v1alpha1"}, labels: chart,
				annotations: map[string]string{"api-approved.kubernetes.io": "https://github.com/kubernetes-sigs/external-dns/pull/2007"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: k8gb
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: k8gb
  namespace: k8gb
  labels:
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: k8gb-v0.7.4
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: k8gb
  labels:
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: k8gb-v0.7.4
rules:
- apiGroups: [""]
  resources: ["pods", "services", "endpoints", "events", "configmaps", "secrets"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["extensions", "networking.k8s.io"]
  resources: ["ingresses"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["k8gb.absa.oss"]
  resources: ["gslbs", "gslbs/status", "gslbs/finalizers"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["externaldns.k8s.io"]
  resources: ["dnsendpoints", "dnsendpoints/status"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: k8gb
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: k8gb
subjects:
- kind: ServiceAccount
  name: k8gb
  namespace: k8gb
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: k8gb
  namespace: k8gb
  labels:
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: k8gb-v0.7.4
spec:
  replicas: 1
  selector:
    matchLabels:
      name: k8gb
  template:
    metadata:
      labels:
        name: k8gb
    spec:
      serviceAccountName: k8gb
      containers:
      - name: k8gb
        image: absaoss/k8gb:v0.7.4
        command: ["/manager"]
        env:
        - name: CLUSTER_GEO_TAG
          value: eu
        - name: EXT_GSLB_CLUSTERS_GEO_TAGS
          value: us
        - name: EDGE_DNS_ZONE
          value: cloud.example.com
        - name: DNS_ZONE
          value: k8gb.cloud.example.com
        - name: EDGE_DNS_SERVER
          value: 10.12.4.53
        - name: INFOBLOX_GRID_HOST
          value: infoblox.corp.example.com
        - name: INFOBLOX_WAPI_VERSION
          value: "2.3.1"
        - name: INFOBLOX_WAPI_PORT
          value: "443"
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: k8gb-coredns
  namespace: k8gb
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: k8gb-coredns
  namespace: k8gb
  labels:
    app.kubernetes.io/name: coredns
    app.kubernetes.io/instance: k8gb
    app.kubernetes.io/managed-by: Helm
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: coredns
      app.kubernetes.io/instance: k8gb
  template:
    metadata:
      labels:
        app.kubernetes.io/name: coredns
        app.kubernetes.io/instance: k8gb
    spec:
      serviceAccountName: k8gb-coredns
      containers:
      - name: coredns
        image: absaoss/k8s_crd:v0.0.4
        args: ["-conf", "/etc/coredns/Corefile"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: test-gslb
---
apiVersion: k8gb.absa.oss/v1beta1
kind: Gslb
metadata:
  name: podinfo
  namespace: test-gslb
  finalizers:
  - k8gb.absa.oss/finalizer
spec:
  ingress:
    rules:
    - host: podinfo.k8gb.cloud.example.com
      http:
        paths:
        - path: /
          backend:
            serviceName: podinfo
            servicePort: http
  strategy:
    type: roundRobin
    dnsTtlSeconds: 30
    splitBrainThresholdSeconds: 300
status:
  geoTag: eu
  healthyRecords:
    podinfo.k8gb.cloud.example.com:
    - 10.12.8.21
    - 10.12.8.22
  serviceHealth:
    podinfo.k8gb.cloud.example.com: Healthy
`,
		deletes: []string{"Gslb/test-gslb/podinfo"},
	}.run(t)

	d := diagnoseAfter(t, 30*time.Minute, "gslbs.k8gb.absa.oss", "podinfo", "-n", "test-gslb")
	d.exit(1, "STUCK")
	f := d.finalizer("gslbs.k8gb.absa.oss/podinfo -n test-gslb", "k8gb.absa.oss/finalizer")
	// k8gb runs and fails to finish against its edge DNS; its log is where that failure is, so
	// reading it comes first, not a reinstall of a controller that runs. Removing the finalizer
	// by hand is the emergency way out only, after that.
	d.remover(f, "deployments.apps/k8gb -n k8gb", true)
	d.firstFix(f, readLogs)
	d.never(f, reinstall, restoreController)
	d.notRemover(f, "deployments.apps/k8gb-coredns -n k8gb")
	for _, r := range f.Remedies {
		if r.Code == stripFinalizer && !r.LastResort {
			t.Errorf("the strip is offered as a fix while k8gb runs, want it only as the last resort")
		}
		// The Gslb's spec.ingress paths are where requests go: nothing of them stays on a node.
		if strings.Contains(r.Cost, "node-local path") {
			t.Errorf("step %s: cost %q names an HTTP route's path as a node-local path", r.Code, r.Cost)
		}
	}
}
