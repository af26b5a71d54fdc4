# Shared helpers for the circom/snarkjs interop tests and the prover benchmark (sourced).
# Fixtures are cached under .cache/fixtures/<name>/ keyed by a hash of everything that makes
# them, so a second run reuses the compiled circuit, witness and keys.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SNARKJS="$ROOT/node_modules/.bin/snarkjs"
CIRCOM="$ROOT/node_modules/.bin/circom2"
FIXTURES="$ROOT/.cache/fixtures"
PTAU="$ROOT/tests/interop/pot10_bls12381.ptau"
export NODE_OPTIONS="${NODE_OPTIONS:---max-old-space-size=16000}"

# fixture_compile NAME TEMPLATE_FILE MAIN_LINE: a circuit built from tests/circom/TEMPLATE_FILE
# with the given `component main ...` line; outputs $FIXTURES/NAME/circuit.{r1cs,wasm}.
fixture_compile() {
  local name=$1 tmpl=$2 main=$3 dir="$FIXTURES/$1"
  local key
  key=$(printf '%s\n' "$main" | cat - "$ROOT/tests/circom/$tmpl" "$ROOT/package-lock.json" |
    sha256sum | cut -c1-16)
  if [ -f "$dir/.compiled" ] && [ "$(cat "$dir/.compiled")" = "$key" ]; then return 0; fi
  rm -rf "$dir" && mkdir -p "$dir"
  printf 'pragma circom 2.0.0;\ninclude "%s";\n%s\n' "$tmpl" "$main" > "$dir/circuit.circom"
  # circom2 runs under WASI and only sees the working directory: run it from the repo root
  (cd "$ROOT" && "$CIRCOM" "${dir#"$ROOT"/}/circuit.circom" --r1cs --wasm --prime bls12381 \
    -l tests/circom -l node_modules/circomlib/circuits -o "${dir#"$ROOT"/}") > "$dir/compile.log" 2>&1 ||
    { cat "$dir/compile.log"; return 1; }
  cp "$dir/circuit_js/circuit.wasm" "$dir/circuit.wasm" || return 1
  echo "$key" > "$dir/.compiled"
}

# fixture_witness NAME INPUT_JSON: computes $FIXTURES/NAME/witness.wtns with the circuit's wasm.
fixture_witness() {
  local dir="$FIXTURES/$1"
  printf '%s\n' "$2" > "$dir/input.json"
  if [ -f "$dir/witness.wtns" ] && cmp -s "$dir/input.json" "$dir/.witness_input"; then return 0; fi
  "$SNARKJS" wtns calculate "$dir/circuit.wasm" "$dir/input.json" "$dir/witness.wtns" \
    > "$dir/witness.log" 2>&1 || { cat "$dir/witness.log"; return 1; }
  cp "$dir/input.json" "$dir/.witness_input"
}

# fixture_keys_snarkjs NAME: a snarkjs setup (power-10 ceremony file) with one contribution.
fixture_keys_snarkjs() {
  local dir="$FIXTURES/$1"
  [ -f "$dir/snarkjs.zkey" ] && [ -f "$dir/snarkjs_vk.json" ] && return 0
  { "$SNARKJS" groth16 setup "$dir/circuit.r1cs" "$PTAU" "$dir/snarkjs_0.zkey" &&
    "$SNARKJS" zkey contribute "$dir/snarkjs_0.zkey" "$dir/snarkjs.zkey" --name=cuzk \
      -e="cuzk interop fixture" &&
    "$SNARKJS" zkey export verificationkey "$dir/snarkjs.zkey" "$dir/snarkjs_vk.json"; } \
    > "$dir/setup.log" 2>&1 || { cat "$dir/setup.log"; rm -f "$dir/snarkjs.zkey"; return 1; }
  rm -f "$dir/snarkjs_0.zkey"
}

# fixture_keys_cuzk NAME CUZK: cuzk's dev setup and its exported verification key.
fixture_keys_cuzk() {
  local dir="$FIXTURES/$1" cuzk=$2
  [ -f "$dir/cuzk.zkey" ] && [ -f "$dir/cuzk_vk.json" ] && [ "$dir/cuzk.zkey" -nt "$cuzk" ] && return 0
  { "$cuzk" setup "$dir/circuit.r1cs" "$dir/cuzk.zkey" &&
    "$cuzk" export-vk "$dir/cuzk.zkey" "$dir/cuzk_vk.json"; } > "$dir/cuzk_setup.log" 2>&1 ||
    { cat "$dir/cuzk_setup.log"; rm -f "$dir/cuzk.zkey"; return 1; }
}
