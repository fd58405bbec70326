package whyterminating_test

import (
	"testing"
	"time"

	"github.com/kubeforensics/suite/internal/finalizers"
)

// Report: https://github.com/redradrat/aws-iam-operator/issues/6 ("Kubectl process getting stuck
// and does not exit"): deleting an IAM Role (roles.aws-iam.redradrat.xyz) that a policy is still
// attached to hangs. Its finalizer role.aws-iam.redradrat.xyz is removed by the operator (running)
// once it has deleted the role in AWS, and AWS refuses while a policy is attached: the operator
// logs, again and again, "unable to delete Role ... DeleteConflict: Cannot delete entity, must
// detach all policies first. status code: 409". The maintainer: the finalizer blocks the
// deletion on purpose; once the policy was removed from the role (the PolicyAttachment whose
// spec.target names the role deleted), the controller deleted the role by itself. What holds
// it is the PolicyAttachment that attaches a policy to it; the operator is not to be restarted
// or reinstalled, and removing the finalizer by hand would leave the role in AWS.
//
// Modelled on the operator's kustomize install of the report's time (config/default: namespace
// aws-iam-operator-system, name prefix aws-iam-operator-): the ClusterRole
// aws-iam-operator-manager-role from its kubebuilder markers (policies, roles, policyattachments
// of aws-iam.redradrat.xyz with their status; the namespace's ServiceAccounts it creates for
// roles), bound to the namespace's default ServiceAccount, the leader-election Role, the
// Deployment aws-iam-operator-manager (label control-plane: aws-iam-operator-manager, image
// redradrat/aws-iam-operator) with kube-rbac-proxy; the CRDs of aws-iam.redradrat.xyz,
// unlabelled. No webhooks (the install leaves them commented out). The Role's status is what the
// operator writes (state ERROR, the AWS error as message, the role's ARN).
func TestCorpusAWSIAMRoleWithAnAttachedPolicy(t *testing.T) {
	iam := func(kind, plural string) crd {
		return crd{group: "aws-iam.redradrat.xyz", kind: kind, plural: plural, namespaced: true, versions: []string{"v1beta1"}}
	}
	replay{
		crds: []crd{
			iam("Policy", "policies"),
			iam("Role", "roles"),
			iam("PolicyAttachment", "policyattachments"),
			iam("AssumeRolePolicy", "assumerolepolicies"),
			iam("User", "users"),
			iam("Group", "groups"),
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: aws-iam-operator-system
  labels: {control-plane: aws-iam-operator-manager}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: aws-iam-operator-manager-role
rules:
- apiGroups: ["aws-iam.redradrat.xyz"]
  resources: ["policies", "roles", "policyattachments", "assumerolepolicies", "users", "groups"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["aws-iam.redradrat.xyz"]
  resources: ["policies/status", "roles/status", "policyattachments/status", "assumerolepolicies/status", "users/status", "groups/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: [""]
  resources: ["serviceaccounts"]
  verbs: ["create", "get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: aws-iam-operator-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: aws-iam-operator-manager-role
subjects:
- kind: ServiceAccount
  name: default
  namespace: aws-iam-operator-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: aws-iam-operator-leader-election-role
  namespace: aws-iam-operator-system
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["configmaps/status"]
  verbs: ["get", "update", "patch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: aws-iam-operator-leader-election-rolebinding
  namespace: aws-iam-operator-system
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: aws-iam-operator-leader-election-role
subjects:
- kind: ServiceAccount
  name: default
  namespace: aws-iam-operator-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: aws-iam-operator-manager
  namespace: aws-iam-operator-system
  labels: {control-plane: aws-iam-operator-manager}
spec:
  replicas: 1
  selector:
    matchLabels: {control-plane: aws-iam-operator-manager}
  template:
    metadata:
      labels: {control-plane: aws-iam-operator-manager}
    spec:
      containers:
      - name: kube-rbac-proxy
        image: gcr.io/kubebuilder/kube-rbac-proxy:v0.5.0
        args: ["--secure-listen-address=0.0.0.0:8443", "--upstream=http://127.0.0.1:8080/", "--logtostderr=true", "--v=10"]
      - name: manager
        image: redradrat/aws-iam-operator:v0.2.0
        args: ["--metrics-addr=127.0.0.1:8080", "--enable-leader-election"]
      terminationGracePeriodSeconds: 10
`,
		objects: `
apiVersion: aws-iam.redradrat.xyz/v1beta1
kind: Policy
metadata:
  name: policy-sample1
  namespace: default
  finalizers: [policy.aws-iam.redradrat.xyz]
spec:
  statement:
  - effect: Allow
    action: ["s3:GetObject"]
    resource: ["arn:aws:s3:::team-bucket/*"]
status:
  state: OK
  message: ""
  lastSyncAttempt: "2020-05-08T09:12:40Z"
  arn: arn:aws:iam::123456789012:policy/policy-sample1
  observedGeneration: 1
---
apiVersion: aws-iam.redradrat.xyz/v1beta1
kind: Role
metadata:
  name: role-sample1
  namespace: default
  finalizers: [role.aws-iam.redradrat.xyz]
spec:
  description: sample role
  assumeRolePolicy:
  - effect: Allow
    principal:
      Service: ec2.amazonaws.com
    action: ["sts:AssumeRole"]
status:
  state: ERROR
  message: "DeleteConflict: Cannot delete entity, must detach all policies first.\n\tstatus code: 409, request id: 52f76e23-fa39-4f23-8584-9ca0e287d389"
  lastSyncAttempt: "2020-05-08T09:31:02Z"
  arn: arn:aws:iam::123456789012:role/role-sample1
  observedGeneration: 2
---
apiVersion: aws-iam.redradrat.xyz/v1beta1
kind: PolicyAttachment
metadata:
  name: policyattachment-sample1
  namespace: default
  finalizers: [policyattachment.aws-iam.redradrat.xyz]
spec:
  policy:
    name: policy-sample1
    namespace: default
  target:
    type: Role
    name: role-sample1
    namespace: default
status:
  state: OK
  message: ""
  lastSyncAttempt: "2020-05-08T09:12:52Z"
  arn: arn:aws:iam::123456789012:policy/policy-sample1
  observedGeneration: 1
`,
		deletes: []string{"Role/default/role-sample1"},
	}.run(t)

	// The delete had been hanging for a while before the report.
	d := diagnoseAfter(t, 30*time.Minute, "roles.aws-iam.redradrat.xyz", "role-sample1", "-n", "default")
	d.exit(1, "STUCK")
	ref := "roles.aws-iam.redradrat.xyz/role-sample1 -n default"
	f := d.finalizer(ref, "role.aws-iam.redradrat.xyz")
	d.remover(f, "deployments.apps/aws-iam-operator-manager -n aws-iam-operator-system", true)
	// What holds it: the PolicyAttachment that attaches a policy to the role.
	d.blocker(f, "policyattachments.aws-iam.redradrat.xyz/policyattachment-sample1 -n default")
	d.offers(f, finalizers.ReasonRemoveReferrer)
	d.never(f, stripFinalizer, reinstall, restoreController)
}
