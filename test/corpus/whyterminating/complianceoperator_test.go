package whyterminating_test

import "testing"

// Report: https://github.com/ComplianceAsCode/compliance-operator/issues/56 ("Compliance
// operator scans may leave namespaces stuck terminating", moved from
// openshift/compliance-operator#831): a test pipeline tears the operator's namespace down;
// ProfileBundles and ComplianceScans are left behind with their finalizers, which only the
// operator removes, and "namespace termination is blocked". The maintainer: delete the
// ScanSettingBindings, suites, scans and profile bundles (in that order) while the operator
// runs; once the namespace is being deleted with the operator in it, nothing can remove the
// finalizers, and they come off by hand (what they guarded, the scans' pods and the bundles'
// profiles and rules, lived in the same namespace and is gone with it).
//
// Modelled on the operator's OLM install (0.1.5x) in openshift-compliance as the namespace's
// deletion leaves it: the cluster-scoped ClusterRole and ClusterRoleBinding OLM made for the
// ClusterServiceVersion (labelled olm.owner) stay, the namespace's content (the operator's
// Deployment, ServiceAccount, the CSV) is gone; the CRDs of compliance.openshift.io stay.
func TestCorpusComplianceOperatorScansLeftInItsNamespace(t *testing.T) {
	olm := map[string]string{"operators.coreos.com/compliance-operator.openshift-compliance": ""}
	replay{
		crds: []crd{
			{group: "compliance.openshift.io", kind: "ProfileBundle", plural: "profilebundles", namespaced: true, versions: []string{"v1alpha1"}, labels: olm},
			{group: "compliance.openshift.io", kind: "ComplianceScan", plural: "compliancescans", namespaced: true, versions: []string{"v1alpha1"}, labels: olm},
			{group: "compliance.openshift.io", kind: "ComplianceSuite", plural: "compliancesuites", namespaced: true, versions: []string{"v1alpha1"}, labels: olm},
			{group: "compliance.openshift.io", kind: "ScanSettingBinding", plural: "scansettingbindings", namespaced: true, versions: []string{"v1alpha1"}, labels: olm},
		},
		install: `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: compliance-operator.v0.1.53-6b8c5d7f9
  labels:
    olm.owner: compliance-operator.v0.1.53
    olm.owner.kind: ClusterServiceVersion
    olm.owner.namespace: openshift-compliance
    operators.coreos.com/compliance-operator.openshift-compliance: ""
rules:
- apiGroups: ["compliance.openshift.io"]
  resources: ["*"]
  verbs: ["*"]
- apiGroups: [""]
  resources: ["nodes", "namespaces"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["machineconfiguration.openshift.io"]
  resources: ["machineconfigs", "machineconfigpools"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: compliance-operator.v0.1.53-6b8c5d7f9
  labels:
    olm.owner: compliance-operator.v0.1.53
    olm.owner.kind: ClusterServiceVersion
    olm.owner.namespace: openshift-compliance
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: compliance-operator.v0.1.53-6b8c5d7f9
subjects:
- kind: ServiceAccount
  name: compliance-operator
  namespace: openshift-compliance
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: openshift-compliance
---
apiVersion: compliance.openshift.io/v1alpha1
kind: ProfileBundle
metadata:
  name: rhcos4
  namespace: openshift-compliance
  finalizers:
  - profilebundle.finalizers.compliance.openshift.io
spec:
  contentImage: registry.redhat.io/compliance/openshift-compliance-content-rhel8@sha256:3b9c2f0c4d8e7a1f6b5a9c0d2e4f6a8b0c2d4e6f8a0b2c4d6e8f0a2b4c6d8e0f
  contentFile: ssg-rhcos4-ds.xml
status:
  dataStreamStatus: VALID
---
apiVersion: compliance.openshift.io/v1alpha1
kind: ComplianceScan
metadata:
  name: ocp4-cis
  namespace: openshift-compliance
  finalizers:
  - scan.finalizers.compliance.openshift.io
  labels:
    compliance.openshift.io/suite: cis-compliance
spec:
  scanType: Platform
  profile: xccdf_org.ssgproject.content_profile_cis
  content: ssg-ocp4-ds.xml
status:
  phase: DONE
  result: NON-COMPLIANT
`,
		deletes: []string{"Namespace//openshift-compliance"},
	}.run(t)

	d := diagnose(t, "namespace", "openshift-compliance")
	d.exit(1, "STUCK")
	for _, fz := range [][2]string{
		{"profilebundles.compliance.openshift.io/rhcos4 -n openshift-compliance", "profilebundle.finalizers.compliance.openshift.io"},
		{"compliancescans.compliance.openshift.io/ocp4-cis -n openshift-compliance", "scan.finalizers.compliance.openshift.io"},
	} {
		f := d.finalizer(fz[0], fz[1])
		d.verdict(f, controllerAbsent)
		d.noRunningRemover(f)
		d.never(f, readLogs, reinstall)
		d.offers(f, stripFinalizer)
	}
}
