// Package testenv starts and stops a real local control plane (etcd, kube-apiserver and,
// optionally, kube-controller-manager) for tests and the demo.
//
// Its boundary: it owns the processes it starts, their ports on 127.0.0.1, and one work
// directory holding their data, keys, logs and a kubeconfig; it hands out that kubeconfig,
// a *rest.Config and a kubectl runner, and it can install CustomResourceDefinitions (the
// embedded Flux CRDs, or any given ones). It knows nothing of the plugins under test and
// runs no kubelet, scheduler or workloads: pods are never scheduled or run. The binaries come
// from hack/controlplane/build.sh (or $KF_CONTROLPLANE_BIN); this package never downloads
// anything itself.
package testenv
