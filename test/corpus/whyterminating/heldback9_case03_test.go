//go:build corpusopen

package whyterminating_test

import "testing"

// Report: https://github.com/openyurtio/openyurt/issues/1694 ("[BUG] Lack of the delete logic of
// finalizer in yurt-iot-dock"): "Can not delete the device on the openyurt platform. The reason
// is the finalizer in the device crd." A maintainer: "This is a problem caused by adding finalizer
// when moving yurt-device-controller into yurt-manager. The previous version does not have this
// problem." yurt-iot-dock (running) puts iot.openyurt.io/device on every Device it syncs with
// EdgeX and, in that release, has no path that deletes the device in EdgeX and removes the
// finalizer; the reporter's fix added it. Until then the way out is to remove the finalizer by
// hand, which leaves the device registered in EdgeX (the Device records its EdgeX id,
// status.edgeId).
//
// Spent (batch 9's held-back third), wrong at first sight and still open (tag corpusopen): the
// running yurt-iot-dock is rightly named the remover, but the tool says "read its logs" and
// offers no strip. That this release never removes the finalizer is known from its code, not
// from the cluster: the replay deletes the Device just before the run, with no time, event or
// condition showing a stall, and its clock is not moved on, since the report gives no such time
// (docs/why-terminating.md, "Batches 9 and 10: the held-back thirds").
//
// Modelled on OpenYurt's charts (v1.4, the release of the report): in kube-system the
// Deployment yurt-manager with its ServiceAccount and ClusterRole (its rules on the
// platformadmins it manages and the RBAC it grants, abbreviated); in default, what yurt-manager
// deploys for the PlatformAdmin edgex-sample of node pool hangzhou: the Deployment
// yurt-iot-dock with its ServiceAccount, the ClusterRole yurt-iot-dock (its rules on devices,
// deviceprofiles and deviceservices with their status and finalizers) and binding; the CRDs of
// iot.openyurt.io. The Device is the one of the project's own tutorial, as yurt-iot-dock
// writes it.
func TestCorpusOpenYurtDeviceWhoseFinalizerNothingRemoves(t *testing.T) {
	replay{
		crds: []crd{
			{group: "iot.openyurt.io", kind: "Device", plural: "devices", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "iot.openyurt.io", kind: "DeviceProfile", plural: "deviceprofiles", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "iot.openyurt.io", kind: "DeviceService", plural: "deviceservices", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "iot.openyurt.io", kind: "PlatformAdmin", plural: "platformadmins", namespaced: true, versions: []string{"v1alpha2"}},
		},
		install: `
apiVersion: v1
kind: ServiceAccount
metadata:
  name: yurt-manager
  namespace: kube-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: yurt-manager-platformadmin-controller
rules:
- apiGroups: ["iot.openyurt.io"]
  resources: ["platformadmins"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["iot.openyurt.io"]
  resources: ["platformadmins/finalizers", "platformadmins/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["configmaps", "services", "serviceaccounts"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["clusterroles", "clusterrolebindings"]
  verbs: ["bind", "create", "delete", "escalate", "get", "list", "patch", "update", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: yurt-manager-platformadmin-controller
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: yurt-manager-platformadmin-controller
subjects:
- kind: ServiceAccount
  name: yurt-manager
  namespace: kube-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: yurt-manager
  namespace: kube-system
  labels:
    app.kubernetes.io/name: yurt-manager
    app.kubernetes.io/instance: yurt-manager
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: yurt-manager-1.4.0
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: yurt-manager
      app.kubernetes.io/instance: yurt-manager
  template:
    metadata:
      labels:
        app.kubernetes.io/name: yurt-manager
        app.kubernetes.io/instance: yurt-manager
    spec:
      serviceAccountName: yurt-manager
      containers:
      - name: yurt-manager
        image: openyurt/yurt-manager:v1.4.0
        command: ["/usr/local/bin/yurt-manager"]
        args: ["--metrics-addr=:10271", "--health-probe-addr=:10272", "--webhook-port=10273", "--logtostderr=true", "--v=4"]
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: yurt-iot-dock
  namespace: default
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: yurt-iot-dock
rules:
- apiGroups: ["iot.openyurt.io"]
  resources: ["devices", "deviceprofiles", "deviceservices"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["iot.openyurt.io"]
  resources: ["devices/finalizers", "deviceprofiles/finalizers", "deviceservices/finalizers"]
  verbs: ["update"]
- apiGroups: ["iot.openyurt.io"]
  resources: ["devices/status", "deviceprofiles/status", "deviceservices/status"]
  verbs: ["get", "patch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: yurt-iot-dock
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: yurt-iot-dock
subjects:
- kind: ServiceAccount
  name: yurt-iot-dock
  namespace: default
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: yurt-iot-dock-hangzhou
  namespace: default
  labels:
    app: yurt-iot-dock
    iot.openyurt.io/nodepool: hangzhou
spec:
  replicas: 1
  selector:
    matchLabels:
      app: yurt-iot-dock
      iot.openyurt.io/nodepool: hangzhou
  template:
    metadata:
      labels:
        app: yurt-iot-dock
        iot.openyurt.io/nodepool: hangzhou
    spec:
      serviceAccountName: yurt-iot-dock
      containers:
      - name: yurt-iot-dock
        image: openyurt/yurt-iot-dock:v1.4.0
        args: ["--metrics-bind-address=127.0.0.1:8080", "--leader-elect=false", "--namespace=default", "--nodepool=hangzhou", "--version=minnesota"]
`,
		objects: `
apiVersion: iot.openyurt.io/v1alpha2
kind: PlatformAdmin
metadata:
  name: edgex-sample
  namespace: default
spec:
  version: minnesota
  poolName: hangzhou
  components:
  - name: yurt-iot-dock
  - name: edgex-device-virtual
status:
  ready: true
  initialized: true
---
apiVersion: iot.openyurt.io/v1alpha1
kind: Device
metadata:
  name: openyurt-boolean-device
  namespace: default
  finalizers:
  - iot.openyurt.io/device
spec:
  adminState: UNLOCKED
  description: Example of Device Virtual
  labels:
  - openyurt-created-device-virtual-example
  managed: false
  nodePool: hangzhou
  notify: true
  operatingState: UP
  profileName: openyurt-created-random-boolean-deviceprofile
  protocols:
    other:
      Address: openyurt-created-device-virtual-bool-01
      Port: "300"
  serviceName: device-virtual
status:
  adminState: UNLOCKED
  edgeId: 5e63effd-deeb-4505-890e-17ec32f02511
  operatingState: UP
  synced: true
`,
		deletes: []string{"Device/default/openyurt-boolean-device"},
	}.run(t)

	d := diagnose(t, "devices.iot.openyurt.io", "openyurt-boolean-device", "-n", "default")
	d.exit(1, "STUCK")
	f := d.finalizer("devices.iot.openyurt.io/openyurt-boolean-device -n default", "iot.openyurt.io/device")
	// yurt-iot-dock runs and is the only workload that may update Devices; yurt-manager, which
	// deployed it, is not the remover. It never removes this finalizer: the strip is the way out,
	// and it leaves the device registered in EdgeX under the id the Device records.
	d.remover(f, "deployments.apps/yurt-iot-dock-hangzhou -n default", true)
	d.notRemover(f, "deployments.apps/yurt-manager -n kube-system")
	d.offers(f, stripFinalizer)
	d.never(f, reinstall, restoreController)
	d.stripCosts(f, "5e63effd-deeb-4505-890e-17ec32f02511")
}
