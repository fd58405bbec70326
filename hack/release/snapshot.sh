#!/usr/bin/env bash
# Builds a snapshot release of every plugin (and the MCP server) for every platform, renders
# the krew manifests and the Flux CLI plugin catalog with its per-plugin checksums files for it
# and reports the archive sizes:
#
#   hack/release/snapshot.sh [DIST]        (default dist/, as `make release-snapshot`)
#
# goreleaser v2.15.1 is go-installed into the tool cache on first use (hack/release/tool.sh).
# KF_RELEASE_PARALLELISM (default 1) is goreleaser's --parallelism: one build at a time keeps a
# shared machine usable. KF_RELEASE_BASE_URL overrides where the krew manifests and the Flux
# catalog say the archives are, KF_KREW_BASE_URL where the krew manifests alone do; the Flux
# catalog takes https URLs only, as the Flux plugin catalog's schema does.
set -euo pipefail
cd "$(dirname "$0")/../.."
dist=${1:-dist}
gr=$(bash hack/release/tool.sh github.com/goreleaser/goreleaser/v2@v2.15.1)

config=.goreleaser.yaml
if [ "$dist" != dist ]; then
	# goreleaser takes its output directory only from the config file.
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	sed "s#^dist: dist\$#dist: $dist#" .goreleaser.yaml >"$tmp/goreleaser.yaml"
	grep -q "^dist: $dist\$" "$tmp/goreleaser.yaml" || { echo "cannot set dist in the config copy" >&2; exit 1; }
	config=$tmp/goreleaser.yaml
fi

"$gr" check --config "$config"
start=$(date +%s)
"$gr" release --config "$config" --snapshot --clean --skip=publish --parallelism "${KF_RELEASE_PARALLELISM:-1}"
echo "goreleaser built the snapshot in $(( $(date +%s) - start ))s" >&2

base_url=${KF_RELEASE_BASE_URL:-}
krew_url=${KF_KREW_BASE_URL:-$base_url}
go run ./hack/release/krewgen -dist "$dist" ${krew_url:+-base-url "$krew_url"} >/dev/null
echo "krew manifests: $dist/krew/" >&2
# The Flux catalog reuses the same archives (each holds the executable under its Flux name),
# and writes <bin>_<version>_checksums.txt beside them.
go run ./hack/release/fluxgen -dist "$dist" ${base_url:+-base-url "$base_url"} >/dev/null
echo "Flux plugin catalog: $dist/flux/ (FLUXCD_PLUGIN_CATALOG=<its URL>/)" >&2

echo "archive sizes (MiB):" >&2
for f in "$dist"/*.tar.gz "$dist"/*.zip; do
	awk -v n="$(basename "$f")" -v b="$(wc -c <"$f")" 'BEGIN { printf "  %-55s %6.1f\n", n, b / 1048576 }' >&2
done
