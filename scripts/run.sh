#!/usr/bin/env bash
# The main job: install, build, start cuzk-daemon on a unix socket (the CUDA backend when the
# machine has a GPU, the CPU backend otherwise), wait for its ready line, prove a circom circuit
# through cuzk-bench, print the result, verify the proof with cuzk and with snarkjs, and shut the
# daemon down with SIGTERM, checking that it exits 0 and removes its socket.
#   scripts/run.sh [--bench]      (--bench: also a 4-proof batch through the daemon)
# CUZK_BUILD_DIR names the build directory (default: build).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$PATH:/usr/local/cuda/bin"
build=${CUZK_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target cuzk cuzk-daemon cuzk-bench
. tests/interop/lib.sh
CUZK=$PWD/$build/apps/cuzk
DAEMON=$PWD/$build/apps/cuzk-daemon
BENCH=$PWD/$build/apps/cuzk-bench

# the circuit: a circom multiplication chain filling a 2^12 domain, keyed by the dev setup
name=run_mulchain_4093
fixture_compile "$name" mulchain.circom 'component main {public [y]} = MulChain(4093);'
fixture_witness "$name" '{"x": "5", "y": "7"}'
d="$FIXTURES/$name"
work=$(mktemp -d /tmp/cuzk-run.XXXXXX)
"$BENCH" gen --r1cs "$d/circuit.r1cs" --wtns "$d/witness.wtns" -o "$work/circuits" --name mulchain

cat > "$work/cuzk.toml" <<EOF
[daemon]
listen = "unix://$work/run/cuzk.sock"
[srs]
param_cache = "$work/cache"
[snarkjs]
dir = "$work/circuits"
EOF
"$DAEMON" --config "$work/cuzk.toml" > "$work/daemon.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
# wait for the ready line (the daemon writes it once its listener accepts calls)
until grep -q 'cuzk-daemon ready, serving on' "$work/daemon.log"; do
  if ! kill -0 "$pid" 2>/dev/null; then
    cat "$work/daemon.log"; echo "run: the daemon exited before it was ready" >&2; exit 1
  fi
  sleep 0.1
done
grep 'cuzk-daemon ready' "$work/daemon.log"
grep -E 'device|backend' "$work/daemon.log" | head -n 4 || true

addr="unix://$work/run/cuzk.sock"
"$BENCH" -a "$addr" single -t snarkjs --circuit mulchain --witness "$d/witness.wtns" \
  --proof-out "$work/proof.bin"
# the 192 proof bytes as snarkjs JSON, checked by cuzk and by snarkjs
"$CUZK" export-vk "$work/circuits/mulchain.zkey" "$work/vk.json"
"$CUZK" proof-json "$work/proof.bin" "$work/vk.json" "$d/witness.wtns" "$work/proof.json" \
  "$work/public.json"
"$CUZK" verify "$work/vk.json" "$work/public.json" "$work/proof.json"
"$SNARKJS" groth16 verify "$work/vk.json" "$work/public.json" "$work/proof.json"
if [ "${1:-}" = "--bench" ]; then
  "$BENCH" -a "$addr" batch -t snarkjs --circuit mulchain --witness "$d/witness.wtns" -c 4 -j 2
fi

kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
trap - EXIT
grep -E 'shutting down|stopped' "$work/daemon.log" || true
if [ "$rc" -ne 0 ] || [ -e "$work/run/cuzk.sock" ]; then
  echo "run: the daemon did not shut down cleanly (exit $rc)" >&2; exit 1
fi
echo "run: ok (daemon exited 0; logs in $work)"
