#!/usr/bin/env bash
# The test command: installs what is missing, checks that the includes of src/ point down the
# layers (scripts/check_layers.sh), builds (CUDA included when nvcc is found), checks that the
# libraries' global symbols start with cuzk_ (scripts/check_symbols.sh) and runs every test
# twice: a release build, then an AddressSanitizer + UndefinedBehaviorSanitizer build; then
# the engine's and the server's tests in a ThreadSanitizer build; then every fuzz harness over
# its seeds.
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
echo "== TSan build (the engine's and the server's threads)"
# The tests that run the engine's threads (its pipeline, budget, faults, seams, a stress of
# concurrent submissions), the thread pool and slots, the server's C tests and the daemon
# driven by cuzk-bench (the gRPC server's threads); no other target is built. Left out:
# test_fc_kind (its Filecoin proofs take minutes under TSan and run test_engine's engine
# code) and test_client (its 5 s deadlines are missed under TSan on a loaded 2-core machine;
# what it runs besides gRPC core is single-threaded). A report fails its test (TSan's exit
# code); tests/tsan.supp drops reports inside the uninstrumented third-party libraries (gRPC
# core and what it uses), nothing of src/.
tsan_tests=(test_engine test_engine_budget test_engine_faults test_engine_seams
  test_engine_stress test_pool test_slots test_config test_toml test_wire)
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g" \
  -DCUZK_TSAN=ON -DCUZK_INTEROP=OFF -DCUZK_WITH_CUDA=OFF >/dev/null
cmake --build build-tsan -j"$jobs" --target "${tsan_tests[@]}" cuzk-daemon cuzk-bench
supp="$PWD/tests/tsan.supp" # absolute: each test runs in its own directory
(cd build-tsan && TSAN_OPTIONS="second_deadlock_stack=1:suppressions=$supp" \
  ctest --output-on-failure -j"$jobs" -R "^($(IFS='|'; echo "${tsan_tests[*]}")|daemon_bench)\$")
echo "== fuzz harnesses over their seeds (clang, libFuzzer + ASan + UBSan)"
# every parser's harness runs once over its seeds (docs/fuzzing.md), so none of them rots;
# scripts/fuzz.sh NAME SECONDS fuzzes for real
scripts/fuzz.sh all 0
echo "== all tests passed (release, ASan+UBSan, TSan, fuzz seeds)"
