#!/usr/bin/env bash
# Runs on the GPU machine from a bundle made by scripts/gpu_bundle.sh: every GPU test, then every
# GPU benchmark, logging to OUT_DIR and writing the benchmarks' CSV lines to OUT_DIR/results.csv.
#   run.sh OUT_DIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run.sh OUT_DIR}
mkdir -p "$out"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
fail=0
skipped=0
for t in "$here"/bin/test_gpu*; do
  name=$(basename "$t")
  echo "== $name"
  "$t" > "$out/$name.log" 2>&1
  rc=$?
  tail -n 3 "$out/$name.log"
  case $rc in 0) ;; 77) echo "$name: SKIPPED (no GPU)"; skipped=1 ;; *) echo "$name: FAILED (exit $rc)"; fail=1 ;; esac
done
: > "$out/results.csv"
for b in "$here"/bin/bench_gpu*; do
  name=$(basename "$b")
  echo "== $name"
  # shellcheck disable=SC2086 # BENCH_ARGS may hold several options
  "$b" ${BENCH_ARGS:-} > "$out/$name.log" 2>&1
  rc=$?
  grep -E '^[a-z_0-9]+,' "$out/$name.log" >> "$out/results.csv"
  tail -n 12 "$out/$name.log"
  case $rc in 0) ;; 77) echo "$name: SKIPPED (no GPU)"; skipped=1 ;; *) echo "$name: FAILED (exit $rc)"; fail=1 ;; esac
done
# exit 0 only when everything ran and passed; 77 when the machine had no GPU
[ $fail -eq 0 ] || exit 1
[ $skipped -eq 0 ] || exit 77
