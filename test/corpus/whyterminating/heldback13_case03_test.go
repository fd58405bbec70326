package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/kubeshop/kusk-gateway/issues/599 ("Deleting `kusk-system`
// namespace never gets finished"): `kubectl delete ns kusk-system` hangs every time; the
// namespace's conditions say "Some resources are remaining: staticroutes.gateway.kusk.io has 1
// resource instances" with its finalizer remaining. Kusk Gateway's manager, which removes the
// StaticRoute's finalizer, ran in that same namespace and went with the namespace's other
// content before it could. The maintainers' fix (kusk#1030, "Kusk uninstall fix", quoting the
// same condition with gateway.kusk.io/srfinalizer): delete Kusk's custom resources first, then
// the kusk-system components. For a namespace already stuck: remove the finalizer by hand (or
// install Kusk again so that its manager finishes).
//
// Modelled on Kusk Gateway's install of that summer (kusk install / the kusk-gateway chart):
// the CRDs of gateway.kusk.io (apis, staticroutes, envoyfleet), the ClusterRole
// kusk-gateway-manager-role and its ClusterRoleBinding to the ServiceAccount
// kusk-gateway-manager in kusk-system, which are cluster-scoped and stay; the manager's
// Deployment, ServiceAccount, Services and the envoy fleet's workloads were in kusk-system and
// went with it (not replayed). Kusk's admission webhooks are left out (the report says nothing
// of them). The StaticRoute is the dashboard's route the install creates, with the manager's
// finalizer.
func TestCorpusKuskNamespaceDeletedWithItsManager(t *testing.T) {
	lbl := map[string]string{"app.kubernetes.io/name": "kusk-gateway", "app.kubernetes.io/instance": "kusk-gateway", "app.kubernetes.io/managed-by": "Helm"}
	kg := func(kind, plural string) crd {
		return crd{group: "gateway.kusk.io", kind: kind, plural: plural, namespaced: true, versions: []string{"v1alpha1"}, labels: lbl}
	}
	chart := `{app.kubernetes.io/name: kusk-gateway, app.kubernetes.io/instance: kusk-gateway, app.kubernetes.io/managed-by: Helm, helm.sh/chart: kusk-gateway-0.0.53}`
	replay{
		crds: []crd{
			kg("API", "apis"),
			kg("StaticRoute", "staticroutes"),
			kg("EnvoyFleet", "envoyfleet"),
		},
		install: `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kusk-gateway-manager-role
  labels: ` + chart + `
rules:
- apiGroups: ["gateway.kusk.io"]
  resources: ["apis", "staticroutes", "envoyfleet"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["gateway.kusk.io"]
  resources: ["apis/finalizers", "staticroutes/finalizers", "envoyfleet/finalizers"]
  verbs: ["update"]
- apiGroups: ["gateway.kusk.io"]
  resources: ["apis/status", "staticroutes/status", "envoyfleet/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["", "apps"]
  resources: ["services", "configmaps", "deployments", "secrets"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kusk-gateway-manager-rolebinding
  labels: ` + chart + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: kusk-gateway-manager-role
subjects:
- kind: ServiceAccount
  name: kusk-gateway-manager
  namespace: kusk-system
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: kusk-system
  labels: {name: kusk-system}
---
apiVersion: gateway.kusk.io/v1alpha1
kind: StaticRoute
metadata:
  name: kusk-gateway-dashboard
  namespace: kusk-system
  finalizers: [gateway.kusk.io/srfinalizer]
spec:
  fleet:
    name: kusk-gateway-private-envoy-fleet
    namespace: kusk-system
  hosts: ["*"]
  paths:
    /:
      get:
        route:
          upstream:
            service:
              name: kusk-gateway-dashboard
              namespace: kusk-system
              port: 80
`,
		deletes: []string{"Namespace//kusk-system"},
	}.run(t)

	// "gets stuck every single time": looked at a while later.
	d := diagnoseAfter(t, time.Hour, "namespace", "kusk-system")
	d.exit(1, "STUCK")
	f := d.finalizer("staticroutes.gateway.kusk.io/kusk-gateway-dashboard -n kusk-system", "gateway.kusk.io/srfinalizer")
	// Its remover went with the namespace: nothing running removes it.
	d.noRunningRemover(f)
	d.offers(f, stripFinalizer)
	d.never(f, readLogs)
}
