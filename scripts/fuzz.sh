#!/usr/bin/env bash
# Fuzzes cuzk's parsers with libFuzzer, one harness after the other (docs/fuzzing.md).
#   usage: scripts/fuzz.sh [NAME|all] [SECONDS] [libFuzzer options...]
#     NAME     toml zkey wtns r1cs snarkjs_json vanilla pce g16key bellperson request
#              (tests/fuzz/fuzz_NAME.c);
#              all (the default) runs every harness in turn
#     SECONDS  per harness (default 60); 0 runs each harness once over its seeds (-runs=0) and
#              stops: the check that the harnesses and their seeds still work (the fuzz_*_seeds
#              CTests of a fuzz build run exactly that)
# Builds the harnesses with clang -fsanitize=fuzzer,address,undefined in $BUILD (default
# build-fuzz; CUZK_FUZZ_NO_BUILD=1 uses what is built there). Per harness, in $BUILD/fuzz/NAME:
# seeds/ is made afresh at every run (tests/fuzz/seeds/NAME, the repository's sample files, and
# what fuzz_seeds generates), corpus/ keeps what the fuzzer found across runs, and a crash, a
# sanitizer report or a broken property leaves its input there as crash-* (oom-*, timeout-*,
# leak-*). Reproduce one with: $BUILD/fuzz_NAME $BUILD/fuzz/NAME/crash-...
# Exits non-zero when any harness failed; the others still run.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
every="toml zkey wtns r1cs snarkjs_json vanilla post c1 snap pce g16key bellperson request"
what=${1:-all}
secs=${2:-60}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] && shift
build=${BUILD:-build-fuzz}
case "$what" in
all) names=$every ;;
*)
  [[ " $every " == *" $what "* ]] || { echo "fuzz: no harness '$what' (one of: $every, all)"; exit 2; }
  names=$what
  ;;
esac
[[ "$secs" =~ ^[0-9]+$ ]] || { echo "fuzz: SECONDS must be a number, not '$secs'"; exit 2; }

if [ -z "${CUZK_FUZZ_NO_BUILD:-}" ]; then
  command -v clang >/dev/null || { echo "fuzz: clang is needed (apt-get install clang)"; exit 2; }
  CC=clang cmake -S . -B "$build" -DCUZK_FUZZ=ON -DCUZK_WITH_CUDA=OFF -DCUZK_INTEROP=OFF \
    -DCMAKE_BUILD_TYPE=Release >/dev/null
  targets=(fuzz_seeds)
  for n in $names; do targets+=("fuzz_$n"); done
  cmake --build "$build" --target "${targets[@]}" -j"$(nproc)"
fi

# What each harness takes: the longest input, its dictionary, the repository's sample files,
# and how long one input may run (the first request of a Filecoin profile runs the circuit's
# COUNT pass, seconds under the sanitizers).
conf() {
  dict="" files=() timeout=30
  case "$1" in
  toml) max_len=8192 dict=toml.dict files=(conf/*.toml) ;;
  zkey) max_len=16384 dict=binfile.dict files=(tests/data/formats/*.zkey) ;;
  wtns) max_len=4096 dict=binfile.dict files=(tests/data/formats/*.wtns) ;;
  r1cs) max_len=8192 dict=binfile.dict files=(tests/data/formats/*.r1cs) ;;
  snarkjs_json)
    max_len=8192 dict=json.dict
    files=(tests/data/formats/{proof,public,verification_key}.json)
    ;;
  vanilla) max_len=32768 dict=vanilla.dict ;;
  post) max_len=65536 ;;
  c1) max_len=262144 dict=json.dict ;;
  snap) max_len=262144 ;;
  pce) max_len=8192 dict=pce.dict ;;
  g16key) max_len=65536 dict=g16key.dict ;;
  bellperson) max_len=16384 dict=bellperson.dict ;;
  request) max_len=32768 dict=request.dict timeout=180 ;;
  esac
}

status=0
for n in $names; do
  conf "$n"
  work="$build/fuzz/$n"
  rm -rf "$work/seeds"
  mkdir -p "$work/seeds" "$work/corpus"
  if [ -d "tests/fuzz/seeds/$n" ]; then
    find "tests/fuzz/seeds/$n" -maxdepth 1 -type f ! -name 'README*' -exec cp {} "$work/seeds/" \;
  fi
  for f in "${files[@]}"; do cp "$f" "$work/seeds/"; done
  "$build/fuzz_seeds" "$n" "$work/seeds"
  opts=(-timeout="$timeout" -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$work/")
  echo "== fuzz_$n: $(ls "$work/seeds" | wc -l) seeds, ${secs}s"
  if [ "$secs" -eq 0 ]; then # every seed whole, once
    run=("$build/fuzz_$n" "${opts[@]}" -runs=0 "$@" "$work/seeds")
  else
    opts+=(-max_len="$max_len" -max_total_time="$secs")
    [ -n "$dict" ] && opts+=(-dict="$root/tests/fuzz/$dict")
    run=("$build/fuzz_$n" "${opts[@]}" "$@" "$work/corpus" "$work/seeds")
  fi
  if ! "${run[@]}"; then
    echo "== fuzz_$n FAILED: see $work/ for the input"
    status=1
  fi
done
exit $status
