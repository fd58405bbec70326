package whyterminating_test

import (
	"testing"
	"time"

	"github.com/kubeforensics/suite/internal/finalizers"
)

// Report: https://github.com/apache/solr-operator/issues/828 ("SolrCloud reconciler blocks
// deletion when providedConfigMap is missing"): a SolrCloud names a ConfigMap of its own in
// spec.customSolrKubeOptions.configMapOptions.providedConfigMap; Helm removed that ConfigMap
// during an uninstall, then the SolrCloud was deleted. The reconciler has no early exit for a
// deleted object: it runs through ZooKeeper, the Services and then fetches the provided
// ConfigMap, returning the error when it is gone ("if they passed a providedConfigMap name, then
// it must exist") — before it ever reaches the storage finalizer, which deletes the cloud's
// PersistentVolumeClaims (reclaimPolicy Delete). The SolrCloud never goes. The thread (root
// cause in solrcloud_controller.go, the fix proposed: handle deletion first) leaves the way out
// by hand: create the ConfigMap again so the reconciler gets past it, or remove the finalizer,
// which leaves the data claims the finalizer would have deleted.
//
// Modelled on the Solr Operator's Helm chart (helm/solr-operator, v0.8): namespace solr, the
// ServiceAccount solr-operator, its ClusterRole solr-operator-role (configmaps, secrets, services
// ...; persistentvolumeclaims get, list, watch, delete; solrclouds of solr.apache.org with
// finalizers and status) and binding, the Deployment solr-operator; the CRDs solrclouds,
// solrbackups and solrprometheusexporters of solr.apache.org. In namespace catalog, the
// SolrCloud search (3 replicas, persistent data, reclaimPolicy Delete, a provided solr.xml
// ConfigMap search-solr-xml that no longer exists), its StatefulSet search-solrcloud as the
// operator made it; the StatefulSet controller of the replay's control plane makes its pods and
// the claims data-search-solrcloud-0..2 of its template, as in the report's cluster.
func TestCorpusSolrCloudDeletionBlockedByItsMissingProvidedConfigMap(t *testing.T) {
	chart := map[string]string{"app.kubernetes.io/name": "solr-operator", "app.kubernetes.io/instance": "solr-operator", "app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "solr-operator-0.8.1"}
	replay{
		crds: []crd{
			{group: "solr.apache.org", kind: "SolrCloud", plural: "solrclouds", namespaced: true, versions: []string{"v1beta1"}, labels: chart},
			{group: "solr.apache.org", kind: "SolrBackup", plural: "solrbackups", namespaced: true, versions: []string{"v1beta1"}, labels: chart},
			{group: "solr.apache.org", kind: "SolrPrometheusExporter", plural: "solrprometheusexporters", namespaced: true, versions: []string{"v1beta1"}, labels: chart},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: solr
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: solr-operator
  namespace: solr
  labels: {app.kubernetes.io/name: solr-operator, app.kubernetes.io/instance: solr-operator, app.kubernetes.io/managed-by: Helm, helm.sh/chart: solr-operator-0.8.1}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: solr-operator-role
  labels: {app.kubernetes.io/name: solr-operator, app.kubernetes.io/instance: solr-operator, app.kubernetes.io/managed-by: Helm, helm.sh/chart: solr-operator-0.8.1}
rules:
- apiGroups: [""]
  resources: ["configmaps", "secrets", "services"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["persistentvolumeclaims", "pods"]
  verbs: ["delete", "get", "list", "watch"]
- apiGroups: [""]
  resources: ["pods/exec"]
  verbs: ["create"]
- apiGroups: ["apps"]
  resources: ["deployments", "statefulsets"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["networking.k8s.io"]
  resources: ["ingresses"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["solr.apache.org"]
  resources: ["solrbackups", "solrclouds", "solrprometheusexporters"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["solr.apache.org"]
  resources: ["solrbackups/finalizers", "solrclouds/finalizers", "solrprometheusexporters/finalizers"]
  verbs: ["update"]
- apiGroups: ["solr.apache.org"]
  resources: ["solrbackups/status", "solrclouds/status", "solrprometheusexporters/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["zookeeper.pravega.io"]
  resources: ["zookeeperclusters"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: solr-operator-rolebinding
  labels: {app.kubernetes.io/name: solr-operator, app.kubernetes.io/instance: solr-operator, app.kubernetes.io/managed-by: Helm, helm.sh/chart: solr-operator-0.8.1}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: solr-operator-role
subjects:
- kind: ServiceAccount
  name: solr-operator
  namespace: solr
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: solr-operator
  namespace: solr
  labels: {app.kubernetes.io/name: solr-operator, app.kubernetes.io/instance: solr-operator, app.kubernetes.io/managed-by: Helm, helm.sh/chart: solr-operator-0.8.1, control-plane: solr-operator}
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: solr-operator, app.kubernetes.io/instance: solr-operator, control-plane: solr-operator}
  template:
    metadata:
      labels: {app.kubernetes.io/name: solr-operator, app.kubernetes.io/instance: solr-operator, control-plane: solr-operator}
    spec:
      serviceAccountName: solr-operator
      containers:
      - name: solr-operator
        image: apache/solr-operator:v0.8.1
        args: ["-zk-operator=false", "--health-probe-bind-address=:8081", "--metrics-bind-address=:8080", "--leader-elect=true"]
---
apiVersion: v1
kind: Namespace
metadata:
  name: catalog
`,
		objects: `
apiVersion: solr.apache.org/v1beta1
kind: SolrCloud
metadata:
  name: search
  namespace: catalog
  finalizers: [storage.finalizers.solr.apache.org]
spec:
  replicas: 3
  solrImage: {repository: solr, tag: "9.5"}
  dataStorage:
    persistent:
      reclaimPolicy: Delete
      pvcTemplate:
        spec:
          resources: {requests: {storage: 20Gi}}
  customSolrKubeOptions:
    configMapOptions:
      providedConfigMap: search-solr-xml
  zookeeperRef:
    connectionInfo:
      internalConnectionString: zk-0.zk-headless.catalog:2181,zk-1.zk-headless.catalog:2181,zk-2.zk-headless.catalog:2181
      chroot: /search
status:
  replicas: 3
  readyReplicas: 3
  upToDateNodes: 3
  version: "9.5"
  targetVersion: "9.5"
  internalCommonAddress: http://search-solrcloud-common.catalog
  zookeeperConnectionInfo:
    internalConnectionString: zk-0.zk-headless.catalog:2181,zk-1.zk-headless.catalog:2181,zk-2.zk-headless.catalog:2181
    chroot: /search
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: search-solrcloud
  namespace: catalog
  labels: {solr-cloud: search, technology: solr-cloud}
  ownerReferences:
  - {apiVersion: solr.apache.org/v1beta1, kind: SolrCloud, name: search, controller: true, blockOwnerDeletion: true}
spec:
  replicas: 3
  serviceName: search-solrcloud-headless
  selector:
    matchLabels: {solr-cloud: search, technology: solr-cloud}
  template:
    metadata:
      labels: {solr-cloud: search, technology: solr-cloud}
    spec:
      containers:
      - name: solrcloud-node
        image: solr:9.5
        volumeMounts:
        - {name: data, mountPath: /var/solr/data}
      volumes:
      - name: solr-xml
        configMap: {name: search-solr-xml, items: [{key: solr.xml, path: solr.xml}]}
  volumeClaimTemplates:
  - metadata:
      name: data
      labels: {solr-cloud: search, technology: solr-cloud}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 20Gi}}
`,
		deletes: []string{"SolrCloud/catalog/search"},
	}.run(t)

	d := diagnoseAfter(t, 2*time.Hour, "solrclouds.solr.apache.org", "search", "-n", "catalog")
	d.exit(1, "STUCK")
	f := d.finalizer("solrclouds.solr.apache.org/search -n catalog", "storage.finalizers.solr.apache.org")
	// The operator runs and may update SolrClouds; what stops it is the ConfigMap the spec names,
	// which no longer exists.
	d.remover(f, "deployments.apps/solr-operator -n solr", true)
	d.blocker(f, "configmaps/search-solr-xml -n catalog")
	// Creating it again lets the reconciler reach the finalizer; a strip leaves the data claims
	// the finalizer would have deleted.
	d.offers(f, finalizers.ReasonRestoreMissingObject)
	d.never(f, reinstall, restoreController)
	d.leaves(f, "persistentvolumeclaims/data-search-solrcloud-0 -n catalog")
}
