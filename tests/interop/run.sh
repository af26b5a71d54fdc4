#!/usr/bin/env bash
# Interop tests between cuzk and snarkjs on circom circuits compiled for BLS12-381:
#   - snarkjs verifies cuzk's proofs, cuzk verifies snarkjs's proofs;
#   - both reject a tampered proof and a wrong public input;
#   - a zkey from `cuzk setup` proves with snarkjs, and its exported key verifies with both;
#   - cuzk export-vk writes the same verification key as snarkjs for the same zkey.
# usage: tests/interop/run.sh CUZK_BINARY
set -uo pipefail
CUZK=$(realpath "$1")
. "$(dirname "$0")/lib.sh"
pass=0
fail=0
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

ok() { # ok DESCRIPTION COMMAND...: the command must succeed
  local d=$1; shift
  if "$@" > "$WORK/out.log" 2>&1; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $d"; sed 's/^/    /' "$WORK/out.log" | tail -15; fi
}
rejects() { # rejects DESCRIPTION COMMAND...: the command must fail with exit code 1 (invalid)
  local d=$1; shift
  "$@" > "$WORK/out.log" 2>&1
  local rc=$?
  if [ $rc -eq 1 ]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $d (exit $rc, want 1)"; sed 's/^/    /' "$WORK/out.log" | tail -15; fi
}

# JSON edits with node: a tampered proof (pi_a and pi_c swapped: valid points, wrong proof)
# and a wrong public input (the first value plus one).
tamper_proof() { node -e 'const f=require("fs");const p=JSON.parse(f.readFileSync(process.argv[1]));
  [p.pi_a,p.pi_c]=[p.pi_c,p.pi_a];f.writeFileSync(process.argv[2],JSON.stringify(p,null,1));' "$1" "$2"; }
wrong_public() { node -e 'const f=require("fs");const p=JSON.parse(f.readFileSync(process.argv[1]));
  p[0]=(BigInt(p[0])+1n).toString();f.writeFileSync(process.argv[2],JSON.stringify(p,null,1));' "$1" "$2"; }

# cross NAME ZKEY VK: the full cross-check on one fixture with one key pair.
cross() {
  local name=$1 zkey=$2 vk=$3 dir="$FIXTURES/$1" w="$WORK/$1-$(basename "$2" .zkey)"
  mkdir -p "$w"
  echo "== $name with $(basename "$zkey")"
  ok "$name: cuzk prove" "$CUZK" prove "$zkey" "$dir/witness.wtns" "$w/proof.json" "$w/public.json"
  ok "$name: snarkjs verifies cuzk's proof" "$SNARKJS" groth16 verify "$vk" "$w/public.json" "$w/proof.json"
  ok "$name: cuzk verifies cuzk's proof" "$CUZK" verify "$vk" "$w/public.json" "$w/proof.json"
  ok "$name: snarkjs prove" "$SNARKJS" groth16 prove "$zkey" "$dir/witness.wtns" "$w/sproof.json" "$w/spublic.json"
  ok "$name: cuzk verifies snarkjs's proof" "$CUZK" verify "$vk" "$w/spublic.json" "$w/sproof.json"
  ok "$name: same public inputs" cmp "$w/public.json" "$w/spublic.json"
  tamper_proof "$w/proof.json" "$w/bad_proof.json"
  wrong_public "$w/public.json" "$w/bad_public.json"
  rejects "$name: cuzk rejects a tampered proof" "$CUZK" verify "$vk" "$w/public.json" "$w/bad_proof.json"
  rejects "$name: snarkjs rejects a tampered proof" "$SNARKJS" groth16 verify "$vk" "$w/public.json" "$w/bad_proof.json"
  rejects "$name: cuzk rejects a wrong public input" "$CUZK" verify "$vk" "$w/bad_public.json" "$w/proof.json"
  rejects "$name: snarkjs rejects a wrong public input" "$SNARKJS" groth16 verify "$vk" "$w/bad_public.json" "$w/proof.json"
}

mkdir -p "$FIXTURES"
# 1. multiplication chain, keys from a snarkjs ceremony and from cuzk setup
ok "mulchain200: compile" fixture_compile mulchain200 mulchain.circom \
  'component main {public [y]} = MulChain(200);'
ok "mulchain200: witness" fixture_witness mulchain200 '{"x": "3", "y": "11"}'
ok "mulchain200: snarkjs setup" fixture_keys_snarkjs mulchain200
ok "mulchain200: cuzk setup" fixture_keys_cuzk mulchain200 "$CUZK"
cross mulchain200 "$FIXTURES/mulchain200/snarkjs.zkey" "$FIXTURES/mulchain200/snarkjs_vk.json"
cross mulchain200 "$FIXTURES/mulchain200/cuzk.zkey" "$FIXTURES/mulchain200/cuzk_vk.json"
ok "mulchain200: cuzk export-vk of a snarkjs zkey" "$CUZK" export-vk "$FIXTURES/mulchain200/snarkjs.zkey" "$WORK/vk.json"
ok "mulchain200: cuzk export-vk == snarkjs export" cmp "$WORK/vk.json" "$FIXTURES/mulchain200/snarkjs_vk.json"
ok "mulchain200: snarkjs export of a cuzk zkey" "$SNARKJS" zkey export verificationkey "$FIXTURES/mulchain200/cuzk.zkey" "$WORK/svk.json"
ok "mulchain200: snarkjs export == cuzk export-vk" cmp "$WORK/svk.json" "$FIXTURES/mulchain200/cuzk_vk.json"

# 2. Poseidon (circomlib) Merkle paths: depth 1 fits the committed power-10 ceremony file (keys
#    from snarkjs), depth 4 takes keys from cuzk setup
ok "merkle1: compile" fixture_compile merkle1 merkle.circom \
  'component main {public [leaf]} = MerklePath(1);'
ok "merkle1: witness" fixture_witness merkle1 '{"leaf": "12345", "siblings": ["777"], "index": ["1"]}'
ok "merkle1: snarkjs setup" fixture_keys_snarkjs merkle1
cross merkle1 "$FIXTURES/merkle1/snarkjs.zkey" "$FIXTURES/merkle1/snarkjs_vk.json"
ok "merkle4: compile" fixture_compile merkle4 merkle.circom \
  'component main {public [leaf]} = MerklePath(4);'
ok "merkle4: witness" fixture_witness merkle4 \
  '{"leaf": "12345", "siblings": ["777", "4242", "31337", "8"], "index": ["1", "0", "0", "1"]}'
ok "merkle4: cuzk setup" fixture_keys_cuzk merkle4 "$CUZK"
cross merkle4 "$FIXTURES/merkle4/cuzk.zkey" "$FIXTURES/merkle4/cuzk_vk.json"

# 3. SHA-256 (circomlib) of 3 blocks' worth of message, keys from cuzk setup (too large for the
#    committed ceremony file)
ok "sha256: compile" fixture_compile sha256 sha256.circom 'component main = Sha256Of(1000);'
ok "sha256: witness" fixture_witness sha256 "$(node -e 'const b=[];for(let i=0;i<1000;i++)
  b.push(String((i*7+3)%5%2));console.log(JSON.stringify({in:b}))')"
ok "sha256: cuzk setup" fixture_keys_cuzk sha256 "$CUZK"
cross sha256 "$FIXTURES/sha256/cuzk.zkey" "$FIXTURES/sha256/cuzk_vk.json"

echo "interop: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
