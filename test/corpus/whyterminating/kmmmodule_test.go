//go:build corpusopen

// Open (corpusopen): after processspec.go the wrong "create Module i915 again" is gone
// (remover-stalled, its logs, then the strip), but the device-plugin DaemonSet the Module owns,
// which keeps the kernel module loaded, is still not named: a rule that made every live
// dependent of a stalled object a blocker would misfire on operators whose custom resources own
// their workloads; no general evidence (the object's own status saying it waits) is shown here.

package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/kubernetes-sigs/kernel-module-management/pull/590 ("Fixing Module
// with device-plugin finalization deadlock"; downstream rh-ecosystem-edge/kernel-module-management
// #806): a deleted Module waits, under its finalizer kmm.node.kubernetes.io/module-finalizer,
// until its kernel modules are unloaded from every node (until no NodeModulesConfig lists it any
// more). When the Module deploys a device plugin, the plugin's DaemonSet is owned by the Module
// and is only garbage-collected once the Module is gone; while its pods run they hold the kernel
// module, so the unload never succeeds: a deadlock. The fix deletes the device-plugin DaemonSet
// when the Module is being deleted instead of waiting for the garbage collector; by hand, the way
// out is to delete that DaemonSet (the Module's own dependent), after which the unload and the
// finalizer complete. Stripping the finalizer would leave the kernel module loaded on the node.
//
// Modelled on KMM's install (config/default, v2.0: namespace kmm-operator-system, the Deployment
// kmm-operator-controller with its ServiceAccount and ClusterRole on kmm.sigs.x-k8s.io modules,
// their finalizers and status, nodemodulesconfigs, daemonsets, pods), the CRDs modules and
// nodemodulesconfigs of kmm.sigs.x-k8s.io. The Module intel-dgpu with a device plugin, its
// device-plugin DaemonSet (owned by the Module, as KMM creates it), and the NodeModulesConfig of
// the node worker-1 whose status still lists the module loaded (its spec no longer asks for it).
func TestCorpusKMMModuleWaitingOnItsOwnDevicePlugin(t *testing.T) {
	replay{
		crds: []crd{
			{group: "kmm.sigs.x-k8s.io", kind: "Module", plural: "modules", namespaced: true, versions: []string{"v1beta1"}},
			{group: "kmm.sigs.x-k8s.io", kind: "NodeModulesConfig", plural: "nodemodulesconfigs", versions: []string{"v1beta1"}},
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: kmm-operator-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kmm-operator-controller
  namespace: kmm-operator-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kmm-operator-manager-role
rules:
- apiGroups: ["kmm.sigs.x-k8s.io"]
  resources: ["modules", "nodemodulesconfigs"]
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"]
- apiGroups: ["kmm.sigs.x-k8s.io"]
  resources: ["modules/finalizers"]
  verbs: ["update"]
- apiGroups: ["kmm.sigs.x-k8s.io"]
  resources: ["modules/status", "nodemodulesconfigs/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["apps"]
  resources: ["daemonsets"]
  verbs: ["create", "delete", "get", "list", "patch", "watch"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["create", "delete", "get", "list", "patch", "watch"]
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["get", "list", "patch", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kmm-operator-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: kmm-operator-manager-role
subjects:
- kind: ServiceAccount
  name: kmm-operator-controller
  namespace: kmm-operator-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kmm-operator-controller
  namespace: kmm-operator-system
  labels: {app.kubernetes.io/name: kmm, app.kubernetes.io/component: kmm, app.kubernetes.io/part-of: kmm, control-plane: controller}
spec:
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: kmm, app.kubernetes.io/component: kmm, control-plane: controller}
  template:
    metadata:
      labels: {app.kubernetes.io/name: kmm, app.kubernetes.io/component: kmm, app.kubernetes.io/part-of: kmm, control-plane: controller}
    spec:
      serviceAccountName: kmm-operator-controller
      containers:
      - name: manager
        image: gcr.io/k8s-staging-kmm/kernel-module-management-operator:v2.0.0
        args: ["--config=controller_config.yaml"]
---
apiVersion: v1
kind: Namespace
metadata:
  name: intel-dgpu
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: intel-dgpu-device-plugin
  namespace: intel-dgpu
`,
		objects: `
apiVersion: kmm.sigs.x-k8s.io/v1beta1
kind: Module
metadata:
  name: intel-dgpu
  namespace: intel-dgpu
  finalizers: [kmm.node.kubernetes.io/module-finalizer]
spec:
  moduleLoader:
    container:
      modprobe:
        moduleName: i915
        firmwarePath: /firmware
      kernelMappings:
      - regexp: '^.*\.x86_64$'
        containerImage: registry.example.com/intel-dgpu-driver:$KERNEL_FULL_VERSION
  devicePlugin:
    serviceAccountName: intel-dgpu-device-plugin
    container:
      image: intel/intel-gpu-plugin:0.28.0
  selector:
    intel.feature.node.kubernetes.io/gpu: "true"
status:
  moduleLoader:
    nodesMatchingSelectorNumber: 1
    desiredNumber: 1
    availableNumber: 1
  devicePlugin:
    nodesMatchingSelectorNumber: 1
    desiredNumber: 1
    availableNumber: 1
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: intel-dgpu-device-plugin-6b2cd
  namespace: intel-dgpu
  labels: {kmm.node.kubernetes.io/module.name: intel-dgpu, kmm.node.kubernetes.io/role: device-plugin}
  ownerReferences:
  - apiVersion: kmm.sigs.x-k8s.io/v1beta1
    kind: Module
    name: intel-dgpu
    controller: true
    blockOwnerDeletion: true
spec:
  selector:
    matchLabels: {kmm.node.kubernetes.io/module.name: intel-dgpu, kmm.node.kubernetes.io/role: device-plugin}
  template:
    metadata:
      labels: {kmm.node.kubernetes.io/module.name: intel-dgpu, kmm.node.kubernetes.io/role: device-plugin}
    spec:
      serviceAccountName: intel-dgpu-device-plugin
      containers:
      - name: device-plugin
        image: intel/intel-gpu-plugin:0.28.0
        securityContext: {privileged: true}
        volumeMounts:
        - {name: kubelet-device-plugins, mountPath: /var/lib/kubelet/device-plugins}
      volumes:
      - name: kubelet-device-plugins
        hostPath: {path: /var/lib/kubelet/device-plugins}
---
apiVersion: kmm.sigs.x-k8s.io/v1beta1
kind: NodeModulesConfig
metadata:
  name: worker-1
spec:
  modules: []
status:
  modules:
  - name: intel-dgpu
    namespace: intel-dgpu
    serviceAccountName: ""
    config:
      containerImage: registry.example.com/intel-dgpu-driver:5.14.0-284.11.1.el9_2.x86_64
      kernelVersion: 5.14.0-284.11.1.el9_2.x86_64
      modprobe: {moduleName: i915, firmwarePath: /firmware}
    lastTransitionTime: "2023-09-27T08:14:31Z"
`,
		deletes: []string{"Module/intel-dgpu/intel-dgpu"},
	}.run(t)

	d := diagnoseAfter(t, time.Hour, "modules.kmm.sigs.x-k8s.io", "intel-dgpu", "-n", "intel-dgpu")
	d.exit(1, "STUCK")
	f := d.finalizer("modules.kmm.sigs.x-k8s.io/intel-dgpu -n intel-dgpu", "kmm.node.kubernetes.io/module-finalizer")
	d.remover(f, "deployments.apps/kmm-operator-controller -n kmm-operator-system", true)
	// The Module's own device-plugin DaemonSet keeps the kernel module in use: deleting it is the
	// way out, not stripping the finalizer (which would leave the module loaded on the node).
	d.names(f, "daemonsets.apps/intel-dgpu-device-plugin-6b2cd -n intel-dgpu")
	d.notFirstFix(f, stripFinalizer, readLogs)
	d.never(f, reinstall, restoreController)
}
