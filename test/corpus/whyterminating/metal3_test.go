package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/metal3-io/baremetal-operator/issues/1163 ("Failed to delete BMH"):
// the whole namespace of a Metal3 cluster is deleted; everything goes but the BareMetalHost,
// whose finalizer baremetalhost.metal3.io stays, so the namespace stays Terminating. The
// baremetal-operator runs and logs, every 30 seconds, "provisioner is not ready": deleting a
// host deprovisions it through Ironic first, and the operator "can't talk to ironic deployment
// or the ironic-deployment is deleted". The maintainers: "never recommend anyone to delete
// finalizers ... you can and probably will leave a dangling Node in Ironic"; bring the
// provisioner back (or, to let the host go without deprovisioning, use the detached
// annotation). What holds the finalizer is the Ironic deployment the operator points at.
//
// Modelled on baremetal-operator's config/default and the ironic-deployment kustomization
// (capm3 v1.1 era): namespace baremetal-operator-system, the ServiceAccount, ClusterRole
// baremetal-operator-manager-role (rules abbreviated) and binding, the ConfigMap
// baremetal-operator-ironic the operator reads its Ironic endpoints from, the Deployment
// baremetal-operator-controller-manager, and the Deployment and Service
// baremetal-operator-ironic, whose pods crash-loop (the operator cannot reach Ironic); the CRDs
// of metal3.io. The webhook is left out: the replay's pods answer no requests.
func TestCorpusMetal3BareMetalHostProvisionerNotReady(t *testing.T) {
	replay{
		crds: []crd{
			{group: "metal3.io", kind: "BareMetalHost", plural: "baremetalhosts", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "metal3.io", kind: "HardwareData", plural: "hardwaredata", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "metal3.io", kind: "FirmwareSchema", plural: "firmwareschemas", namespaced: true, versions: []string{"v1alpha1"}},
			{group: "metal3.io", kind: "PreprovisioningImage", plural: "preprovisioningimages", namespaced: true, versions: []string{"v1alpha1"}},
		},
		unready: []string{"baremetal-operator-system/baremetal-operator-ironic"},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: baremetal-operator-system
  labels:
    control-plane: controller-manager
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: baremetal-operator-controller-manager
  namespace: baremetal-operator-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: baremetal-operator-manager-role
rules:
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "list", "watch", "update"]
- apiGroups: ["metal3.io"]
  resources: ["baremetalhosts", "baremetalhosts/status", "baremetalhosts/finalizers", "hardwaredata", "hardwaredata/finalizers", "firmwareschemas", "preprovisioningimages", "preprovisioningimages/status"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: baremetal-operator-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: baremetal-operator-manager-role
subjects:
- kind: ServiceAccount
  name: baremetal-operator-controller-manager
  namespace: baremetal-operator-system
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: baremetal-operator-ironic
  namespace: baremetal-operator-system
data:
  DEPLOY_KERNEL_URL: http://172.22.0.2:6180/images/ironic-python-agent.kernel
  DEPLOY_RAMDISK_URL: http://172.22.0.2:6180/images/ironic-python-agent.initramfs
  IRONIC_ENDPOINT: https://baremetal-operator-ironic.baremetal-operator-system.svc:6385/v1/
  IRONIC_INSPECTOR_ENDPOINT: https://baremetal-operator-ironic.baremetal-operator-system.svc:5050/v1/
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: baremetal-operator-controller-manager
  namespace: baremetal-operator-system
  labels:
    control-plane: controller-manager
    webhook: metal3-io-v1alpha1-baremetalhost
spec:
  replicas: 1
  selector:
    matchLabels:
      control-plane: controller-manager
      webhook: metal3-io-v1alpha1-baremetalhost
  template:
    metadata:
      labels:
        control-plane: controller-manager
        webhook: metal3-io-v1alpha1-baremetalhost
    spec:
      serviceAccountName: baremetal-operator-controller-manager
      containers:
      - name: manager
        image: quay.io/metal3-io/baremetal-operator:capm3-v1.1.2
        command: ["/baremetal-operator"]
        args: ["--metrics-addr=127.0.0.1:8085", "--enable-leader-election"]
        envFrom:
        - configMapRef:
            name: baremetal-operator-ironic
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: baremetal-operator-ironic
  namespace: baremetal-operator-system
  labels:
    name: baremetal-operator-ironic
spec:
  replicas: 1
  selector:
    matchLabels:
      name: baremetal-operator-ironic
  template:
    metadata:
      labels:
        name: baremetal-operator-ironic
    spec:
      containers:
      - name: ironic
        image: quay.io/metal3-io/ironic:capm3-v1.1.2
        command: ["/bin/runironic"]
      - name: ironic-inspector
        image: quay.io/metal3-io/ironic:capm3-v1.1.2
        command: ["/bin/runironic-inspector"]
---
apiVersion: v1
kind: Service
metadata:
  name: baremetal-operator-ironic
  namespace: baremetal-operator-system
spec:
  selector:
    name: baremetal-operator-ironic
  ports:
  - name: ironic
    port: 6385
    targetPort: 6385
  - name: inspector
    port: 5050
    targetPort: 5050
`,
		objects: `
apiVersion: v1
kind: Namespace
metadata:
  name: my-example
---
apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: my-host
  namespace: my-example
  finalizers:
  - baremetalhost.metal3.io
spec:
  online: true
  bootMACAddress: 52:54:00:6c:3c:01
  bootMode: UEFI
  bmc:
    address: redfish+https://10.40.0.21/redfish/v1/Systems/1
    credentialsName: my-host-bmc-secret
    disableCertificateVerification: true
  image:
    url: http://172.22.0.1/images/ubuntu-22.04.qcow2
    checksum: http://172.22.0.1/images/ubuntu-22.04.qcow2.md5sum
status:
  operationalStatus: OK
  errorMessage: ""
  poweredOn: true
  provisioning:
    ID: 7d1f3c52-6a0e-4b8e-9c3d-2f5b8e1a9c44
    state: provisioning
    bootMode: UEFI
  hardwareProfile: unknown
  goodCredentials:
    credentials:
      name: my-host-bmc-secret
      namespace: my-example
`,
		deletes: []string{"Namespace//my-example"},
	}.run(t)

	d := diagnoseAfter(t, 2*time.Hour, "namespace", "my-example")
	d.exit(1, "STUCK")
	f := d.finalizer("baremetalhosts.metal3.io/my-host -n my-example", "baremetalhost.metal3.io")
	d.remover(f, "deployments.apps/baremetal-operator-controller-manager -n baremetal-operator-system", true)
	// What the operator waits for is its provisioner, the Ironic deployment its endpoints
	// point at, which is not ready: it is named, and bringing it back comes before any strip
	// (a strip leaves the node registered in Ironic and the host powered on).
	d.names(f, "deployments.apps/baremetal-operator-ironic -n baremetal-operator-system")
	d.notFirstFix(f, stripFinalizer)
	d.never(f, reinstall)
}
