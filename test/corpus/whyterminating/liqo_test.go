package whyterminating_test

import (
	"testing"
	"time"
)

// Report: https://github.com/liqotech/liqo/issues/246 ("The uninstaller hangs forever while
// deleting the Liqo CRDs"): Liqo (v0.1, 2020) was uninstalled with its script and --deleteCrd
// after a peering had been established. The script removed the release first (every Liqo pod,
// with its RBAC), then the CRDs; networkconfigs.net.liqo.io and tunnelendpoints.net.liqo.io never
// go, "since the corresponding resources are associated to finalizers that do not longer exist
// (since all pods have already been deleted in the previous step)": the NetworkConfig keeps
// tunnelEndpointCreator-Finalizer.liqonet.liqo.io (the network manager's) and the TunnelEndpoint
// keeps tunnelEndpointFinalizer.liqonet.liqo.io (the gateway's) and the route operator's
// per-node routeOperator-worker-1-Finalizer.liqonet.liqo.io. Nothing of Liqo runs any more. The
// maintainers fixed the uninstaller (unpeer and delete the resources while the controllers still
// run, then the CRDs); for the clusters already stuck, the finalizers have to be removed by hand
// (or Liqo reinstalled so that its controllers finish), leaving on the nodes what the gateway and
// route operator had configured (the tunnel interface and routes).
//
// Modelled on what the uninstall leaves: the CRDs of Liqo v0.1's groups (net.liqo.io,
// discovery.liqo.io, sharing.liqo.io, config.liqo.io; cluster-scoped, unlabelled), the namespace
// liqo empty (Deployments, DaemonSets, ServiceAccounts and ClusterRoles of the release are gone),
// the NetworkConfig and TunnelEndpoint of the one peering with their finalizers and status, both
// CRDs deleted.
func TestCorpusLiqoNetworkResourcesAfterTheirControllersWereUninstalled(t *testing.T) {
	lq := func(group, kind, plural string) crd {
		return crd{group: group, kind: kind, plural: plural, namespaced: false, versions: []string{"v1alpha1"}}
	}
	replay{
		crds: []crd{
			lq("net.liqo.io", "NetworkConfig", "networkconfigs"),
			lq("net.liqo.io", "TunnelEndpoint", "tunnelendpoints"),
			lq("discovery.liqo.io", "ForeignCluster", "foreignclusters"),
			lq("discovery.liqo.io", "PeeringRequest", "peeringrequests"),
			lq("sharing.liqo.io", "Advertisement", "advertisements"),
			lq("config.liqo.io", "ClusterConfig", "clusterconfigs"),
		},
		install: `
apiVersion: v1
kind: Namespace
metadata:
  name: liqo
`,
		objects: `
apiVersion: net.liqo.io/v1alpha1
kind: NetworkConfig
metadata:
  name: net-config-4f2b7c1e
  labels: {net.liqo.io/destination: 0e5b9f3a-6c2d-4e8f-a1b7-3d9c5e2f8a40}
  finalizers: [tunnelEndpointCreator-Finalizer.liqonet.liqo.io]
spec:
  clusterID: 0e5b9f3a-6c2d-4e8f-a1b7-3d9c5e2f8a40
  podCIDR: 10.244.0.0/16
  tunnelPublicIP: 172.18.0.3
  tunnelPrivateIP: 10.244.0.5
status:
  processed: true
  podCIDRNAT: None
---
apiVersion: net.liqo.io/v1alpha1
kind: TunnelEndpoint
metadata:
  name: tun-endpoint-0e5b9f3a
  finalizers:
  - tunnelEndpointFinalizer.liqonet.liqo.io
  - routeOperator-worker-1-Finalizer.liqonet.liqo.io
spec:
  clusterID: 0e5b9f3a-6c2d-4e8f-a1b7-3d9c5e2f8a40
  podCIDR: 10.245.0.0/16
  tunnelPublicIP: 172.18.0.4
  tunnelPrivateIP: 10.245.0.7
status:
  phase: Ready
  localTunnelPublicIP: 172.18.0.3
  localTunnelPrivateIP: 10.244.0.5
  remoteTunnelPublicIP: 172.18.0.4
  remoteTunnelPrivateIP: 10.245.0.7
  localRemappedPodCIDR: None
  remoteRemappedPodCIDR: None
  tunnelIFaceIndex: 12
  tunnelIFaceName: gretun_0e5b9f3a
`,
		// The API server deletes a deleted CRD's resources in the background: they are deleted
		// first here, so that each is Terminating before the tool runs, as in the report.
		deletes: []string{"NetworkConfig//net-config-4f2b7c1e", "TunnelEndpoint//tun-endpoint-0e5b9f3a",
			"CustomResourceDefinition//networkconfigs.net.liqo.io", "CustomResourceDefinition//tunnelendpoints.net.liqo.io"},
	}.run(t)

	// "The deletion process never terminates": well after the uninstall.
	d := diagnoseAfter(t, time.Hour, "customresourcedefinitions", "tunnelendpoints.net.liqo.io")
	d.exit(1, "STUCK")
	for _, fin := range []string{"tunnelEndpointFinalizer.liqonet.liqo.io", "routeOperator-worker-1-Finalizer.liqonet.liqo.io"} {
		f := d.finalizer("tunnelendpoints.net.liqo.io/tun-endpoint-0e5b9f3a", fin)
		// Nothing of Liqo runs: reinstall it to finish, or remove the finalizer by hand.
		d.noRunningRemover(f)
		d.verdict(f, controllerAbsent)
		d.offers(f, stripFinalizer)
		d.never(f, readLogs)
	}
}
