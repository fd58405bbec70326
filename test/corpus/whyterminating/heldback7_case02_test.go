package whyterminating_test

import "testing"

// Report: https://github.com/keycloak/keycloak-operator/issues/446 ("KeycloakRealm deletion stuck
// on namespace deletion"): the Keycloak operator is installed with OLM into a namespace and
// watches that namespace; a Keycloak instance and a KeycloakRealm selecting it
// (spec.instanceSelector) live there too. `kubectl delete namespace` leaves the namespace
// Terminating, held by the KeycloakRealm, which can no longer be deleted by hand either. The
// reporter: "When i first delete the realm then delete the namespace it's working well ... the
// instance got deleted before the realm and then the realm can't delete itself from the non
// existing instance". The legacy operator watches only its own namespace (OLM install mode
// OwnNamespace), so the namespace controller deletes the operator's Deployment, the Keycloak
// instance and the rest together; the realm's finalizer realm.cleanup, which only the operator
// removes after deleting the realm inside Keycloak, stays. Nothing can remove it any more, and the
// operator cannot be installed again in a namespace that refuses new objects: the way out is to
// remove that finalizer (the realm lived in the Keycloak instance, which is gone with its
// namespace).
//
// Modelled on the OLM install of keycloak-operator 15.x from OperatorHub: the CRDs of
// keycloak.org (labelled by OLM with the operator's name), and OLM itself in namespace olm (the
// ServiceAccount olm-operator-serviceaccount bound to the ClusterRole
// system:controller:operator-lifecycle-manager, which may do anything, and the Deployments
// olm-operator and catalog-operator), which stays and runs. What was in the namespace keycloak (the
// operator's Deployment, ServiceAccount, Role and RoleBinding, the CSV and Subscription, the
// Keycloak instance and its StatefulSet) is gone; the realm remains.
func TestCorpusKeycloakRealmAfterItsInstanceWasDeleted(t *testing.T) {
	olm := map[string]string{"operators.coreos.com/keycloak-operator.keycloak": ""}
	replay{
		crds: []crd{
			{group: "keycloak.org", kind: "Keycloak", plural: "keycloaks", namespaced: true, versions: []string{"v1alpha1"}, labels: olm},
			{group: "keycloak.org", kind: "KeycloakRealm", plural: "keycloakrealms", namespaced: true, versions: []string{"v1alpha1"}, labels: olm},
			{group: "keycloak.org", kind: "KeycloakClient", plural: "keycloakclients", namespaced: true, versions: []string{"v1alpha1"}, labels: olm},
			{group: "keycloak.org", kind: "KeycloakUser", plural: "keycloakusers", namespaced: true, versions: []string{"v1alpha1"}, labels: olm},
			{group: "keycloak.org", kind: "KeycloakBackup", plural: "keycloakbackups", namespaced: true, versions: []string{"v1alpha1"}, labels: olm},
			{group: "operators.coreos.com", kind: "ClusterServiceVersion", plural: "clusterserviceversions", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "operators.coreos.com", kind: "Subscription", plural: "subscriptions", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "operators.coreos.com", kind: "OperatorGroup", plural: "operatorgroups", namespaced: true, versions: []string{"v1"}},
			{group: "operators.coreos.com", kind: "CatalogSource", plural: "catalogsources", namespaced: true, versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: olm
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: olm-operator-serviceaccount
  namespace: olm
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: system:controller:operator-lifecycle-manager
rules:
- apiGroups: ["*"]
  resources: ["*"]
  verbs: ["*"]
- nonResourceURLs: ["*"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: olm-operator-binding-olm
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: system:controller:operator-lifecycle-manager
subjects:
- kind: ServiceAccount
  name: olm-operator-serviceaccount
  namespace: olm
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: olm-operator
  namespace: olm
  labels:
    app: olm-operator
spec:
  replicas: 1
  selector:
    matchLabels:
      app: olm-operator
  template:
    metadata:
      labels:
        app: olm-operator
    spec:
      serviceAccountName: olm-operator-serviceaccount
      containers:
      - name: olm-operator
        image: quay.io/operator-framework/olm:v0.19.1
        command: ["/bin/olm"]
        args: ["--namespace", "$(OPERATOR_NAMESPACE)", "--writeStatusName", ""]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: catalog-operator
  namespace: olm
  labels:
    app: catalog-operator
spec:
  replicas: 1
  selector:
    matchLabels:
      app: catalog-operator
  template:
    metadata:
      labels:
        app: catalog-operator
    spec:
      serviceAccountName: olm-operator-serviceaccount
      containers:
      - name: catalog-operator
        image: quay.io/operator-framework/olm:v0.19.1
        command: ["/bin/catalog"]
        args: ["--namespace", "olm", "--configmapServerImage=quay.io/operator-framework/configmap-operator-registry:latest"]
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: keycloak
  labels:
    kubernetes.io/metadata.name: keycloak
---
apiVersion: keycloak.org/v1alpha1
kind: KeycloakRealm
metadata:
  name: example-keycloakrealm
  namespace: keycloak
  labels:
    app: sso
  finalizers:
  - realm.cleanup
spec:
  instanceSelector:
    matchLabels:
      app: sso
  realm:
    id: basic
    realm: basic
    enabled: true
    displayName: Basic Realm
status:
  phase: reconciling
  ready: true
  message: ""
  loginURL: /auth/realms/basic/account
`,
		deletes: []string{"Namespace//keycloak"},
	}.run(t)

	d := diagnose(t, "namespace", "keycloak")
	d.exit(1, "STUCK")
	f := d.finalizer("keycloakrealms.keycloak.org/example-keycloakrealm -n keycloak", "realm.cleanup")
	// OLM may update anything but removes no realm's finalizer: nothing that runs is the
	// remover. The operator ran in the namespace being deleted and cannot come back there.
	d.verdict(f, controllerAbsent, finalizerOrphaned)
	d.noRunningRemover(f)
	d.notRemover(f, "deployments.apps/olm-operator -n olm")
	d.notRemover(f, "deployments.apps/catalog-operator -n olm")
	d.never(f, readLogs, reinstall)
	d.offers(f, stripFinalizer)
}
