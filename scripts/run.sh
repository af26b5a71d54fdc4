#!/usr/bin/env bash
# The main job, at this stage of the project: install, build, then prove a circom circuit with the
# cuzk CPU prover and check the proof with cuzk and with snarkjs. (The daemon takes over this job
# once it exists.) Pass --bench to run the arithmetic benchmark as well.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$PATH:/usr/local/cuda/bin"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target cuzk bench_arith
. tests/interop/lib.sh
CUZK=$PWD/build/apps/cuzk
name=run_mulchain_4093 # 4093 steps + 2 public signals fill a 2^12 domain
fixture_compile "$name" mulchain.circom 'component main {public [y]} = MulChain(4093);'
fixture_witness "$name" '{"x": "5", "y": "7"}'
fixture_keys_cuzk "$name" "$CUZK"
d="$FIXTURES/$name"
"$CUZK" info "$d/cuzk.zkey"
"$CUZK" prove "$d/cuzk.zkey" "$d/witness.wtns" "$d/proof.json" "$d/public.json"
"$CUZK" verify "$d/cuzk_vk.json" "$d/public.json" "$d/proof.json"
"$SNARKJS" groth16 verify "$d/cuzk_vk.json" "$d/public.json" "$d/proof.json"
if [ "${1:-}" = "--bench" ]; then build/bench/bench_arith; fi
