package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/PlayFab/thundernetes/pull/29 ("namespace stuck on terminating
// state - FAQ", the maintainers' FAQ entry, kept in docs/troubleshooting): "Thundernetes creates
// finalizers for the GameServer custom resource. So, if you delete the thundernetes controller
// and you try to remove the GameServer Pods and/or the namespace they are in, the namespace will
// be stuck in terminating state." The finalizer gameservers.mps.playfab.com/finalizer only freed
// the GameServer's host ports in the controller's memory (PlayFab/thundernetes#270, #381: the
// maintainers later dropped it for that reason): with the controller gone nothing is left to
// clean, and the way out is to remove the finalizer from the GameServers. (The FAQ's own recipe,
// finalizing the namespace through its finalize subresource, would drop the namespace and leave
// the GameServers stored under it: not a way out a diagnosis may give.)
//
// Modelled on the operator's installfiles/operator.yaml (v0.5): the controller, its
// ServiceAccount, Service and webhook Service lived in thundernetes-system, which was deleted with
// them; what that leaves is cluster-scoped: the CRDs gameservers, gameserverbuilds and
// gameserverdetails of mps.playfab.com, the ClusterRole thundernetes-manager-role and its binding
// (to the ServiceAccount that is gone), and the ValidatingWebhookConfiguration
// thundernetes-validating-webhook-configuration, fail-closed on CREATE and UPDATE of gameservers
// and gameserverbuilds through the Service thundernetes-webhook-service of thundernetes-system.
// In namespace game-eu, the GameServerBuild and two of its GameServers (their pods gone), the
// namespace deleted since.
func TestCorpusThundernetesGameServerAfterItsControllerNamespaceWent(t *testing.T) {
	replay{
		crds: []crd{
			{group: "mps.playfab.com", kind: "GameServer", plural: "gameservers", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "mps.playfab.com", kind: "GameServerBuild", plural: "gameserverbuilds", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "mps.playfab.com", kind: "GameServerDetail", plural: "gameserverdetails", namespaced: true, versions: []string{"v1alpha1"}},
		},
		install: `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: thundernetes-manager-role
rules:
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get"]
- apiGroups: ["mps.playfab.com"]
  resources: ["gameserverbuilds", "gameservers", "gameserverdetails"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["mps.playfab.com"]
  resources: ["gameserverbuilds/finalizers", "gameservers/finalizers"]
  verbs: ["update"]
- apiGroups: ["mps.playfab.com"]
  resources: ["gameserverbuilds/status", "gameservers/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: thundernetes-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: thundernetes-manager-role
subjects:
- kind: ServiceAccount
  name: thundernetes-controller-manager
  namespace: thundernetes-system
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: thundernetes-validating-webhook-configuration
  annotations: {cert-manager.io/inject-ca-from: thundernetes-system/thundernetes-serving-cert}
webhooks:
- name: vgameserver.kb.io
  admissionReviewVersions: ["v1"]
  sideEffects: None
  failurePolicy: Fail
  clientConfig:
    service: {name: thundernetes-webhook-service, namespace: thundernetes-system, path: /validate-mps-playfab-com-v1alpha1-gameserver}
  rules:
  - apiGroups: ["mps.playfab.com"]
    apiVersions: ["v1alpha1"]
    operations: ["CREATE", "UPDATE"]
    resources: ["gameservers"]
- name: vgameserverbuild.kb.io
  admissionReviewVersions: ["v1"]
  sideEffects: None
  failurePolicy: Fail
  clientConfig:
    service: {name: thundernetes-webhook-service, namespace: thundernetes-system, path: /validate-mps-playfab-com-v1alpha1-gameserverbuild}
  rules:
  - apiGroups: ["mps.playfab.com"]
    apiVersions: ["v1alpha1"]
    operations: ["CREATE", "UPDATE"]
    resources: ["gameserverbuilds"]
---
apiVersion: v1
kind: Namespace
metadata:
  name: game-eu
`,
		objects: `
apiVersion: mps.playfab.com/v1alpha1
kind: GameServerBuild
metadata:
  name: arena-eu
  namespace: game-eu
spec:
  titleID: 1E03
  buildID: 85ffe8da-c82f-4035-86c5-9d2b5f42d6f6
  standingBy: 2
  max: 4
  portsToExpose: [7777]
  template:
    spec:
      containers:
      - name: arena
        image: registry.example.com/games/arena-server:3.2.0
        ports:
        - {containerPort: 7777, protocol: UDP, name: gameport}
status:
  currentStandingBy: 2
  currentActive: 0
---
apiVersion: mps.playfab.com/v1alpha1
kind: GameServer
metadata:
  name: arena-eu-hmzwq
  namespace: game-eu
  labels: {BuildName: arena-eu, BuildID: 85ffe8da-c82f-4035-86c5-9d2b5f42d6f6, NodeName: worker-1}
  finalizers: [gameservers.mps.playfab.com/finalizer]
  ownerReferences:
  - {apiVersion: mps.playfab.com/v1alpha1, kind: GameServerBuild, name: arena-eu, controller: true, blockOwnerDeletion: true}
spec:
  titleID: 1E03
  buildID: 85ffe8da-c82f-4035-86c5-9d2b5f42d6f6
  portsToExpose: [7777]
  template:
    spec:
      containers:
      - name: arena
        image: registry.example.com/games/arena-server:3.2.0
        ports:
        - {containerPort: 7777, hostPort: 10001, protocol: UDP, name: gameport}
status:
  state: StandingBy
  health: Healthy
  publicIP: 20.31.14.7
  nodeName: worker-1
  ports: gameport:10001
---
apiVersion: mps.playfab.com/v1alpha1
kind: GameServer
metadata:
  name: arena-eu-p7d2x
  namespace: game-eu
  labels: {BuildName: arena-eu, BuildID: 85ffe8da-c82f-4035-86c5-9d2b5f42d6f6, NodeName: worker-1}
  finalizers: [gameservers.mps.playfab.com/finalizer]
  ownerReferences:
  - {apiVersion: mps.playfab.com/v1alpha1, kind: GameServerBuild, name: arena-eu, controller: true, blockOwnerDeletion: true}
spec:
  titleID: 1E03
  buildID: 85ffe8da-c82f-4035-86c5-9d2b5f42d6f6
  portsToExpose: [7777]
  template:
    spec:
      containers:
      - name: arena
        image: registry.example.com/games/arena-server:3.2.0
        ports:
        - {containerPort: 7777, hostPort: 10002, protocol: UDP, name: gameport}
status:
  state: StandingBy
  health: Healthy
  publicIP: 20.31.14.7
  nodeName: worker-1
  ports: gameport:10002
`,
		finalizersBy: map[string]string{
			"GameServer/game-eu/arena-eu-hmzwq": "manager",
			"GameServer/game-eu/arena-eu-p7d2x": "manager",
		},
		deletes: []string{"Namespace//game-eu"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "namespace", "game-eu")
	d.exit(1, "STUCK")
	f := d.finalizer("gameservers.mps.playfab.com/arena-eu-hmzwq -n game-eu", "gameservers.mps.playfab.com/finalizer")
	// The controller went with thundernetes-system: nothing runs that removes the finalizer.
	d.verdict(f, controllerAbsent)
	d.noRunningRemover(f)
	// Nothing is left outside: the way out is removing the finalizer from the GameServers.
	d.offers(f, stripFinalizer)
	// Removing it is an UPDATE of a gameserver, which the install's fail-closed webhook refuses
	// while its Service is gone: the webhook configuration is named, and its removal offered.
	d.names(f, "validatingwebhookconfigurations.admissionregistration.k8s.io/thundernetes-validating-webhook-configuration")
	d.offers(f, deleteWebhookConfig)
}
