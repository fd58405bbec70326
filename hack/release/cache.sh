# Sourced by hack/release/tool.sh and hack/release/flux-cli.sh: the tool cache they share.
#
#   cached_tool NAME VERSION KEY_TEXT BUILD_FUNCTION
#
# prints the path of NAME's binary in $cache_root/tools/NAME-VERSION-<hash of KEY_TEXT and
# `go version`>, building it first when it is not there: BUILD_FUNCTION WORK OUT must leave the
# binary at OUT/NAME (WORK is scratch space). Concurrent callers serialise on a lock and the
# directory is moved into place atomically, so a half-built tool is never visible. Progress goes
# to stderr.
cache_root=${KF_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kubeforensics}

cached_tool() {
	local name=$1 version=$2 key_text=$3 build=$4
	local key dest bin tmp start
	key=$( { echo "$key_text"; go version; } | sha256sum | cut -c1-12)
	dest="$cache_root/tools/$name-$version-$key"
	bin="$dest/$name"
	if [ -x "$bin" ]; then echo "$bin"; return 0; fi
	mkdir -p "$cache_root/tools"
	exec 9>"$dest.lock"
	flock 9
	if [ -x "$bin" ]; then echo "$bin"; return 0; fi

	echo "building $key_text into $dest (first time only)" >&2
	tmp=$(mktemp -d "$cache_root/tools/.build-XXXXXX")
	# A copied module is read-only: make it writable so it can be removed.
	trap "chmod -R u+w '$tmp' 2>/dev/null; rm -rf '$tmp'" EXIT
	start=$(date +%s)
	mkdir -p "$tmp/work" "$tmp/out"
	"$build" "$tmp/work" "$tmp/out"
	[ -x "$tmp/out/$name" ] || { echo "building $key_text produced no $name" >&2; exit 1; }
	rm -rf "$dest"
	mv "$tmp/out" "$dest"
	echo "built $name $version in $(( $(date +%s) - start ))s" >&2
	echo "$bin"
}

# build_flags are the go build flags every cached tool gets; KF_TOOL_BUILD_P caps the build's
# parallelism (go build -p) on a shared machine.
build_flags() {
	flags=(-trimpath "$@")
	if [ -n "${KF_TOOL_BUILD_P:-}" ]; then flags+=(-p "$KF_TOOL_BUILD_P"); fi
}
