#!/usr/bin/env bash
# Runs on the GPU machine from a bundle made by scripts/gpu_bundle.sh: every GPU test, then every
# GPU benchmark, logging to OUT_DIR and writing the benchmarks' CSV lines to OUT_DIR/results.csv.
#   run.sh OUT_DIR
# Environment:
#   ONLY="test_gpu_msm bench_gpu_msm"   run just these programs (default: all)
#   BENCH_ARGS="..."                    options for every benchmark
#   BENCH_ARGS_bench_gpu_msm="..."      options for one benchmark (wins over BENCH_ARGS)
#   LIMIT_S=300                         seconds each program may run before it is stopped
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run.sh OUT_DIR}
mkdir -p "$out"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
fail=0
skipped=0
limit=${LIMIT_S:-300}
wanted() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }
verdict() { # name rc
  case $2 in 0) ;; 77) echo "$1: SKIPPED (no GPU)"; skipped=1 ;;
    124) echo "$1: STOPPED after ${limit} s"; fail=1 ;; *) echo "$1: FAILED (exit $2)"; fail=1 ;; esac
}
for t in "$here"/bin/test_gpu*; do
  name=$(basename "$t")
  wanted "$name" || continue
  echo "== $name"
  timeout "$limit" "$t" > "$out/$name.log" 2>&1
  rc=$?
  tail -n 3 "$out/$name.log"
  verdict "$name" $rc
done
: > "$out/results.csv"
for b in "$here"/bin/bench_gpu*; do
  name=$(basename "$b")
  wanted "$name" || continue
  echo "== $name"
  var="BENCH_ARGS_$name"
  args=${!var:-${BENCH_ARGS:-}}
  # shellcheck disable=SC2086 # the arguments may be several options
  timeout "$limit" "$b" $args > "$out/$name.log" 2>&1
  rc=$?
  grep -E '^[a-z_0-9]+,' "$out/$name.log" >> "$out/results.csv"
  tail -n 14 "$out/$name.log"
  verdict "$name" $rc
done
# exit 0 only when everything ran and passed; 77 when the machine had no GPU
[ $fail -eq 0 ] || exit 1
[ $skipped -eq 0 ] || exit 77
