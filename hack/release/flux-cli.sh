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
# `flux install`), and cmd/flux is built in the copy. The cache follows hack/release/tool.sh:
# keyed by version and `go version`, serialised on a lock, moved into place atomically.
# KF_TOOL_BUILD_P caps the build's parallelism (go build -p).
set -euo pipefail
cd "$(dirname "$0")/../.."
mod=github.com/fluxcd/flux2/v2
version=${1:-$(go list -m -f '{{.Version}}' "$mod")}
cache_root=${KF_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kubeforensics}
key=$( { echo "$mod/cmd/flux@$version"; go version; } | sha256sum | cut -c1-12)
dest="$cache_root/tools/flux-$version-$key"
bin="$dest/flux"

if [ -x "$bin" ]; then echo "$bin"; exit 0; fi
mkdir -p "$cache_root/tools"
exec 9>"$dest.lock"
flock 9
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi

echo "building the flux CLI $version into $dest (first time only)" >&2
tmp=$(mktemp -d "$cache_root/tools/.build-XXXXXX")
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
start=$(date +%s)
src=$(cd "$tmp" && GOFLAGS= GOWORK=off go mod download -json "$mod@$version" |
	sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$src" ] || { echo "go mod download $mod@$version gave no source directory" >&2; exit 1; }
cp -r "$src" "$tmp/src"
chmod -R u+w "$tmp/src"
mkdir -p "$tmp/src/cmd/flux/manifests"
printf '# placeholder: this flux binary is built for plugin tests, not for `flux install`\n' \
	>"$tmp/src/cmd/flux/manifests/placeholder.yaml"
flags=(-trimpath -ldflags "-s -w -X main.VERSION=${version#v}")
[ -n "${KF_TOOL_BUILD_P:-}" ] && flags+=(-p "$KF_TOOL_BUILD_P")
( cd "$tmp/src" && GOFLAGS=-mod=mod GOWORK=off go build "${flags[@]}" -o "$tmp/out/flux" ./cmd/flux )
[ -x "$tmp/out/flux" ] || { echo "go build produced no flux binary" >&2; exit 1; }
rm -rf "$dest"
mv "$tmp/out" "$dest"
echo "built flux $version in $(( $(date +%s) - start ))s" >&2
echo "$bin"
