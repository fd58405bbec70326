package whyterminating_test

import "testing"

// Report: https://github.com/arangodb/kube-arangodb/issues/251 ("Finalizers preventing
// namespace termination"): `kubectl delete ns example` deleted the ArangoDB operator, which ran
// in that namespace, together with the ArangoDeployment; "the finalizers on the ArangoDeployment
// are never removed, since the namespace deletion has already terminated the arangodb operator
// ... Also, the arangodb PVCs are never deleted, since they have finalizers that wait for the
// ArangoDeployment to tear down". Nothing left runs that removes them; the report's own way out
// is to tear the deployment down while the operator still runs, and (kube-arangodb#224) to
// remove the finalizers by hand.
//
// Modelled on kube-arangodb's manifests/arango-deployment.yaml (0.2.x): the CRD
// arangodeployments.database.arangodb.com, the cluster-scoped ClusterRole
// arango-deployment-operator-rbac-crd and its binding to the operator's service account in
// the deleted namespace (the namespaced Role, ServiceAccount and Deployment went with it),
// and the finalizers docs/design/finalizers.md names.
func TestCorpusArangoDBOperatorDeletedWithItsNamespace(t *testing.T) {
	replay{
		crds: []crd{{group: "database.arangodb.com", kind: "ArangoDeployment", plural: "arangodeployments", namespaced: true, versions: []string{"v1alpha"}}},
		install: `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: arango-deployment-operator-rbac-crd
  labels:
    app.kubernetes.io/name: kube-arangodb
    app.kubernetes.io/instance: deployment
rules:
- apiGroups: ["apiextensions.k8s.io"]
  resources: ["customresourcedefinitions"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: arango-deployment-operator-rbac-crd
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: arango-deployment-operator-rbac-crd
subjects:
- kind: ServiceAccount
  name: arango-deployment-operator
  namespace: example
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: example
---
apiVersion: database.arangodb.com/v1alpha
kind: ArangoDeployment
metadata:
  name: example-arangodb
  namespace: example
  finalizers:
  - database.arangodb.com/remove-child-finalizers
spec:
  mode: Cluster
status:
  phase: Running
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: example-arangodb-dbserver-prmr-x7k2
  namespace: example
  labels:
    app: arangodb
    arango_deployment: example-arangodb
    role: dbserver
  finalizers:
  - kubernetes.io/pvc-protection
  - pvc.database.arangodb.com/member-exists
spec:
  accessModes: ["ReadWriteOnce"]
  resources:
    requests:
      storage: 8Gi
`,
		deletes: []string{"Namespace//example"},
	}.run(t)

	d := diagnose(t, "namespace", "example")
	d.exit(1, "STUCK")
	for ref, fin := range map[string]string{
		"arangodeployments.database.arangodb.com/example-arangodb -n example":   "database.arangodb.com/remove-child-finalizers",
		"persistentvolumeclaims/example-arangodb-dbserver-prmr-x7k2 -n example": "pvc.database.arangodb.com/member-exists",
	} {
		f := d.finalizer(ref, fin)
		d.verdict(f, controllerAbsent)
		d.noRunningRemover(f)
		d.offers(f, stripFinalizer)
	}
}
