#!/usr/bin/env bash
# The test command: installs what is missing, checks that the includes of src/ point down the
# layers (scripts/check_layers.sh), builds (CUDA included when nvcc is found), checks that the
# libraries' global symbols start with cuzk_ (scripts/check_symbols.sh) and runs every test
# twice: a release build, then an AddressSanitizer + UndefinedBehaviorSanitizer build;
# then every fuzz harness over its seeds.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

jobs=$(nproc)
export PATH="$PATH:/usr/local/cuda/bin"

echo "== layers"
scripts/check_layers.sh

echo "== release build"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"
scripts/check_symbols.sh build
(cd build && ctest --output-on-failure -j"$jobs")

echo "== ASan + UBSan build"
# The CUDA code is compiled (and its GPU tests skip) in the release build above; the sanitizer
# build checks the host code and leaves the device code out, which halves CI's compile time.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g" \
  -DCUZK_SANITIZE=ON -DCUZK_INTEROP=OFF -DCUZK_WITH_CUDA=OFF >/dev/null
cmake --build build-asan -j"$jobs"
# protect_shadow_gap=0 lets the CUDA driver map memory where ASan reserves its gap
(cd build-asan && ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j"$jobs")
echo "== fuzz harnesses over their seeds (clang, libFuzzer + ASan + UBSan)"
# every parser's harness runs once over its seeds (docs/fuzzing.md), so none of them rots;
# scripts/fuzz.sh NAME SECONDS fuzzes for real
scripts/fuzz.sh all 0
echo "== all tests passed (release, ASan+UBSan, fuzz seeds)"
