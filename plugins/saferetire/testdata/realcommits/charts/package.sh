#!/bin/sh
# Packages the charts of this directory from their public sources as `helm package` would (the
# patterns of the chart's .helmignore that match anything removed, a symbolic link replaced by
# its target, the library dependency packaged into charts/), reproducibly (sorted entries, fixed
# times and owners, gzip -n). Run from this directory with the sources' git directories:
#
#   sh package.sh HELM_CHARTS_GIT HEADLAMP_GIT COREDNS_GIT
#
# HELM_CHARTS_GIT: https://github.com/bjw-s-labs/helm-charts (Apache-2.0), tags
# app-template-<v> and common-<v>; HEADLAMP_GIT: https://github.com/kubernetes-sigs/headlamp
# (Apache-2.0), tag headlamp-helm-0.30.1; COREDNS_GIT: https://github.com/coredns/helm
# (Apache-2.0), tags coredns-1.39.2 and coredns-1.40.0.
set -eu
helm_charts=$1
headlamp=$2
coredns=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# tgz DIR OUT: DIR's files as <basename DIR>/… in the archive OUT.
tgz() {
	(cd "$(dirname "$1")" && tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
		-cf - "$(basename "$1")") | gzip -n -9 >"$2"
}

# export_chart GIT REV PATH DEST: the chart at PATH of REV in DEST. The only symbolic link
# these charts hold is LICENSE (-> the repository's LICENSE), which is read from REV.
export_chart() {
	rm -rf "$4" && mkdir -p "$4"
	git --git-dir="$1" archive "$2" "$3" | tar -x -C "$4" --strip-components="$(echo "$3" | awk -F/ '{print NF}')"
	if [ -L "$4/LICENSE" ]; then
		rm "$4/LICENSE"
		git --git-dir="$1" show "$2:LICENSE" >"$4/LICENSE"
	fi
	if [ -n "$(find "$4" -type l)" ]; then
		echo "unexpected symbolic link in $3 at $2" >&2
		exit 1
	fi
}

# app_template VERSION: app-template-VERSION.tgz, common-VERSION packaged into its charts/.
# Their .helmignore leaves out *.gotmpl, schemas/, test-chart/ and unittests/.
app_template() {
	for c in library/common other/app-template; do
		d=$work/$(basename "$c")
		export_chart "$helm_charts" "$(basename "$c")-$1" "charts/$c" "$d"
		rm -rf "$d/schemas" "$d/test-chart" "$d/unittests"
		find "$d" -name '*.gotmpl' -delete
	done
	mkdir -p "$work/app-template/charts"
	tgz "$work/common" "$work/app-template/charts/common-$1.tgz"
	tgz "$work/app-template" "app-template-$1.tgz"
}

for v in 3.6.1 3.7.1 3.7.2 3.7.3; do
	app_template "$v"
done

# headlamp's .helmignore matches none of its files.
export_chart "$headlamp" headlamp-helm-0.30.1 charts/headlamp "$work/headlamp"
tgz "$work/headlamp" headlamp-0.30.1.tgz

# coredns's .helmignore matches none of its files either.
for v in 1.39.2 1.40.0; do
	export_chart "$coredns" "coredns-$v" charts/coredns "$work/coredns"
	tgz "$work/coredns" "coredns-$v.tgz"
done
