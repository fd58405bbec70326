package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/agones-dev/agones/issues/2360 ("GameServer stucks in Shutdown state
// preventing a rolling update to complete"): from time to time a GameServer of a Fleet stays in
// state Shutdown with its deletionTimestamp set and the finalizer agones.dev, though its Pod is
// already gone; the GameServerSet it belongs to cannot scale down and the Fleet's rolling update
// never completes. The controller removes agones.dev once the GameServer's Pod is gone; the
// reporter's theory (a Pod deletion seen before the controller's Pod cache caught up, so the
// removal was skipped and never retried) was what the fix addressed. The controller runs and is
// the remover; what it waited for (the Pod) is gone, so it has stalled: its logs, then the strip,
// which leaves nothing behind (the Pod and its port are already gone). Nothing to reinstall.
//
// Modelled on the Helm chart install/helm/agones of Agones 1.16 (the release of the report): in
// namespace agones-system the controller's ServiceAccount, its ClusterRole with the chart's rules
// (bound, as the chart binds it, to the User system:serviceaccount:agones-system:agones-controller)
// and Deployment; the allocator's ServiceAccount, ClusterRole (it may update GameServers too:
// allocation marks them Allocated) and Deployment; the SDK's ServiceAccount and ClusterRole bound
// in the game servers' namespace (every game server Pod's sidecar may update GameServers). The
// CRDs of agones.dev, autoscaling.agones.dev and multicluster.agones.dev, unlabelled. The
// aggregated allocation APIService and the admission webhooks of agones-controller-service are
// left out: the replay's pods answer no requests, and the report is not about them. The Fleet
// simple-game-server rolls from GameServerSet -5jqjh (scaled to 0, one GameServer left, in
// Shutdown, its Pod gone) to -8m2kx (two Ready GameServers, their Pods running).
func TestCorpusAgonesGameServerShutdownWithItsPodGone(t *testing.T) {
	ag := func(group, kind, plural string) crd {
		return crd{group: group, kind: kind, plural: plural, namespaced: true, versions: []string{"v1"}}
	}
	replay{
		crds: []crd{
			ag("agones.dev", "GameServer", "gameservers"),
			ag("agones.dev", "GameServerSet", "gameserversets"),
			ag("agones.dev", "Fleet", "fleets"),
			ag("autoscaling.agones.dev", "FleetAutoscaler", "fleetautoscalers"),
			ag("multicluster.agones.dev", "GameServerAllocationPolicy", "gameserverallocationpolicies"),
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: agones-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: agones-controller
  namespace: agones-system
  labels: {app: agones, chart: agones-1.16.0, release: agones, heritage: Helm}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: agones-controller
  labels: {app: agones, chart: agones-1.16.0, release: agones, heritage: Helm}
rules:
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["create", "update", "delete", "list", "watch"]
- apiGroups: [""]
  resources: ["nodes", "secrets"]
  verbs: ["list", "watch"]
- apiGroups: ["apiextensions.k8s.io"]
  resources: ["customresourcedefinitions"]
  verbs: ["get"]
- apiGroups: ["agones.dev"]
  resources: ["gameservers", "gameserversets"]
  verbs: ["create", "delete", "get", "list", "update", "watch"]
- apiGroups: ["agones.dev"]
  resources: ["gameservers"]
  verbs: ["patch"]
- apiGroups: ["agones.dev"]
  resources: ["fleets"]
  verbs: ["get", "list", "update", "watch"]
- apiGroups: ["agones.dev"]
  resources: ["fleets/status", "gameserversets/status"]
  verbs: ["update"]
- apiGroups: ["agones.dev"]
  resources: ["fleets/finalizers", "gameserversets/finalizers", "gameservers/finalizers"]
  verbs: ["update"]
- apiGroups: ["multicluster.agones.dev"]
  resources: ["gameserverallocationpolicies"]
  verbs: ["create", "delete", "get", "list", "update", "watch"]
- apiGroups: ["autoscaling.agones.dev"]
  resources: ["fleetautoscalers"]
  verbs: ["get", "list", "update", "watch"]
- apiGroups: ["autoscaling.agones.dev"]
  resources: ["fleetautoscalers/status"]
  verbs: ["update"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["create", "delete", "get", "list", "update", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: agones-controller-access
  labels: {app: agones, chart: agones-1.16.0, release: agones, heritage: Helm}
subjects:
- kind: User
  name: system:serviceaccount:agones-system:agones-controller
  apiGroup: rbac.authorization.k8s.io
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: agones-controller
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: agones-allocator
  namespace: agones-system
  labels: {app: agones, chart: agones-1.16.0, release: agones, heritage: Helm}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: agones-allocator
  labels: {app: agones, chart: agones-1.16.0, release: agones, heritage: Helm}
rules:
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: ["allocation.agones.dev"]
  resources: ["gameserverallocations"]
  verbs: ["create"]
- apiGroups: [""]
  resources: ["nodes", "secrets"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["agones.dev"]
  resources: ["gameserversets"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["agones.dev"]
  resources: ["gameservers"]
  verbs: ["get", "list", "update", "watch"]
- apiGroups: ["multicluster.agones.dev"]
  resources: ["gameserverallocationpolicies"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: agones-allocator
  labels: {app: agones, chart: agones-1.16.0, release: agones, heritage: Helm}
subjects:
- kind: ServiceAccount
  name: agones-allocator
  namespace: agones-system
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: agones-allocator
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: agones-sdk
  namespace: default
  labels: {app: agones, chart: agones-1.16.0, release: agones, heritage: Helm}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: agones-sdk
  labels: {app: agones, chart: agones-1.16.0, release: agones, heritage: Helm}
rules:
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create"]
- apiGroups: ["agones.dev"]
  resources: ["gameservers"]
  verbs: ["list", "update", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: agones-sdk-access
  namespace: default
  labels: {app: agones, chart: agones-1.16.0, release: agones, heritage: Helm}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: agones-sdk
subjects:
- kind: User
  name: system:serviceaccount:default:agones-sdk
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: agones-controller
  namespace: agones-system
  labels: {component: controller, app: agones, chart: agones-1.16.0, release: agones, heritage: Helm}
spec:
  replicas: 1
  strategy:
    type: Recreate
  selector:
    matchLabels: {component: controller, app: agones, release: agones, heritage: Helm}
  template:
    metadata:
      labels: {component: controller, app: agones, release: agones, heritage: Helm}
    spec:
      serviceAccountName: agones-controller
      containers:
      - name: agones-controller
        image: gcr.io/agones-images/agones-controller:1.16.0
        env:
        - {name: PROMETHEUS_EXPORTER, value: "true"}
        - {name: SIDECAR_IMAGE, value: gcr.io/agones-images/agones-sdk:1.16.0}
        - {name: MIN_PORT, value: "7000"}
        - {name: MAX_PORT, value: "8000"}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: agones-allocator
  namespace: agones-system
  labels: {component: allocator, app: agones, chart: agones-1.16.0, release: agones, heritage: Helm}
spec:
  replicas: 1
  selector:
    matchLabels: {multicluster.agones.dev/role: allocator, app: agones, release: agones, heritage: Helm}
  template:
    metadata:
      labels: {multicluster.agones.dev/role: allocator, app: agones, release: agones, heritage: Helm}
    spec:
      serviceAccountName: agones-allocator
      containers:
      - name: agones-allocator
        image: gcr.io/agones-images/agones-allocator:1.16.0
`,
		objects: `
apiVersion: agones.dev/v1
kind: Fleet
metadata:
  name: simple-game-server
  namespace: default
spec:
  replicas: 2
  scheduling: Packed
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 25%, maxUnavailable: 25%}
  template:
    spec:
      ports:
      - {name: default, containerPort: 7654}
      template:
        spec:
          containers:
          - name: simple-game-server
            image: gcr.io/agones-images/simple-game-server:0.5
status:
  replicas: 3
  readyReplicas: 2
  allocatedReplicas: 0
---
apiVersion: agones.dev/v1
kind: GameServerSet
metadata:
  name: simple-game-server-5jqjh
  namespace: default
  labels: {agones.dev/fleet: simple-game-server}
  ownerReferences:
  - {apiVersion: agones.dev/v1, kind: Fleet, name: simple-game-server, controller: true, blockOwnerDeletion: true}
spec:
  replicas: 0
  scheduling: Packed
status:
  replicas: 1
  readyReplicas: 0
  shutdownReplicas: 1
---
apiVersion: agones.dev/v1
kind: GameServerSet
metadata:
  name: simple-game-server-8m2kx
  namespace: default
  labels: {agones.dev/fleet: simple-game-server}
  ownerReferences:
  - {apiVersion: agones.dev/v1, kind: Fleet, name: simple-game-server, controller: true, blockOwnerDeletion: true}
spec:
  replicas: 2
  scheduling: Packed
status:
  replicas: 2
  readyReplicas: 2
---
apiVersion: agones.dev/v1
kind: GameServer
metadata:
  name: simple-game-server-5jqjh-q8wrd
  namespace: default
  labels: {agones.dev/fleet: simple-game-server, agones.dev/gameserverset: simple-game-server-5jqjh}
  annotations: {agones.dev/sdk-version: 1.16.0}
  finalizers: [agones.dev]
  ownerReferences:
  - {apiVersion: agones.dev/v1, kind: GameServerSet, name: simple-game-server-5jqjh, controller: true, blockOwnerDeletion: true}
spec:
  container: simple-game-server
  ports:
  - {name: default, portPolicy: Dynamic, containerPort: 7654, hostPort: 7305, protocol: UDP}
  health: {periodSeconds: 5, failureThreshold: 3, initialDelaySeconds: 5}
  template:
    spec:
      containers:
      - name: simple-game-server
        image: gcr.io/agones-images/simple-game-server:0.4
status:
  state: Shutdown
  address: 10.128.0.12
  nodeName: worker-1
  ports:
  - {name: default, port: 7305}
---
apiVersion: agones.dev/v1
kind: GameServer
metadata:
  name: simple-game-server-8m2kx-4tvzl
  namespace: default
  labels: {agones.dev/fleet: simple-game-server, agones.dev/gameserverset: simple-game-server-8m2kx}
  annotations: {agones.dev/sdk-version: 1.16.0}
  finalizers: [agones.dev]
  ownerReferences:
  - {apiVersion: agones.dev/v1, kind: GameServerSet, name: simple-game-server-8m2kx, controller: true, blockOwnerDeletion: true}
spec:
  container: simple-game-server
  ports:
  - {name: default, portPolicy: Dynamic, containerPort: 7654, hostPort: 7412, protocol: UDP}
  template:
    spec:
      containers:
      - name: simple-game-server
        image: gcr.io/agones-images/simple-game-server:0.5
status:
  state: Ready
  address: 10.128.0.12
  nodeName: worker-1
  ports:
  - {name: default, port: 7412}
---
apiVersion: v1
kind: Pod
metadata:
  name: simple-game-server-8m2kx-4tvzl
  namespace: default
  labels: {agones.dev/gameserver: simple-game-server-8m2kx-4tvzl, agones.dev/role: gameserver}
  annotations: {agones.dev/container: simple-game-server, agones.dev/sdk-version: 1.16.0}
  ownerReferences:
  - {apiVersion: agones.dev/v1, kind: GameServer, name: simple-game-server-8m2kx-4tvzl, controller: true, blockOwnerDeletion: true}
spec:
  nodeName: worker-1
  serviceAccountName: agones-sdk
  containers:
  - name: simple-game-server
    image: gcr.io/agones-images/simple-game-server:0.5
    ports:
    - {containerPort: 7654, hostPort: 7412, protocol: UDP}
  - name: agones-gameserver-sidecar
    image: gcr.io/agones-images/agones-sdk:1.16.0
status:
  phase: Running
  conditions:
  - {type: Ready, status: "True"}
`,
		deletes: []string{"GameServer/default/simple-game-server-5jqjh-q8wrd"},
	}.run(t)

	// The reporter found it stuck during a rolling update that never completed: long after.
	d := diagnoseAfter(t, time.Hour, "gameservers.agones.dev", "simple-game-server-5jqjh-q8wrd", "-n", "default")
	d.exit(1, "STUCK")
	ref := "gameservers.agones.dev/simple-game-server-5jqjh-q8wrd -n default"
	f := d.finalizer(ref, "agones.dev")
	// The controller removes agones.dev; the allocator and the other game servers' SDK sidecars
	// may update GameServers too, but never finalize them.
	d.remover(f, "deployments.apps/agones-controller -n agones-system", true)
	d.notRemover(f, "deployments.apps/agones-allocator -n agones-system")
	d.notRemover(f, "pods/simple-game-server-8m2kx-4tvzl -n default")
	d.verdict(f, removerStalled)
	d.notDeleting(ref, "a game server unfinalized for an hour")
	// It runs and has what it waited for (the Pod is gone): nothing to bring back; the strip
	// is the way out.
	d.never(f, reinstall, restoreController)
	d.offers(f, stripFinalizer)
}
