package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/epam/edp-keycloak-operator/issues/173 ("Dangling CRs when
// corresponding realm is gone"): "When a KeycloakRealm (or ClusterKeycloakRealm) resource is
// deleted the finalization logic for resources in that realm fails to complete ... the reconcile
// fails to instantiate the client (can't find the realm) for that realm and returns with an
// error. In case of resource deletion, the finalizer will never be removed". Reproduced by
// creating a realm and a client in it, then deleting the realm, then the client. The fix
// (epam/edp-keycloak-operator#174): when the referenced realm no longer exists, remove the
// finalizer (the realm, and every client in it, is already deleted in Keycloak). What the cluster
// shows: the operator runs; the KeycloakClient's spec.realmRef names a KeycloakRealm that does not
// exist, and its status carries the error since. The way out for a stuck client is removing that
// one finalizer; nothing of it is left in Keycloak.
//
// Modelled on the Helm chart keycloak-operator (epamedp, 1.25): namespace security with the
// ServiceAccount edp-keycloak-operator, its ClusterRole (rules abbreviated to v1.edp.epam.com and
// what bears on the case) and binding, the Deployment keycloak-operator, the Keycloak connection
// object keycloak-main; the CRDs of v1.edp.epam.com; the client of the report in its namespace.
func TestCorpusEDPKeycloakClientOfADeletedRealm(t *testing.T) {
	chart := map[string]string{"app.kubernetes.io/name": "keycloak-operator", "app.kubernetes.io/instance": "keycloak-operator", "app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "keycloak-operator-1.25.0"}
	replay{
		crds: []crd{
			{group: "v1.edp.epam.com", kind: "Keycloak", plural: "keycloaks", namespaced: true, versions: []string{"v1"}, labels: chart},
			{group: "v1.edp.epam.com", kind: "KeycloakRealm", plural: "keycloakrealms", namespaced: true, versions: []string{"v1"}, labels: chart},
			{group: "v1.edp.epam.com", kind: "KeycloakClient", plural: "keycloakclients", namespaced: true, versions: []string{"v1"}, labels: chart},
			{group: "v1.edp.epam.com", kind: "KeycloakRealmUser", plural: "keycloakrealmusers", namespaced: true, versions: []string{"v1"}, labels: chart},
			{group: "v1.edp.epam.com", kind: "ClusterKeycloakRealm", plural: "clusterkeycloakrealms", versions: []string{"v1alpha1"}, labels: chart},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: security
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: edp-keycloak-operator
  namespace: security
  labels:
    app.kubernetes.io/name: keycloak-operator
    app.kubernetes.io/instance: keycloak-operator
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: keycloak-operator-1.25.0
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: edp-keycloak-operator-security
  labels:
    app.kubernetes.io/name: keycloak-operator
    helm.sh/chart: keycloak-operator-1.25.0
rules:
- apiGroups: ["v1.edp.epam.com"]
  resources: ["keycloaks", "keycloakrealms", "keycloakclients", "keycloakrealmusers", "clusterkeycloakrealms"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["v1.edp.epam.com"]
  resources: ["keycloaks/finalizers", "keycloakrealms/finalizers", "keycloakclients/finalizers", "keycloakrealmusers/finalizers", "clusterkeycloakrealms/finalizers"]
  verbs: ["update"]
- apiGroups: ["v1.edp.epam.com"]
  resources: ["keycloaks/status", "keycloakrealms/status", "keycloakclients/status", "keycloakrealmusers/status", "clusterkeycloakrealms/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: [""]
  resources: ["secrets", "configmaps"]
  verbs: ["create", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: edp-keycloak-operator-security
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: edp-keycloak-operator-security
subjects:
- kind: ServiceAccount
  name: edp-keycloak-operator
  namespace: security
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: keycloak-operator
  namespace: security
  labels:
    app.kubernetes.io/name: keycloak-operator
    app.kubernetes.io/instance: keycloak-operator
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: keycloak-operator-1.25.0
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: keycloak-operator
      app.kubernetes.io/instance: keycloak-operator
  template:
    metadata:
      labels:
        app.kubernetes.io/name: keycloak-operator
        app.kubernetes.io/instance: keycloak-operator
    spec:
      serviceAccountName: edp-keycloak-operator
      containers:
      - name: keycloak-operator
        image: epamedp/keycloak-operator:1.25.0
        command: ["/manager"]
        args: ["--leader-elect"]
---
apiVersion: v1.edp.epam.com/v1
kind: Keycloak
metadata:
  name: keycloak-main
  namespace: security
spec:
  url: https://keycloak.example.com
  secret: keycloak-access
status:
  connected: true
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: app-team
---
apiVersion: v1.edp.epam.com/v1
kind: KeycloakClient
metadata:
  name: my-app
  namespace: app-team
  finalizers:
  - keycloak.client.operator.finalizer.name
spec:
  clientId: my-app
  realmRef:
    kind: KeycloakRealm
    name: my-realm
  public: false
  webUrl: https://my-app.example.com
  secret: $my-app-client-secret:secret
status:
  value: 'unable to serve keycloak client: unable to get keycloak client for realm: unable to get KeycloakRealm: KeycloakRealm.v1.edp.epam.com "my-realm" not found'
  failureCount: 27
`,
		deletes: []string{"KeycloakClient/app-team/my-app"},
	}.run(t)

	d := diagnoseAfter(t, 20*time.Minute, "keycloakclients.v1.edp.epam.com", "my-app", "-n", "app-team")
	d.exit(1, "STUCK")
	f := d.finalizer("keycloakclients.v1.edp.epam.com/my-app -n app-team", "keycloak.client.operator.finalizer.name")
	// The operator runs and would remove the finalizer, but only through the realm the client
	// names, which does not exist: that missing realm is what the report names, and the finalizer
	// is removed by hand.
	d.remover(f, "deployments.apps/keycloak-operator -n security", true)
	d.names(f, "keycloakrealms.v1.edp.epam.com/my-realm -n app-team")
	d.never(f, reinstall, restoreController)
	d.offers(f, stripFinalizer)
}
