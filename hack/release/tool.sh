#!/usr/bin/env bash
# Installs one Go tool with `go install PKG@VERSION` into a cache outside the repository and
# prints the path of its binary on stdout; progress goes to stderr.
#
#   hack/release/tool.sh github.com/goreleaser/goreleaser/v2@v2.15.1
#   hack/release/tool.sh sigs.k8s.io/krew/cmd/krew@v0.4.3
#
# The tools never enter the suite's go.mod (krew needs an `exclude` the suite does not want).
# The cache directory is keyed by package, version and `go version`; concurrent callers
# serialise on a lock and the binary is moved into place atomically, so a half-built tool is
# never visible. KF_TOOL_BUILD_P caps the build's parallelism (go build -p) on a shared machine.
set -euo pipefail
if [ $# -ne 1 ] || [[ "$1" != *@* ]]; then
	echo "usage: $0 PKG@VERSION" >&2
	exit 3
fi
spec=$1
pkg=${spec%@*}
version=${spec#*@}
name=$(basename "$pkg")
case "$name" in v[0-9]*) name=$(basename "$(dirname "$pkg")") ;; esac
cache_root=${KF_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kubeforensics}
key=$( { echo "$spec"; go version; } | sha256sum | cut -c1-12)
dest="$cache_root/tools/$name-$version-$key"
bin="$dest/$name"

if [ -x "$bin" ]; then echo "$bin"; exit 0; fi
mkdir -p "$cache_root/tools"
exec 9>"$dest.lock"
flock 9
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi

echo "installing $spec into $dest (first time only)" >&2
tmp=$(mktemp -d "$cache_root/tools/.build-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
flags=(-trimpath)
[ -n "${KF_TOOL_BUILD_P:-}" ] && flags+=(-p "$KF_TOOL_BUILD_P")
# Outside any module, so the suite's go.mod and GOFLAGS such as -mod=vendor play no part.
( cd "$tmp" && GOFLAGS= GOBIN="$tmp" go install "${flags[@]}" "$spec" )
[ -x "$tmp/$name" ] || { echo "go install $spec produced no $name" >&2; exit 1; }
rm -rf "$dest"
mv "$tmp" "$dest"
trap - EXIT
echo "installed $name $version in $(( $(date +%s) - start ))s" >&2
echo "$bin"
