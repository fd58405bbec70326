#!/usr/bin/env bash
# Installs released kubeforensics plugins for the runner's platform, checking each archive
# against the release's checksums.txt before anything in it runs.
#
#   KF_VERSION      the release, v-prefixed (v1.2.3); empty: KF_ACTION_REF when it is a version
#   KF_ACTION_REF   the ref the action is used at (github.action_ref)
#   KF_PLUGINS      plugins to install, space- or newline-separated (safe-retire flux-chain)
#   KF_RELEASE_URL  where releases are: archives and checksums.txt are read from
#                   $KF_RELEASE_URL/$KF_VERSION/ (default GitHub's release downloads)
#   RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP   set by the runner
#
# The plugins go to $RUNNER_TEMP/kubeforensics/bin, which is added to $GITHUB_PATH, with the
# render worker kubeforensics-helmrender when their archives hold it.
set -euo pipefail

fail() { echo "::error title=kubeforensics install::$*" >&2; exit 3; }

version=${KF_VERSION:-}
if [ -z "$version" ]; then
	case "${KF_ACTION_REF:-}" in
	v[0-9]*) version=$KF_ACTION_REF ;;
	*) fail "set the action's version input (a release such as v1.2.3): the action is used at '${KF_ACTION_REF:-}', not a release tag" ;;
	esac
fi
[[ "$version" =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || fail "version '$version' is not a release (v1.2.3)"
base=${KF_RELEASE_URL:-https://github.com/kubeforensics/suite/releases/download}
base=${base%/}/$version

case "${RUNNER_OS:-$(uname -s)}" in
Linux) os=linux ;;
macOS | Darwin) os=darwin ;;
Windows) os=windows ;;
*) fail "no release for the runner's OS ${RUNNER_OS:-}" ;;
esac
case "${RUNNER_ARCH:-$(uname -m)}" in
X64 | x86_64) arch=amd64 ;;
ARM64 | arm64 | aarch64) arch=arm64 ;;
*) fail "no release for the runner's architecture ${RUNNER_ARCH:-}" ;;
esac
[ "$os/$arch" != windows/arm64 ] || fail "no release for windows/arm64"

if command -v sha256sum >/dev/null; then
	sha256() { sha256sum "$1" | cut -d' ' -f1; }
else
	sha256() { shasum -a 256 "$1" | cut -d' ' -f1; }
fi

root=${RUNNER_TEMP:?RUNNER_TEMP is not set}/kubeforensics
dl=$root/download
bin=$root/bin
mkdir -p "$dl" "$bin"
# Bounded in time and size, https or a local address only, no redirects to elsewhere.
get() {
	curl --fail --silent --show-error --location --proto '=https,http' --max-redirs 3 \
		--connect-timeout 20 --max-time 300 --max-filesize 209715200 --retry 2 -o "$2" "$1"
}
get "$base/checksums.txt" "$dl/checksums.txt" || fail "cannot download $base/checksums.txt"

for plugin in ${KF_PLUGINS:-safe-retire flux-chain}; do
	case "$plugin" in
	safe-retire | flux-chain | why-terminating) ;;
	*) fail "unknown plugin '$plugin' (safe-retire, flux-chain, why-terminating)" ;;
	esac
	# The release's archives are the Flux plugin catalog's: flux-<name>_<version>_<os>_<arch>
	# (zip on Windows, version without the v), holding the executable flux-<name>.
	flux=flux-${plugin#flux-}
	ext=tar.gz
	[ "$os" != windows ] || ext=zip
	archive=${flux}_${version#v}_${os}_${arch}.${ext}
	want=$(awk -v f="$archive" '$2 == f { print $1 }' "$dl/checksums.txt")
	[ -n "$want" ] || fail "$archive is not in $base/checksums.txt"
	get "$base/$archive" "$dl/$archive" || fail "cannot download $base/$archive"
	got=$(sha256 "$dl/$archive")
	[ "$got" = "$want" ] || fail "$archive: sha256 $got, but checksums.txt says $want: not installed"
	# The same executable answers as kubectl-<name> (the form comes from its name), which the
	# gates run; on Windows it is copied, as symbolic links need privileges there.
	exe=kubectl-${plugin//-/_}
	# A plugin that renders Helm charts ships with the render worker in its archive; it goes
	# beside the plugin, where the plugin looks for it (and uses it only if it is of its own
	# build: the same in every archive of one release).
	worker=kubeforensics-helmrender
	if [ "$os" = windows ]; then
		unzip -o -q "$dl/$archive" "$flux.exe" -d "$bin" || fail "$archive holds no $flux.exe"
		cp "$bin/$flux.exe" "$bin/$exe.exe"
		if unzip -Z1 "$dl/$archive" | grep -x "$worker.exe" >/dev/null; then
			unzip -o -q "$dl/$archive" "$worker.exe" -d "$bin" || fail "$archive: cannot extract $worker.exe"
			echo "installed $worker.exe beside it"
		fi
	else
		tar -xzf "$dl/$archive" -C "$bin" "$flux" || fail "$archive holds no $flux"
		chmod 0755 "$bin/$flux"
		ln -sf "$flux" "$bin/$exe"
		if tar -tzf "$dl/$archive" | grep -x "$worker" >/dev/null; then
			tar -xzf "$dl/$archive" -C "$bin" "$worker" || fail "$archive: cannot extract $worker"
			chmod 0755 "$bin/$worker"
			echo "installed $worker beside it"
		fi
	fi
	echo "installed $exe $version ($os/$arch, sha256 $got)"
done
rm -rf "$dl"
echo "$bin" >>"${GITHUB_PATH:?GITHUB_PATH is not set}"
