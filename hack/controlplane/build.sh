#!/usr/bin/env bash
# Builds etcd, kube-apiserver, kube-controller-manager and kubectl from the Go module proxy
# (the wrapper module beside this script) and caches them outside the repository.
#
# The cache directory is keyed by a hash of the wrapper's go.mod/go.sum and `go version`, so
# a change of Kubernetes version or toolchain builds a fresh set; an unchanged key reuses the
# binaries in a fraction of a second. Concurrent callers serialise on a lock and the set is
# moved into place atomically, so a half-built directory is never visible.
#
# Prints the directory that holds the binaries on stdout; progress goes to stderr.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache_root=${KF_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kubeforensics}
key=$( { cat "$here/go.mod" "$here/go.sum"; go version; } | sha256sum | cut -c1-16)
dest="$cache_root/controlplane-$key"
bins=(etcd kube-apiserver kube-controller-manager kubectl)

complete() { for b in "${bins[@]}"; do [ -x "$dest/$b" ] || return 1; done; }

if complete; then echo "$dest"; exit 0; fi
mkdir -p "$cache_root"
exec 9>"$cache_root/controlplane-$key.lock"
flock 9
if complete; then echo "$dest"; exit 0; fi

echo "building etcd, kube-apiserver, kube-controller-manager and kubectl from the module proxy" >&2
echo "(about 10 minutes on 2 cores the first time; cached in $dest afterwards)" >&2
tmp=$(mktemp -d "$cache_root/.build-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
( cd "$here" && GOFLAGS=-mod=mod go build -trimpath -ldflags='-s -w' -o "$tmp/" \
    go.etcd.io/etcd/server/v3 \
    k8s.io/kubernetes/cmd/kube-apiserver \
    k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kubectl )
mv "$tmp/v3" "$tmp/etcd" 2>/dev/null || mv "$tmp/server" "$tmp/etcd"
rm -rf "$dest"
mv "$tmp" "$dest"
trap - EXIT
echo "built in $(( $(date +%s) - start ))s" >&2
echo "$dest"
