#!/usr/bin/env bash
# Installs one Go tool with `go install PKG@VERSION` into a cache outside the repository and
# prints the path of its binary on stdout; progress goes to stderr.
#
#   hack/release/tool.sh github.com/goreleaser/goreleaser/v2@v2.15.1
#   hack/release/tool.sh sigs.k8s.io/krew/cmd/krew@v0.4.3
#
# The tools never enter the suite's go.mod (krew needs an `exclude` the suite does not want).
# The cache (hack/release/cache.sh) is keyed by package, version and `go version`.
# KF_TOOL_BUILD_P caps the build's parallelism (go build -p) on a shared machine.
set -euo pipefail
. "$(dirname "$0")/cache.sh"
if [ $# -ne 1 ] || [[ "$1" != *@* ]]; then
	echo "usage: $0 PKG@VERSION" >&2
	exit 3
fi
spec=$1
pkg=${spec%@*}
version=${spec#*@}
name=$(basename "$pkg")
case "$name" in v[0-9]*) name=$(basename "$(dirname "$pkg")") ;; esac

go_install() {
	build_flags
	# Outside any module, so the suite's go.mod and GOFLAGS such as -mod=vendor play no part.
	( cd "$1" && GOFLAGS= GOBIN="$2" go install "${flags[@]}" "$spec" )
}
cached_tool "$name" "$version" "$spec" go_install
