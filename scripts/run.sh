#!/usr/bin/env bash
# The main job, at this stage of the project: install, build, and run the arithmetic benchmark
# (it checks its own results). Once the daemon exists this becomes daemon + a proof.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$PATH:/usr/local/cuda/bin"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target bench_arith
build/bench/bench_arith "$@"
