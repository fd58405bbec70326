#!/usr/bin/env bash
# Runs BenchmarkNamespaceSweep: `kubectl why-terminating namespace X` against the kubectl idiom
# and a bare metadata-only LIST floor, on a stuck namespace with 20,300 objects over ~120 types,
# on a control plane of its own (a few minutes; see plugins/whyterminating/bench_test.go).
#
#   hack/bench-why-terminating.sh             # print the table and the ratios
#   PROFILE=1 hack/bench-why-terminating.sh   # also write CPU and memory profiles to bin/bench/
#   KF_BENCH_ONLY=A hack/bench-why-terminating.sh  # only -A against its floor, with its requests
#   KF_BENCH_PROFILE=dir KF_BENCH_ONLY=A hack/bench-why-terminating.sh  # and CPU/allocation
#                                                  # profiles of ten more floor runs and ten more
#                                                  # -A runs, each alone, in dir: compare with
#                                                  # pprof -diff_base dir/cpu-floor.pprof
#
# Extra arguments go to `go test`. KF_SKIP_INTEGRATION keeps TestMain from starting the shared
# integration control plane, which the benchmark does not use.
set -euo pipefail
cd "$(dirname "$0")/.."

args=(-run '^$' -bench '^BenchmarkNamespaceSweep$' -benchtime 1x -count 1 -timeout 45m -v)
if [[ "${PROFILE:-}" == 1 ]]; then
	mkdir -p bin/bench
	args+=(-cpuprofile bin/bench/cpu.pprof -memprofile bin/bench/mem.pprof -o bin/bench/whyterminating.test)
fi
KF_SKIP_INTEGRATION=1 exec go test ./plugins/whyterminating/ "${args[@]}" "$@"
