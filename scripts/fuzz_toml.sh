#!/usr/bin/env bash
# Fuzzes the configuration parser (src/server/toml.c) with libFuzzer for a number of executions.
#   usage: scripts/fuzz_toml.sh [RUNS] [libFuzzer options...]     (RUNS default 1000000)
# Builds tests/fuzz/fuzz_toml.c with clang -fsanitize=fuzzer,address,undefined in $BUILD
# (default build-fuzz), seeds the corpus with the sample configurations of conf/, and runs it.
# A crash, a sanitizer report or a broken round-trip property stops the run with a reproducer
# file (crash-*) in the corpus directory's parent; the script then exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
runs=${1:-1000000}
[ $# -gt 0 ] && shift
build=${BUILD:-build-fuzz}
command -v clang >/dev/null || { echo "fuzz_toml: clang is needed (apt-get install clang)"; exit 2; }
CC=clang cmake -S . -B "$build" -DCUZK_FUZZ=ON -DCUZK_WITH_CUDA=OFF -DCUZK_INTEROP=OFF \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target fuzz_toml -j"$(nproc)"
corpus="$build/fuzz_toml_corpus"
mkdir -p "$corpus"
cp conf/*.toml "$corpus"/
cd "$build" # crash reproducers land here
exec ./fuzz_toml -runs="$runs" -max_len=4096 -timeout=10 -print_final_stats=1 \
  -dict="$root/tests/fuzz/toml.dict" "$@" fuzz_toml_corpus
