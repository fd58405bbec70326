package whyterminating_test

import (
	"testing"
	"time"
)

// Held back in batch 17, run once by the lead (2026-12-03, main c8e457e): right at first sight.
//
// Report: https://github.com/minio/operator/pull/312 ("Revert Tenant Finalizers", which reverts
// #268, "Always delete pvc when tenant is deleted"): MinIO operator v3.0 put finalizer.minio.min.io
// on every Tenant. "The Tenant's become un-deletable if the Operator is deleted before the tenants
// are deleted. If the Operator is uninstalled along with the Tenant CRD, it causes the Tenant CRD
// to go into terminating state, but since the Tenant has a finalizer it cannot be deleted, if the
// operator is reinstalled since the Tenant CRD is still in terminating state no new tenants can be
// created and the operator will go into an error state where it cannot process the tenant that is
// in terminating state either. Fixing this deadlock requires to manually remove the finalizers from
// stuck tenants before attempting to reinstall the operator." What the Tenants leave: "the Tenants
// which were deleted and left their PVCs behind" (the operator never deletes a tenant's claims
// unless asked, minio/operator#589).
//
// Modelled on operator-kustomize of v3.0.23 (the release with the finalizer), uninstalled with
// `kubectl delete -k`: the operator's namespace, Deployment, ServiceAccount, ClusterRole and binding
// are gone, the CRD tenants.minio.min.io is being deleted. What the operator had made for the
// Tenant minio (servers 4, one volume each, as in #268's listing): the StatefulSet minio-zone-0 and
// the Services minio and minio-hl it owns, the claims data0-minio-zone-0-0..3 of the StatefulSet's
// volume claim template (labelled with the tenant, owned by nobody: purgePVCOnTenantDelete was
// not set), the user's credentials Secret.
func TestCorpusMinIOTenantAfterItsOperatorAndCRDWereDeleted(t *testing.T) {
	tenantLabels := `{v1.min.io/tenant: minio, v1.min.io/zone: zone-0}`
	claim := func(i string) string {
		return `
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data0-minio-zone-0-` + i + `
  namespace: minio-tenant-1
  labels: ` + tenantLabels + `
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: standard
  resources: {requests: {storage: 1Ti}}`
	}
	replay{
		crds: []crd{
			{group: "minio.min.io", kind: "Tenant", plural: "tenants", namespaced: true, versions: []string{"v1"}},
		},
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: minio-tenant-1
---
apiVersion: v1
kind: Secret
metadata:
  name: minio-creds-secret
  namespace: minio-tenant-1
type: Opaque
stringData:
  accesskey: minio
  secretkey: minio123
---
apiVersion: minio.min.io/v1
kind: Tenant
metadata:
  name: minio
  namespace: minio-tenant-1
  finalizers: [finalizer.minio.min.io]
spec:
  image: minio/minio:RELEASE.2020-09-21T22-31-59Z
  serviceName: minio
  mountPath: /export
  requestAutoCert: false
  credsSecret: {name: minio-creds-secret}
  zones:
  - name: zone-0
    servers: 4
    volumesPerServer: 1
    volumeClaimTemplate:
      metadata: {name: data}
      spec:
        accessModes: [ReadWriteOnce]
        storageClassName: standard
        resources: {requests: {storage: 1Ti}}
status:
  currentState: Initialized
  availableReplicas: 4
---
apiVersion: v1
kind: Service
metadata:
  name: minio
  namespace: minio-tenant-1
  labels: {v1.min.io/tenant: minio}
  ownerReferences:
  - {apiVersion: minio.min.io/v1, kind: Tenant, name: minio, controller: true, blockOwnerDeletion: true}
spec:
  selector: {v1.min.io/tenant: minio}
  ports:
  - {name: http-minio, port: 80, targetPort: 9000}
---
apiVersion: v1
kind: Service
metadata:
  name: minio-hl
  namespace: minio-tenant-1
  labels: {v1.min.io/tenant: minio}
  ownerReferences:
  - {apiVersion: minio.min.io/v1, kind: Tenant, name: minio, controller: true, blockOwnerDeletion: true}
spec:
  clusterIP: None
  publishNotReadyAddresses: true
  selector: {v1.min.io/tenant: minio}
  ports:
  - {name: http-minio, port: 9000, targetPort: 9000}
` + claim("0") + claim("1") + claim("2") + claim("3") + `
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: minio-zone-0
  namespace: minio-tenant-1
  labels: ` + tenantLabels + `
  ownerReferences:
  - {apiVersion: minio.min.io/v1, kind: Tenant, name: minio, controller: true, blockOwnerDeletion: true}
spec:
  serviceName: minio-hl
  replicas: 4
  podManagementPolicy: Parallel
  selector:
    matchLabels: {v1.min.io/tenant: minio}
  template:
    metadata:
      labels: ` + tenantLabels + `
    spec:
      containers:
      - name: minio
        image: minio/minio:RELEASE.2020-09-21T22-31-59Z
        args: ["server", "--certs-dir", "/tmp/certs", "http://minio-zone-0-{0...3}.minio-hl.minio-tenant-1.svc.cluster.local/export"]
        ports:
        - containerPort: 9000
        volumeMounts:
        - {name: data0, mountPath: /export}
  volumeClaimTemplates:
  - metadata:
      name: data0
    spec:
      accessModes: [ReadWriteOnce]
      storageClassName: standard
      resources: {requests: {storage: 1Ti}}
`,
		deletes: []string{"Tenant/minio-tenant-1/minio", "CustomResourceDefinition//tenants.minio.min.io"},
	}.run(t)

	// Found when the operator is to be installed again, a while after the uninstall.
	d := diagnoseAfter(t, time.Hour, "customresourcedefinitions", "tenants.minio.min.io")
	d.exit(1, "STUCK")
	f := d.finalizer("tenants.minio.min.io/minio -n minio-tenant-1", "finalizer.minio.min.io")
	// The operator is gone: nothing removes the finalizer.
	d.noRunningRemover(f)
	d.verdict(f, controllerAbsent, finalizerOrphaned)
	// The maintainers' way out, before any reinstall: an operator installed again cannot process
	// a Tenant whose CRD is being deleted, and the CRD waits for the Tenant.
	d.firstFix(f, stripFinalizer)
	d.never(f, readLogs)
	// What the strip leaves: the Tenant's claims, which nothing deletes.
	d.leaves(f, "persistentvolumeclaims/data0-minio-zone-0-0 -n minio-tenant-1")
}
