package whyterminating_test

import (
	"strings"
	"testing"
	"time"
)

// Report: https://github.com/mongodb/mongodb-atlas-kubernetes/issues/425 ("AtlasProject CR
// deletion gets stuck if the credentials secret has been deleted or credentials are expired",
// operator 0.7.0 on OpenShift 4.9; fixed by #466, "Remove finalizer from the atlas project if
// connection secret is gone"): the Secret with the Atlas API key that the AtlasProject names
// (spec.connectionSecretRef) is deleted, then the AtlasProject; its deletion hangs on the
// finalizer mongodbatlas/finalizer. The operator (running) reads the connection Secret first on
// every pass, to delete the project in Atlas before it removes the finalizer; with the Secret
// gone it stops there (condition ProjectReady False, AtlasCredentialsNotProvided) every time.
// What holds it is the missing Secret: creating it again (with a valid key) lets the operator
// delete the project in Atlas and remove its finalizer; removing the finalizer by hand instead
// leaves the Atlas project (status.id) behind in Atlas.
//
// Modelled on the operator's all-in-one install of 0.7.0 (deploy/all-in-one.yaml; the OLM bundle
// on OpenShift installs the same): in namespace mongodb-atlas-system the ServiceAccount
// mongodb-atlas-operator, the ClusterRole mongodb-atlas-manager-role (atlasclusters,
// atlasdatabaseusers, atlasprojects with their status; secrets; events) and its binding, the
// leader-election Role, the Deployment mongodb-atlas-operator with its labels and image; the
// CRDs of atlas.mongodb.com. The AtlasProject as the quick start makes it, in namespace default.
func TestCorpusAtlasProjectWithItsCredentialsSecretDeleted(t *testing.T) {
	at := func(kind, plural string) crd {
		return crd{group: "atlas.mongodb.com", kind: kind, plural: plural, namespaced: true, versions: []string{"v1"}}
	}
	labels := `{app.kubernetes.io/component: controller, app.kubernetes.io/instance: mongodb-atlas-kubernetes-operator, app.kubernetes.io/name: mongodb-atlas-kubernetes-operator}`
	replay{
		crds: []crd{
			at("AtlasProject", "atlasprojects"),
			at("AtlasCluster", "atlasclusters"),
			at("AtlasDatabaseUser", "atlasdatabaseusers"),
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: mongodb-atlas-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: mongodb-atlas-operator
  namespace: mongodb-atlas-system
  labels: ` + labels + `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: mongodb-atlas-manager-role
  labels: ` + labels + `
rules:
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: ["atlas.mongodb.com"]
  resources: ["atlasclusters", "atlasdatabaseusers", "atlasprojects"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["atlas.mongodb.com"]
  resources: ["atlasclusters/status", "atlasdatabaseusers/status", "atlasprojects/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: mongodb-atlas-manager-rolebinding
  labels: ` + labels + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: mongodb-atlas-manager-role
subjects:
- kind: ServiceAccount
  name: mongodb-atlas-operator
  namespace: mongodb-atlas-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: mongodb-atlas-leader-election-role
  namespace: mongodb-atlas-system
  labels: ` + labels + `
rules:
- apiGroups: ["", "coordination.k8s.io"]
  resources: ["configmaps", "leases"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: mongodb-atlas-leader-election-rolebinding
  namespace: mongodb-atlas-system
  labels: ` + labels + `
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: mongodb-atlas-leader-election-role
subjects:
- kind: ServiceAccount
  name: mongodb-atlas-operator
  namespace: mongodb-atlas-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: mongodb-atlas-operator
  namespace: mongodb-atlas-system
  labels: ` + labels + `
spec:
  replicas: 1
  selector:
    matchLabels: ` + labels + `
  template:
    metadata:
      labels: ` + labels + `
    spec:
      serviceAccountName: mongodb-atlas-operator
      containers:
      - name: manager
        image: mongodb/mongodb-atlas-kubernetes-operator:0.7.0
        command: ["/manager"]
        args: ["--atlas-domain=https://cloud.mongodb.com", "--enable-leader-election", "--metrics-bind-address=127.0.0.1:8080"]
        env:
        - {name: OPERATOR_POD_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
        - {name: OPERATOR_NAMESPACE, valueFrom: {fieldRef: {fieldPath: metadata.namespace}}}
`,
		objects: `
apiVersion: atlas.mongodb.com/v1
kind: AtlasProject
metadata:
  name: my-project
  namespace: default
  finalizers: [mongodbatlas/finalizer]
spec:
  name: Test Atlas Operator Project
  connectionSecretRef:
    name: my-atlas-key
  projectIpAccessList:
  - ipAddress: 192.0.2.15
    comment: IP address for Application Server A
status:
  id: 620b9d3c1bc5b8429d6d2d7a
  observedGeneration: 1
  conditions:
  - type: Ready
    status: "False"
    lastTransitionTime: "2022-02-15T14:02:11Z"
  - type: ProjectReady
    status: "False"
    reason: AtlasCredentialsNotProvided
    message: Secret "my-atlas-key" not found
    lastTransitionTime: "2022-02-15T14:02:11Z"
  - type: IPAccessListReady
    status: "True"
    lastTransitionTime: "2022-02-15T13:41:52Z"
`,
		deletes: []string{"AtlasProject/default/my-project"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "atlasprojects.atlas.mongodb.com", "my-project", "-n", "default")
	d.exit(1, "STUCK")
	f := d.finalizer("atlasprojects.atlas.mongodb.com/my-project -n default", "mongodbatlas/finalizer")
	d.remover(f, "deployments.apps/mongodb-atlas-operator -n mongodb-atlas-system", true)
	// The operator runs and cannot reach Atlas without the Secret the project names: that
	// Secret is what holds it, and creating it again is the way out that deletes the project in
	// Atlas; the strip leaves the Atlas project behind.
	d.blocker(f, "secrets/my-atlas-key -n default")
	d.notFirstFix(f, stripFinalizer, readLogs)
	d.never(f, reinstall, restoreController)
	// The strip's cost names the Atlas project the object records (status.id).
	named := false
	for _, r := range f.Remedies {
		if r.Code == stripFinalizer && strings.Contains(r.Cost, "620b9d3c1bc5b8429d6d2d7a") {
			named = true
		}
	}
	if !named {
		t.Errorf("finalizer %s: no strip whose cost names the Atlas project 620b9d3c1bc5b8429d6d2d7a (status.id)", f.Name)
	}
}
