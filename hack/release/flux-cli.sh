#!/usr/bin/env bash
# Builds the real Flux CLI (cmd/flux of github.com/fluxcd/flux2/v2) into the tool cache outside
# the repository and prints the path of its binary on stdout; progress goes to stderr.
#
#   hack/release/flux-cli.sh             (the version the suite's go.mod requires)
#   hack/release/flux-cli.sh v2.9.5
#
# `go install github.com/fluxcd/flux2/v2/cmd/flux@VERSION` cannot work: cmd/flux embeds
# manifests/*.yaml, which flux2's release generates and the module does not ship. So the module
# is copied out of the module cache, one placeholder manifest is written (the test never runs
# `flux install`), and cmd/flux is built in the copy. The cache is hack/release/cache.sh's,
# keyed by version and `go version`.
# KF_TOOL_BUILD_P caps the build's parallelism (go build -p).
set -euo pipefail
cd "$(dirname "$0")/../.."
. hack/release/cache.sh
mod=github.com/fluxcd/flux2/v2
version=${1:-$(go list -m -f '{{.Version}}' "$mod")}

build() {
	local work=$1 out=$2 src
	src=$(cd "$work" && GOFLAGS= GOWORK=off go mod download -json "$mod@$version" |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[ -d "$src" ] || { echo "go mod download $mod@$version gave no source directory" >&2; exit 1; }
	cp -r "$src" "$work/src"
	chmod -R u+w "$work/src"
	mkdir -p "$work/src/cmd/flux/manifests"
	printf '# placeholder: this flux binary is built for plugin tests, not for `flux install`\n' \
		>"$work/src/cmd/flux/manifests/placeholder.yaml"
	build_flags -ldflags "-s -w -X main.VERSION=${version#v}"
	( cd "$work/src" && GOFLAGS=-mod=mod GOWORK=off go build "${flags[@]}" -o "$out/flux" ./cmd/flux )
}
cached_tool flux "$version" "$mod/cmd/flux@$version" build
