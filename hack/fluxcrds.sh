#!/usr/bin/env bash
# Copies the Flux CustomResourceDefinitions that internal/testsupport/testenv embeds from the Go module
# cache (downloading the controller modules through the module proxy if needed) into
# internal/testsupport/testenv/crds/, each file headed by a comment naming the module@version it came from.
#
# Run it after changing a version below, and commit the regenerated YAML.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out="$repo/internal/testsupport/testenv/crds"
modules=(
  github.com/fluxcd/source-controller@v1.9.6
  github.com/fluxcd/kustomize-controller@v1.9.6
  github.com/fluxcd/helm-controller@v1.6.4
)

# Download outside the repository's module so its go.mod and go.sum are left untouched.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

mkdir -p "$out"
rm -f "$out"/*.yaml
for mod in "${modules[@]}"; do
  dir=$(cd "$scratch" && GO111MODULE=on GOFLAGS= go mod download -json "$mod" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  if [ -z "$dir" ] || [ ! -d "$dir/config/crd/bases" ]; then
    echo "fluxcrds: no config/crd/bases in $mod (dir: '$dir')" >&2
    exit 1
  fi
  for f in "$dir"/config/crd/bases/*.yaml; do
    name=$(basename "$f")
    { echo "# Copied from $mod config/crd/bases/$name by hack/fluxcrds.sh; do not edit."
      cat "$f"; } >"$out/$name"
    echo "fluxcrds: $mod -> internal/testsupport/testenv/crds/$name" >&2
  done
done
