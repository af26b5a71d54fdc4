#!/bin/bash
# cuzk-bench check-params, the preflight for real Filecoin parameters (docs/filecoin.md), on
# parameter files `cuzk setup-params` writes in bellperson's format for the 2 KiB WindowPoSt
# circuit (wpost-s2-r2), with inputs made from the real 2 KiB sectors of tests/data/realdata:
#   exit 0 and MATCH: WindowPoSt entries (gen-post) proved with the .params, verified with the
#     .vk (every point checked, the command's default);
#   exit 1 and MISMATCH (header): parameters of another circuit, the WindowPoSt files given with
#     WinningPoSt entries (the two share Filecoin's file name pattern) and with a PoRep C1;
#   exit 3 and a sentence on stderr: a truncated .params, a garbage .vk, a missing file, an
#     input the daemon would refuse; exit 2: a usage error.
# (tests/test_fc_check.c checks the vk and proof verdicts and more bad files on the library.)
# usage: check_params.sh CUZK_BENCH_BINARY CUZK_BINARY
set -u
bench=$1
cuzk=$2
real=$(cd "$(dirname "$0")" && pwd)/data/realdata
tmp=$(mktemp -d /tmp/cuzk_check_params.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$cuzk" --seed 1 --backend cpu --quiet setup-params wpost-s2-r2 "$tmp/w.params" "$tmp/w.vk" \
  2> /dev/null || fail "setup-params wpost-s2-r2"
rnd=0102030405060708091011121314151617181920212223242526272829303132
"$bench" gen-post --registered-proof 10 --randomness "$rnd" -o "$tmp/wpost.json" \
  --replica "$real/lotus-mir-t01000-0.sealed" --p-aux "$real/lotus-mir-t01000-0.p_aux" \
  --sector-id 0 --replica "$real/lotus-mir-t01000-1.sealed" \
  --p-aux "$real/lotus-mir-t01000-1.p_aux" --sector-id 1 > /dev/null || fail "gen-post wpost"
"$bench" gen-post --registered-proof 0 --randomness "$rnd" -o "$tmp/winning.json" \
  --replica "$real/venus-t0106-1.sealed" --p-aux "$real/venus-t0106-1.p_aux" --sector-id 1 \
  > /dev/null || fail "gen-post winning"
"$bench" gen-c1 --registered-proof 5 --replica "$real/lotus-mir-t01000-1.sealed" \
  --miner-id 1000 --sector-id 1 \
  --ticket 79ac3dd7defaad6d40e033a1c89124df3cbefdf072868b1924e562f0d4204189 \
  --comm-d 40dacdaed73bc8f0f32b40e933787f44d86026ff8da3b3c05b9979ebaceced06 \
  --seed "$rnd" -o "$tmp/c1.json" > /dev/null || fail "gen-c1"

# check CODE PATTERN WHAT ARGS...: check-params exits CODE and its output matches PATTERN
check() {
  local code=$1 pattern=$2 what=$3 rc=0
  shift 3
  "$bench" check-params --threads 2 "$@" > "$tmp/out.txt" 2>&1 || rc=$?
  [ "$rc" -eq "$code" ] || fail "$what: exit $rc, not $code: $(cat "$tmp/out.txt")"
  grep -q -- "$pattern" "$tmp/out.txt" || fail "$what: no '$pattern' in: $(cat "$tmp/out.txt")"
  echo "== $what: exit $rc"
  cat "$tmp/out.txt"
}
wpost=(-t wpost --vanilla "$tmp/wpost.json" --registered-proof 10 --randomness "$rnd")
check 0 "^MATCH: this build's circuit wpost-s2-r2 matches $tmp/w.params and $tmp/w.vk" \
  "match" "${wpost[@]}" "$tmp/w.params" "$tmp/w.vk"
grep -q '^proof: ok: proved in' "$tmp/out.txt" || fail "match: no proof line"
check 1 "^MISMATCH (header): .*circuit winning-s66-r2.*ic holds 23 points, the system has 132" \
  "WinningPoSt entries, WindowPoSt files" -t winning --vanilla "$tmp/winning.json" \
  --registered-proof 0 --randomness "$rnd" "$tmp/w.params" "$tmp/w.vk"
check 1 "^MISMATCH (header): .*circuit porep-c2-l2-d6-r2.*parameters of another circuit" \
  "a PoRep C1, WindowPoSt files" --c1 "$tmp/c1.json" "$tmp/w.params" "$tmp/w.vk"

head -c -96 "$tmp/w.params" > "$tmp/cut.params"
check 3 "check-params: .*cut.params: truncated: b_g2 holds" "a truncated .params" \
  "${wpost[@]}" "$tmp/cut.params" "$tmp/w.vk"
head -c 3076 /dev/urandom > "$tmp/junk.vk"
check 3 "check-params: bellperson: .*junk.vk: " "a garbage .vk" \
  "${wpost[@]}" "$tmp/w.params" "$tmp/junk.vk"
check 3 "none.params: cannot open" "a missing .params" \
  "${wpost[@]}" "$tmp/none.params" "$tmp/w.vk"
check 3 "randomness: entry 0 (sector 0), inclusion proof 0 is of leaf" \
  "entries of other randomness" -t wpost --vanilla "$tmp/wpost.json" --registered-proof 10 \
  --randomness "${rnd%??}00" "$tmp/w.params" "$tmp/w.vk"
check 3 "check-params: " "a garbage C1" --c1 "$tmp/junk.vk" "$tmp/w.params" "$tmp/w.vk"
check 2 "usage: cuzk-bench check-params" "one file" "${wpost[@]}" "$tmp/w.params"

if [ "$fails" -gt 0 ]; then
  echo "check_params: $fails failure(s)"
  exit 1
fi
echo "check_params: all passed"
