package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/gardener/external-dns-management/issues/169 ("DNS entries without
// targets go to state stale and cannot be deleted anymore"): after deploying the DNS controller
// manager v0.8.2, DNSEntries (dns.gardener.cloud) whose targets were removed (generated for
// ingresses and services whose load balancer had been deleted) go to state Stale, and deleting
// them hangs: since #165 the controller keeps the entry's finalizer until the provider has
// deleted its records, and for an entry in state Stale it never gets there. The maintainers fixed
// it in the next release (such entries go to state Invalid, their records are removed and they
// can be deleted); on the release that has the bug the way out is to upgrade the controller (or
// remove the finalizer by hand, after checking the record in the DNS zone).
//
// Modelled on the dns-controller-manager chart (charts/external-dns-management, v0.8.2,
// namespace kube-system): the ServiceAccount and ClusterRole of the controller manager on
// dns.gardener.cloud (dnsentries, dnsproviders, dnsowners, dnsannotations with their status;
// services and ingresses read; abbreviated to those) with its binding, the Deployment
// dns-controller-manager, running; the CRDs of dns.gardener.cloud with the chart's labels; an
// AWS Route53 DNSProvider, Ready. The DNSEntry a Service source generated, with the compound
// controller's finalizer (dns.gardener.cloud/compound), Stale since its target went.
func TestCorpusGardenerDNSEntryStaleWithoutTargets(t *testing.T) {
	lbl := map[string]string{"app.kubernetes.io/name": "external-dns-management", "helm.sh/chart": "external-dns-management-0.8.2"}
	dg := func(kind, plural string) crd {
		return crd{group: "dns.gardener.cloud", kind: kind, plural: plural, namespaced: true, versions: []string{"v1alpha1"}, labels: lbl}
	}
	chart := `{app.kubernetes.io/name: external-dns-management, app.kubernetes.io/instance: dns-controller-manager, app.kubernetes.io/managed-by: Helm, helm.sh/chart: external-dns-management-0.8.2}`
	replay{
		crds: []crd{
			dg("DNSEntry", "dnsentries"),
			dg("DNSProvider", "dnsproviders"),
			dg("DNSAnnotation", "dnsannotations"),
			{group: "dns.gardener.cloud", kind: "DNSOwner", plural: "dnsowners", versions: []string{"v1alpha1"}, labels: lbl},
		},
		install: `
apiVersion: v1
kind: ServiceAccount
metadata:
  name: dns-controller-manager
  namespace: kube-system
  labels: ` + chart + `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: gardener.cloud:dns-controller-manager
  labels: ` + chart + `
rules:
- apiGroups: ["dns.gardener.cloud"]
  resources: ["dnsentries", "dnsentries/status", "dnsproviders", "dnsproviders/status", "dnsowners", "dnsowners/status", "dnsannotations", "dnsannotations/status"]
  verbs: ["get", "list", "update", "watch", "create", "delete", "patch"]
- apiGroups: [""]
  resources: ["services", "secrets", "configmaps"]
  verbs: ["get", "list", "update", "watch"]
- apiGroups: ["extensions", "networking.k8s.io"]
  resources: ["ingresses"]
  verbs: ["get", "list", "update", "watch"]
- apiGroups: ["", "events.k8s.io"]
  resources: ["events"]
  verbs: ["create", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: gardener.cloud:dns-controller-manager
  labels: ` + chart + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: gardener.cloud:dns-controller-manager
subjects:
- kind: ServiceAccount
  name: dns-controller-manager
  namespace: kube-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: dns-controller-manager
  namespace: kube-system
  labels: ` + chart + `
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: external-dns-management, app.kubernetes.io/instance: dns-controller-manager}
  template:
    metadata:
      labels: {app.kubernetes.io/name: external-dns-management, app.kubernetes.io/instance: dns-controller-manager}
    spec:
      serviceAccountName: dns-controller-manager
      containers:
      - name: external-dns-management
        image: eu.gcr.io/gardener-project/dns-controller-manager:v0.8.2
        args: ["--controllers=dnscontrollers,dnssources", "--identifier=dns-controller-manager"]
`,
		objects: `
apiVersion: dns.gardener.cloud/v1alpha1
kind: DNSProvider
metadata:
  name: aws-route53
  namespace: default
spec:
  type: aws-route53
  secretRef:
    name: aws-route53-credentials
  domains:
    include: [apps.example.org]
status:
  state: Ready
  message: provider operational
  domains:
    included: [apps.example.org]
---
apiVersion: dns.gardener.cloud/v1alpha1
kind: DNSEntry
metadata:
  name: shop-service-kbbl6
  namespace: default
  annotations:
    dns.gardener.cloud/class: gardendns
  finalizers: [dns.gardener.cloud/compound]
spec:
  dnsName: shop.apps.example.org
  ttl: 120
  targets: []
status:
  state: Stale
  message: no target or text specified
  provider: default/aws-route53
  providerType: aws-route53
  zone: Z0123456789ABCDEFGHIJ
  dnsName: shop.apps.example.org
  targets: [a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6-123456789.eu-west-1.elb.amazonaws.com]
  observedGeneration: 2
`,
		deletes: []string{"DNSEntry/default/shop-service-kbbl6"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "dnsentries.dns.gardener.cloud", "shop-service-kbbl6", "-n", "default")
	d.exit(1, "STUCK")
	f := d.finalizer("dnsentries.dns.gardener.cloud/shop-service-kbbl6 -n default", "dns.gardener.cloud/compound")
	// The controller runs and keeps the finalizer of a Stale entry forever (a bug of that
	// release): it is the remover, it will not finish; the strip is the way out, and what it
	// leaves is the record for shop.apps.example.org in the zone the status names.
	d.remover(f, "deployments.apps/dns-controller-manager -n kube-system", true)
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
}
