#!/usr/bin/env bash
# Proves the same zkey + witness with `cuzk prove` and with `snarkjs groth16 prove`, side by side,
# for multiplication chains that fill a 2^k domain (keys from cuzk's dev setup), and prints one
# CSV line per size: k,constraints,cuzk_ms,snarkjs_ms,ratio. Both provers use every core.
# Up to 2^17 the circuit comes from circom (tests/circom/mulchain.circom); from 2^18 on,
# scripts/gen_mulchain.py writes the same chain (circom2 did not finish compiling the 2^20
# chain in 20 minutes on two cores).
#   scripts/bench_prove.sh [k ...]          (default: 16)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target cuzk >/dev/null
. tests/interop/lib.sh
CUZK=$PWD/build/apps/cuzk
ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N); echo $(((t1 - t0) / 1000000)); }
echo "k,constraints,cuzk_ms,snarkjs_ms,ratio"
for k in "${@:-16}"; do
  n=$(((1 << k) - 3)) # nConstraints + nPublic = 2^k - 1: the domain is exactly 2^k
  name=bench_mulchain_$k
  if [ "$k" -le 17 ]; then
    fixture_compile "$name" mulchain.circom "component main {public [y]} = MulChain($n);"
    fixture_witness "$name" '{"x": "5", "y": "7"}'
  elif [ ! -f "$FIXTURES/$name/witness.wtns" ]; then
    python3 scripts/gen_mulchain.py "$n" "$FIXTURES/$name"
  fi
  fixture_keys_cuzk "$name" "$CUZK"
  d="$FIXTURES/$name"
  c=$(ms "$CUZK" prove --no-verify "$d/cuzk.zkey" "$d/witness.wtns" "$d/p.json" "$d/pub.json")
  "$CUZK" verify "$d/cuzk_vk.json" "$d/pub.json" "$d/p.json" >/dev/null
  s=$(ms "$SNARKJS" groth16 prove "$d/cuzk.zkey" "$d/witness.wtns" "$d/sp.json" "$d/spub.json")
  "$SNARKJS" groth16 verify "$d/cuzk_vk.json" "$d/spub.json" "$d/sp.json" >/dev/null
  echo "$k,$n,$c,$s,$(awk "BEGIN{printf \"%.1f\", $s/$c}")"
done
