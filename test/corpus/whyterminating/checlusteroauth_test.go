package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/eclipse-che/che-operator/issues/31 ("Prevent operator delete, while
// it still has some CR's to manage"; the same as eclipse-che/che#13717 and, on OSD, #17132): a
// CheCluster with OpenShift OAuth enabled carries oauthclients.finalizers.che.eclipse.org, which
// che-operator removes after deleting the cluster-scoped OAuthClient it made for Che. When the
// operator is removed before the CheCluster (uninstalled through OperatorHub, then the namespace
// deleted), "everything is deleted, but for the checluster CR, which prevents the namespace from
// deletion". The way out given in the thread: `oc patch checluster ... -p '{ "metadata": {
// "finalizers": null }}' --type merge`; what that leaves is the OAuthClient the operator would
// have deleted (spec.auth.oAuthClientName), which must then be deleted by hand.
//
// Modelled on an Eclipse Che 7 install by che-operator through OperatorHub, after the operator was
// uninstalled (its CSV, Deployment, ServiceAccount and RBAC gone; the CRD checlusters.org.eclipse.che
// stays, as OLM leaves CRDs) and the namespace eclipse-che was deleted and emptied of everything
// else. OpenShift's OAuthClient API (oauth.openshift.io/v1, cluster-scoped) is modelled as a CRD
// of the same group, kind and scope, with the OAuthClient the operator made.
func TestCorpusCheClusterOAuthFinalizerAfterItsOperatorWasRemoved(t *testing.T) {
	replay{
		crds: []crd{
			{group: "org.eclipse.che", kind: "CheCluster", plural: "checlusters", namespaced: true, versions: []string{"v1"}},
			{group: "oauth.openshift.io", kind: "OAuthClient", plural: "oauthclients", versions: []string{"v1"}},
		},
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: eclipse-che
---
apiVersion: oauth.openshift.io/v1
kind: OAuthClient
metadata:
  name: openshift-identity-provider-yrlcxs
  labels: {app: che}
secret: 8f3b1c2d4e5f60718293a4b5c6d7e8f9
grantMethod: prompt
redirectURIs:
- http://keycloak-eclipse-che.apps.osd4.example.com/auth/realms/che/broker/openshift-v4/endpoint
---
apiVersion: org.eclipse.che/v1
kind: CheCluster
metadata:
  name: eclipse-che
  namespace: eclipse-che
  finalizers: [oauthclients.finalizers.che.eclipse.org]
spec:
  server:
    cheImageTag: "7.14.2"
    tlsSupport: true
  database:
    externalDb: false
  auth:
    openShiftoAuth: true
    oAuthClientName: openshift-identity-provider-yrlcxs
    oAuthSecret: 8f3b1c2d4e5f60718293a4b5c6d7e8f9
  storage:
    pvcStrategy: per-workspace
status:
  cheClusterRunning: Available
  cheURL: https://che-eclipse-che.apps.osd4.example.com
  keycloakURL: https://keycloak-eclipse-che.apps.osd4.example.com
  openShiftoAuthProvisioned: true
`,
		deletes: []string{"CheCluster/eclipse-che/eclipse-che", "Namespace//eclipse-che"},
	}.run(t)

	d := diagnoseAfter(t, 2*time.Hour, "namespace", "eclipse-che")
	d.exit(1, "STUCK")
	f := d.finalizer("checlusters.org.eclipse.che/eclipse-che -n eclipse-che", "oauthclients.finalizers.che.eclipse.org")
	// che-operator is gone: nothing in the cluster removes it.
	d.verdict(f, controllerAbsent)
	d.noRunningRemover(f)
	d.offers(f, stripFinalizer)
	// What the strip leaves: the OAuthClient the operator would have deleted.
	d.leaves(f, "oauthclients.oauth.openshift.io/openshift-identity-provider-yrlcxs")
	d.never(f, readLogs)
}
