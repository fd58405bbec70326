#!/usr/bin/env bash
# The chart cache of the gates (docs/ci.md, "Charts"): `charts.sh key` lists the charts the
# pull request's base and head declare (`safe-retire charts pull --list`, offline) and writes
# the actions/cache key that digests them; `charts.sh pull` fetches them into the cache
# (`safe-retire charts pull --allow-network`: only the charts and versions the HelmReleases
# declare, only from the sources the repository declares, bounded; on a fork's pull request only
# from the sources the base declares). safe-retire --offline then reads the cache.
#
#   KF_BASE      the base revision (the pull request's base commit)
#   KF_FORK      true on a pull request from a fork: fetch only from sources the base declares
#   KF_PLUGINS   the gates; nothing is done unless safe-retire is one
#
# Neither step fails the job: a chart that cannot be had is named here, and the gate is
# UNKNOWN on any release that needs it.
set -uo pipefail

dir=${RUNNER_TEMP:?RUNNER_TEMP is not set}/kubeforensics/charts
wanted=false
for plugin in ${KF_PLUGINS:-safe-retire}; do
	[ "$plugin" != safe-retire ] || wanted=true
done
[ "$wanted" = true ] || exit 0
if [ -z "${KF_BASE:-}" ] || ! git cat-file -e "${KF_BASE}^{commit}" 2>/dev/null; then
	exit 0 # the gates step names the missing base
fi

case "${1:-}" in
key)
	if ! json=$(kubectl-safe_retire charts pull --list --repo . --revision "$KF_BASE" --revision HEAD -o json); then
		echo "::warning title=kubeforensics::the charts the repository declares could not be listed; the chart cache is not restored"
		exit 0
	fi
	key=$(printf '%s\n' "$json" | sed -n 's/^  "key": "sha256:\([0-9a-f]*\)",*$/\1/p')
	[ -n "$key" ] || exit 0
	{
		echo "dir=$dir"
		echo "key=kubeforensics-charts-${RUNNER_OS:-unknown}-$key"
		echo "restore-keys=kubeforensics-charts-${RUNNER_OS:-unknown}-"
	} >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
	;;
pull)
	trusted=()
	if [ "${KF_FORK:-false}" = true ]; then
		trusted=(--trusted-revision "$KF_BASE")
	fi
	echo "::group::charts pull"
	kubectl-safe_retire charts pull --allow-network --repo . --revision "$KF_BASE" --revision HEAD --chart-cache "$dir" "${trusted[@]}"
	code=$?
	echo "::endgroup::"
	if [ "$code" -ne 0 ]; then
		echo "::warning title=kubeforensics::charts pull: exit $code; a chart that could not be had is named above, and the gate is UNKNOWN on a release that needs it"
	fi
	echo "dir=$dir" >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
	;;
*)
	echo "usage: charts.sh key|pull" >&2
	exit 3
	;;
esac
