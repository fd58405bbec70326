package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/stashed/stash/issues/785 ("error: unable to retrieve the complete list
// of server APIs: admission.stash.appscode.com/v1alpha1: the server is currently unable to handle
// the request, repositories.stash.appscode.com/v1alpha1: ..."): "Deleted namespace where stash
// operator is located. Used helm to install it ... The namespace deletion is also stuck and removing
// the finalizers isn't working either." Stash's operator is also the aggregated API server of two
// APIServices, served by the stash-operator Service in the operator's own namespace; with the
// namespace deleted, the operator and its Service go, discovery of both groups fails, and the
// namespace controller cannot finish the namespace. The reporter fixed it with a `kubectl delete`
// (of the APIServices the error names, as stash#1128 did for the same error): nothing can serve
// them again, and no operator can be installed into a Terminating namespace.
//
// Modelled on Stash 0.8 (hack/deploy of May 2019: operator.yaml, rbac-list.yaml, apiservices.yaml,
// the webhooks), installed into namespace stash: the stash-operator Deployment (operator and
// pushgateway), its ServiceAccount, ClusterRole and bindings (auth-delegator, the authentication
// reader in kube-system), the serving Secret, the Service stash-operator (443 → 8443), the
// APIServices v1alpha1.admission.stash.appscode.com and v1alpha1.repositories.stash.appscode.com,
// the validating and mutating webhooks (served through the kubernetes Service at the aggregated
// admission paths), the CRDs of stash.appscode.com; everything labelled app=stash. The
// operator's pod went with the namespace's content (not replayed: without a kubelet its graceful
// deletion would wait for one, which the report's cluster had): the Deployment asks for no
// replica.
func TestCorpusStashNamespaceHeldByItsOwnAggregatedAPIs(t *testing.T) {
	stash := map[string]string{"app": "stash"}
	sc := func(kind, plural string) crd {
		return crd{group: "stash.appscode.com", kind: kind, plural: plural, namespaced: true, versions: []string{"v1alpha1"}, labels: stash}
	}
	replay{
		crds: []crd{sc("Restic", "restics"), sc("Repository", "repositories"), sc("Recovery", "recoveries")},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: stash
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: stash-operator
  namespace: stash
  labels: {app: stash}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: stash-operator
  labels: {app: stash}
rules:
- apiGroups: [apiextensions.k8s.io]
  resources: [customresourcedefinitions]
  verbs: ["*"]
- apiGroups: [apiregistration.k8s.io]
  resources: [apiservices]
  verbs: ["get", "patch"]
- apiGroups: [admissionregistration.k8s.io]
  resources: [mutatingwebhookconfigurations, validatingwebhookconfigurations]
  verbs: ["delete", "get", "list", "watch", "patch"]
- apiGroups: [stash.appscode.com]
  resources: ["*"]
  verbs: ["*"]
- apiGroups: [appcatalog.appscode.com]
  resources: ["*"]
  verbs: ["*"]
- apiGroups: [apps]
  resources: [daemonsets, deployments, replicasets, statefulsets]
  verbs: ["get", "list", "watch", "patch"]
- apiGroups: [batch]
  resources: [jobs, cronjobs]
  verbs: ["get", "list", "watch", "create", "delete", "patch"]
- apiGroups: [""]
  resources: [namespaces, replicationcontrollers]
  verbs: ["get", "list", "watch", "patch"]
- apiGroups: [""]
  resources: [configmaps]
  verbs: ["create", "update", "get", "delete"]
- apiGroups: [""]
  resources: [persistentvolumeclaims]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: [secrets, services]
  verbs: ["get"]
- apiGroups: [""]
  resources: [events]
  verbs: ["create"]
- apiGroups: [""]
  resources: [nodes]
  verbs: ["list"]
- apiGroups: [""]
  resources: [pods, pods/exec]
  verbs: ["get", "create", "list", "delete", "deletecollection"]
- apiGroups: [""]
  resources: [serviceaccounts]
  verbs: ["get", "create", "patch", "delete"]
- apiGroups: [rbac.authorization.k8s.io]
  resources: [clusterroles, roles, rolebindings]
  verbs: ["get", "create", "delete", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: stash-operator
  labels: {app: stash}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: stash-operator
subjects:
- kind: ServiceAccount
  name: stash-operator
  namespace: stash
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: stash-apiserver-extension-server-authentication-reader
  namespace: kube-system
  labels: {app: stash}
roleRef:
  kind: Role
  apiGroup: rbac.authorization.k8s.io
  name: extension-apiserver-authentication-reader
subjects:
- kind: ServiceAccount
  name: stash-operator
  namespace: stash
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: stash-apiserver-auth-delegator
  labels: {app: stash}
roleRef:
  kind: ClusterRole
  apiGroup: rbac.authorization.k8s.io
  name: system:auth-delegator
subjects:
- kind: ServiceAccount
  name: stash-operator
  namespace: stash
---
apiVersion: v1
kind: Secret
metadata:
  name: stash-apiserver-cert
  namespace: stash
  labels: {app: stash}
type: Opaque
stringData:
  tls.crt: "-----BEGIN CERTIFICATE-----"
  tls.key: "-----BEGIN RSA PRIVATE KEY-----"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: stash-operator
  namespace: stash
  labels: {app: stash}
spec:
  replicas: 0
  selector:
    matchLabels: {app: stash}
  template:
    metadata:
      labels: {app: stash}
    spec:
      serviceAccountName: stash-operator
      containers:
      - name: operator
        image: appscode/stash:0.8.3
        args: ["run", "--v=3", "--docker-registry=appscode", "--secure-port=8443", "--audit-log-path=-", "--tls-cert-file=/var/serving-cert/tls.crt", "--tls-private-key-file=/var/serving-cert/tls.key", "--service-name=stash-operator", "--enable-mutating-webhook=true", "--enable-validating-webhook=true", "--enable-status-subresource=true", "--enable-analytics=true"]
        ports:
        - containerPort: 8443
      - name: pushgateway
        image: prom/pushgateway:v0.5.2
        args: ["--web.listen-address=:56789", "--persistence.file=/var/pv/pushgateway.dat"]
        ports:
        - {containerPort: 56789, name: pushgateway}
---
apiVersion: v1
kind: Service
metadata:
  name: stash-operator
  namespace: stash
  labels: {app: stash}
spec:
  selector: {app: stash}
  ports:
  - {name: api, port: 443, targetPort: 8443}
  - {name: pushgateway, port: 56789, targetPort: 56789}
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1alpha1.admission.stash.appscode.com
  labels: {app: stash}
spec:
  group: admission.stash.appscode.com
  groupPriorityMinimum: 1000
  versionPriority: 15
  version: v1alpha1
  insecureSkipTLSVerify: true
  service:
    name: stash-operator
    namespace: stash
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1alpha1.repositories.stash.appscode.com
  labels: {app: stash}
spec:
  group: repositories.stash.appscode.com
  groupPriorityMinimum: 1000
  versionPriority: 15
  version: v1alpha1
  insecureSkipTLSVerify: true
  service:
    name: stash-operator
    namespace: stash
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: admission.stash.appscode.com
  labels: {app: stash}
webhooks:
- name: restic.admission.stash.appscode.com
  clientConfig:
    service: {namespace: default, name: kubernetes, path: /apis/admission.stash.appscode.com/v1alpha1/resticvalidators}
  rules:
  - {operations: [CREATE, UPDATE], apiGroups: [stash.appscode.com], apiVersions: ["*"], resources: [restics]}
  failurePolicy: Fail
  sideEffects: None
  admissionReviewVersions: [v1beta1]
- name: repository.admission.stash.appscode.com
  clientConfig:
    service: {namespace: default, name: kubernetes, path: /apis/admission.stash.appscode.com/v1alpha1/repositoryvalidators}
  rules:
  - {operations: [CREATE, UPDATE], apiGroups: [stash.appscode.com], apiVersions: ["*"], resources: [repositories]}
  failurePolicy: Fail
  sideEffects: None
  admissionReviewVersions: [v1beta1]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: admission.stash.appscode.com
  labels: {app: stash}
webhooks:
- name: deployment.admission.stash.appscode.com
  clientConfig:
    service: {namespace: default, name: kubernetes, path: /apis/admission.stash.appscode.com/v1alpha1/deploymentmutators}
  rules:
  - {operations: [CREATE, UPDATE], apiGroups: [apps], apiVersions: ["*"], resources: [deployments]}
  failurePolicy: Ignore
  sideEffects: None
  admissionReviewVersions: [v1beta1]
- name: statefulset.admission.stash.appscode.com
  clientConfig:
    service: {namespace: default, name: kubernetes, path: /apis/admission.stash.appscode.com/v1alpha1/statefulsetmutators}
  rules:
  - {operations: [CREATE], apiGroups: [apps], apiVersions: ["*"], resources: [statefulsets]}
  failurePolicy: Ignore
  sideEffects: None
  admissionReviewVersions: [v1beta1]
`,
		deletes: []string{"Namespace//stash"},
	}.run(t)

	// Found stuck a while after the delete.
	d := diagnoseAfter(t, 30*time.Minute, "namespace", "stash")
	d.exit(1, "STUCK")
	f := d.finalizer("namespaces/stash", "kubernetes")
	// The blockers: the two APIServices whose backend was in this namespace.
	d.blocker(f, "apiservices.apiregistration.k8s.io/v1alpha1.admission.stash.appscode.com")
	d.blocker(f, "apiservices.apiregistration.k8s.io/v1alpha1.repositories.stash.appscode.com")
	// Nothing can serve them again (their Service went with the namespace, and nothing can be
	// created in a Terminating namespace): deleting them is the way out, first.
	d.firstFix(f, deleteAPIService)
	d.mentions(f, "v1alpha1.admission.stash.appscode.com", "v1alpha1.repositories.stash.appscode.com")
}
