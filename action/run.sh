#!/usr/bin/env bash
# Runs the kubeforensics gates on a pull request's checkout (the working directory): for every
# entry path, `safe-retire --offline --dry-run` against the base revision and `flux-chain
# --repo` on the head. The plugins write the step summary and annotations themselves
# (GITHUB_ACTIONS=true), SARIF when asked, and the pull request comment with --github-comment.
#
#   KF_PLUGINS   safe-retire and/or flux-chain, space- or newline-separated
#   KF_PATHS     entry paths, space- or newline-separated; empty: each plugin detects it
#   KF_BASE      the base revision (the pull request's base commit)
#   KF_FAIL_ON   flux-chain --fail-on (default new: the findings the pull request adds over
#                KF_BASE; all for every finding; a severity may follow, as new,warning)
#   KF_SARIF     true: write SARIF files to $RUNNER_TEMP/kubeforensics/sarif
#   KF_COMMENT   true: keep one pull request comment per plugin and entry path
#   KF_EVENT_NAME  github.event_name; comments are posted on pull_request runs only
#   KF_CHART_CACHE the chart cache action/charts.sh filled (safe-retire --chart-cache); empty:
#                the default cache, which holds nothing on a fresh runner
#
# The step always succeeds: its outputs are exit-code (the worst of the gates': 3 bad input,
# 2 UNKNOWN, 1 a finding, 0 clean) and sarif-dir, and a later step fails the job with that
# code, after the SARIF upload.
set -uo pipefail

plugins=${KF_PLUGINS:-safe-retire flux-chain}
paths=${KF_PATHS:-}
[ -n "$paths" ] || paths=-
worst=0
note() { worst=$(( $1 > worst ? $1 : worst )); }

if [ -z "${KF_BASE:-}" ]; then
	echo "::error title=kubeforensics::no base revision: set the action's base-ref input (on pull_request runs it is the pull request's base commit)"
	note 3
elif ! git cat-file -e "${KF_BASE}^{commit}" 2>/dev/null; then
	echo "::error title=kubeforensics::the base commit ${KF_BASE} is not in the checkout: check out with fetch-depth: 0"
	note 3
fi

comment=()
if [ "${KF_COMMENT:-false}" = true ]; then
	case "${KF_EVENT_NAME:-}" in
	pull_request | pull_request_target) comment=(--github-comment) ;;
	*) echo "::notice title=kubeforensics::no pull request comment on a ${KF_EVENT_NAME:-unknown} run" ;;
	esac
fi

charts=()
if [ -n "${KF_CHART_CACHE:-}" ]; then
	charts=(--chart-cache "$KF_CHART_CACHE")
fi

sarif_dir=
if [ "${KF_SARIF:-false}" = true ]; then
	sarif_dir=${RUNNER_TEMP:?RUNNER_TEMP is not set}/kubeforensics/sarif
	mkdir -p "$sarif_dir"
fi

for path in $paths; do
	pathargs=()
	slug=detected
	if [ "$path" != - ]; then
		pathargs=(--path "$path")
		slug=$(printf '%s' "$path" | tr -c 'A-Za-z0-9._-' '_')
	fi
	for plugin in $plugins; do
		case "$plugin" in
		safe-retire) [ $worst -lt 3 ] || continue
			args=(kubectl-safe_retire --dry-run --offline --repo . --base "$KF_BASE" "${charts[@]}") ;;
		flux-chain) args=(kubectl-flux_chain --repo . --base "$KF_BASE" --fail-on "${KF_FAIL_ON:-new}") ;;
		*) echo "::error title=kubeforensics::unknown plugin '$plugin'"; note 3; continue ;;
		esac
		args+=("${pathargs[@]}" "${comment[@]}")
		echo "::group::$plugin ${path/#-/(detected entry path)}"
		if [ -n "$sarif_dir" ]; then
			"${args[@]}" -o sarif >"$sarif_dir/$plugin-$slug.sarif"
		else
			"${args[@]}"
		fi
		code=$?
		echo "::endgroup::"
		echo "$plugin ${path/#-/(detected entry path)}: exit $code"
		note "$code"
	done
done

{
	echo "exit-code=$worst"
	echo "sarif-dir=$sarif_dir"
} >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
