package whyterminating_test

import "testing"

// Report: https://github.com/kubevirt/containerized-data-importer/issues/1149 ("`cdi` CR should
// not have operator as a finalizer"): CDI v1.17.0 was uninstalled (its operator manifest deleted,
// the namespace cdi with it) while the CDI resource cdi still existed; deleting it hangs on the
// finalizer operator.cdi.kubevirt.io, which only the CDI operator removes, after cleaning up "some
// resources that cannot have ownerRefs" (the maintainer): the cluster-scoped objects it deployed.
// The maintainer's way out, which worked: remove the finalizer on the CDI resource by hand;
// installing the operator again would also let it finalize.
//
// Modelled on cdi-operator.yaml and cdi-cr.yaml of v1.17.0: what the uninstall took is absent
// (namespace cdi, the operator's Deployment, ServiceAccount and RBAC); what stays is the CRD of
// cdi.kubevirt.io and the cluster-scoped objects the operator deployed for the CDI resource, with
// the labels it gives them (cdi.kubevirt.io, operator.cdi.kubevirt.io/createVersion) and no owner:
// the ClusterRole cdi-apiserver and its binding, the APIService v1beta1.upload.cdi.kubevirt.io
// (whose Service went with the namespace) and the DataVolume admission webhook.
func TestCorpusCDIResourceAfterItsOperatorWasUninstalled(t *testing.T) {
	cdi := map[string]string{"operator.cdi.kubevirt.io": ""}
	deployed := map[string]string{"cdi.kubevirt.io": "", "operator.cdi.kubevirt.io/createVersion": "v1.17.0"}
	replay{
		crds: []crd{
			{group: "cdi.kubevirt.io", kind: "CDI", plural: "cdis", versions: []string{"v1beta1", "v1alpha1"}, labels: cdi},
			{group: "cdi.kubevirt.io", kind: "CDIConfig", plural: "cdiconfigs", versions: []string{"v1beta1", "v1alpha1"}, labels: deployed},
			{group: "cdi.kubevirt.io", kind: "DataVolume", plural: "datavolumes", namespaced: true, versions: []string{"v1beta1", "v1alpha1"}, labels: deployed},
		},
		install: `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: cdi-apiserver
  labels:
    cdi.kubevirt.io: ""
    operator.cdi.kubevirt.io/createVersion: v1.17.0
rules:
- apiGroups: ["cdi.kubevirt.io"]
  resources: ["datavolumes", "cdiconfigs"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["persistentvolumeclaims"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: cdi-apiserver
  labels:
    cdi.kubevirt.io: ""
    operator.cdi.kubevirt.io/createVersion: v1.17.0
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cdi-apiserver
subjects:
- kind: ServiceAccount
  name: cdi-apiserver
  namespace: cdi
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1beta1.upload.cdi.kubevirt.io
  labels:
    cdi.kubevirt.io: ""
    operator.cdi.kubevirt.io/createVersion: v1.17.0
spec:
  group: upload.cdi.kubevirt.io
  version: v1beta1
  groupPriorityMinimum: 1000
  versionPriority: 15
  insecureSkipTLSVerify: true
  service:
    name: cdi-api
    namespace: cdi
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: cdi-api-datavolume-validate
  labels:
    cdi.kubevirt.io: ""
    operator.cdi.kubevirt.io/createVersion: v1.17.0
webhooks:
- name: datavolume-validate.cdi.kubevirt.io
  admissionReviewVersions: ["v1beta1"]
  sideEffects: None
  failurePolicy: Fail
  clientConfig:
    service:
      name: cdi-api
      namespace: cdi
      path: /datavolume-validate
  rules:
  - apiGroups: ["cdi.kubevirt.io"]
    apiVersions: ["v1alpha1", "v1beta1"]
    operations: ["CREATE", "UPDATE"]
    resources: ["datavolumes"]
`,
		objects: `
apiVersion: cdi.kubevirt.io/v1beta1
kind: CDI
metadata:
  name: cdi
  finalizers:
  - operator.cdi.kubevirt.io
spec:
  imagePullPolicy: IfNotPresent
status:
  phase: Deployed
  observedVersion: v1.17.0
  operatorVersion: v1.17.0
  targetVersion: v1.17.0
  conditions:
  - type: Available
    status: "True"
    lastTransitionTime: "2020-03-16T10:02:11Z"
`,
		deletes: []string{"CDI//cdi"},
	}.run(t)

	d := diagnose(t, "cdis.cdi.kubevirt.io", "cdi")
	d.exit(1, "STUCK")
	f := d.finalizer("cdis.cdi.kubevirt.io/cdi", "operator.cdi.kubevirt.io")
	// Nothing of the operator runs or may update the CDI resource. Reinstalling it finalizes;
	// the strip is the way out the thread took, and it leaves what the operator deployed
	// cluster-wide without an owner.
	d.verdict(f, controllerAbsent)
	d.noRunningRemover(f)
	d.offers(f, reinstall, restoreController)
	d.offers(f, stripFinalizer)
	d.stripCosts(f, "apiservices.apiregistration.k8s.io/v1beta1.upload.cdi.kubevirt.io")
}
