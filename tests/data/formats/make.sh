#!/usr/bin/env bash
# Regenerates the circom/snarkjs fixtures read by tests/test_formats.c: a tiny BLS12-381 circuit
# (circuit.circom, 4 constraints, 1 output, 1 public and 1 private input) taken through the whole
# snarkjs Groth16 flow. Every step is deterministic except the proof, whose blinding factors
# snarkjs draws at random: the ceremony uses beacons (fixed hash) in place of contributions with
# entropy, so a rerun reproduces the same .r1cs, .zkey, .wtns and verification key byte for byte.
# Needs the pinned npm peers (npm ci in the repository root).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cd "$root"

# circom2 runs under WASI and sees only the current directory and its parents, so the scratch
# folder lives under the repository root (ignored by git as /build*/).
work=$(mktemp -d "$root/build-fmtgen.XXXXXX")
trap 'rm -rf "$work"' EXIT
w=${work#"$root"/}
snarkjs=node_modules/.bin/snarkjs
beacon=0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20

node_modules/.bin/circom2 tests/data/formats/circuit.circom --r1cs --wasm --prime bls12381 \
    -l node_modules -o "$w"
$snarkjs powersoftau new bls12381 4 "$w/pot_0.ptau"
$snarkjs powersoftau beacon "$w/pot_0.ptau" "$w/pot_1.ptau" "$beacon" 10 -n="cuzk fixture ptau"
$snarkjs powersoftau prepare phase2 "$w/pot_1.ptau" "$w/pot_final.ptau"
$snarkjs groth16 setup "$w/circuit.r1cs" "$w/pot_final.ptau" "$w/circuit_0000.zkey"
$snarkjs zkey beacon "$w/circuit_0000.zkey" "$w/circuit.zkey" "$beacon" 10 -n="cuzk fixture zkey"
$snarkjs zkey export verificationkey "$w/circuit.zkey" "$w/verification_key.json"
$snarkjs wtns calculate "$w/circuit_js/circuit.wasm" tests/data/formats/input.json "$w/circuit.wtns"
$snarkjs groth16 prove "$w/circuit.zkey" "$w/circuit.wtns" "$w/proof.json" "$w/public.json"
$snarkjs groth16 verify "$w/verification_key.json" "$w/public.json" "$w/proof.json"

for f in circuit.r1cs circuit_0000.zkey circuit.zkey circuit.wtns verification_key.json \
    proof.json public.json; do
    cp "$w/$f" "$here/$f"
done
