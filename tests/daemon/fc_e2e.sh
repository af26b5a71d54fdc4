#!/usr/bin/env bash
# Filecoin proofs end to end through the real daemon on the CPU: gen-vanilla -> cuzk-daemon ->
# a proof checked on its own by verify-fc, for PoRep porep-c1-l2-d3-r1 (2 partitions),
# WinningPoSt at its real size (winning-s66), SnapDeals snap-c1-a2-p1-d3-r1 (2 partitions) and
# WindowPoSt wpost-s2-k2-r2 (2 partitions); then a corrupted WindowPoSt file (one byte of a
# Merkle path flipped: it still parses, its data is inconsistent) submitted at the same time as
# a good one: the corrupted job fails with the validator's sentence, the good one completes and
# verifies. The daemon runs on a unix socket with a fresh param_cache, so every profile's key is
# set up on its first job (the srs= figure of its timings line); each step prints its wall time.
# Then WindowPoSt and WinningPoSt as Curio sends them (bincode entries from `cuzk-bench
# gen-post` over the real 2 KiB sectors, registered_proof + sector_size + randomness), and the
# refusals of mismatched fields; then a PoRep C1 output of a real 2 KiB sector (`cuzk-bench
# gen-c1`) in Curio's wrapper through `single --c1`, after its refusals, and a non-interactive
# PoRep C1 (registered proof 15, 13 partitions) of a zero sector `gen-c1 --seal-cc` seals: one
# partition proved and self-checked, then the job cancelled.
#   fc_e2e.sh CUZK_DAEMON CUZK_BENCH
set -euo pipefail
daemon=$1
bench=$2
work=$(mktemp -d /tmp/cuzk-fc-e2e.XXXXXX)
pid=
fail() {
  echo "fc_e2e: FAIL: $*" >&2
  tail -n 30 "$work/daemon.log" >&2 || true
  echo "fc_e2e: outputs kept in $work (keys removed)" >&2
  exit 1
}
cleanup() {
  if [ -n "$pid" ]; then kill -9 "$pid" 2>/dev/null || true; fi
  rm -rf "$work/cache" # the keys: hundreds of MB
}
trap cleanup EXIT

now_ms() { date +%s%3N; }
t_start=$(now_ms)
t_step=$t_start
summary=
# took WHAT: the wall time since the previous step, printed now and in the summary
took() {
  local t ms line
  t=$(now_ms)
  ms=$((t - t_step))
  t_step=$t
  line=$(printf '%-44s %7d.%d s' "$1" $((ms / 1000)) $((ms % 1000 / 100)))
  echo "fc_e2e: $line"
  summary+="  $line"$'\n'
}

# ---- vanilla files ------------------------------------------------------------------------
# gen NAME PROFILE SEED [gen-vanilla options]
gen() {
  local name=$1 profile=$2 seed=$3
  shift 3
  "$bench" gen-vanilla "$profile" --seed "$seed" "$@" -o "$work/$name.van" \
    > "$work/$name.gen.txt" || fail "gen-vanilla $profile"
  cat "$work/$name.gen.txt"
}
gen wpost wpost-s2-k2-r2 1 -p 2
gen snap snap-c1-a2-p1-d3-r1 2 -p 2
gen winning winning-s66 3
gen porep porep-c1-l2-d3-r1 4 -p 2
gen wpost-good wpost-s2-k2-r2 5 -p 2
gen wpost-bad wpost-s2-k2-r2 6 -p 2
# The corruption: the lowest byte of the first tree-R path sibling of partition 1 (sector 0,
# challenge 0). Layout (docs/filecoin.md): the 88-byte header, partition 0 (u64 length, then
# its bytes), partition 1's length, then sector 0: comm_r, comm_c, comm_r_last, then challenge
# 0: leaf index (u64), leaf, path. The sibling stays a canonical field element (below r), so
# the file parses; the path no longer reaches comm_r_last.
len0=$(od -An -tu8 -j88 -N8 "$work/wpost-bad.van" | tr -d ' ')
off=$((88 + 8 + len0 + 8 + 3 * 32 + 8 + 32))
byte=$(od -An -tu1 -j"$off" -N1 "$work/wpost-bad.van" | tr -d ' ')
printf '%b' "\\0$(printf '%03o' $((byte ^ 1)))" |
  dd of="$work/wpost-bad.van" bs=1 seek="$off" conv=notrunc status=none
cmp -s "$work/wpost-bad.van" "$work/wpost-good.van" && fail "the corruption did nothing"
took "gen-vanilla (6 files)"

# ---- the daemon ---------------------------------------------------------------------------
cat > "$work/cuzk.toml" <<CONF
[daemon]
listen = "unix://$work/run/cuzk.sock"
cancel_on_disconnect = true # the NI-PoRep step drops its call
[srs]
param_cache = "$work/cache"
setup_allow = "*" # the scaled-down test profiles too
CONF
"$daemon" -c "$work/cuzk.toml" > "$work/daemon.log" 2>&1 &
pid=$!
for _ in $(seq 600); do
  grep -q 'cuzk-daemon ready, serving on' "$work/daemon.log" && break
  kill -0 "$pid" 2>/dev/null || fail "the daemon exited before it was ready"
  sleep 0.1
done
grep -q 'cuzk-daemon ready, serving on unix://' "$work/daemon.log" || fail "no ready line"
a="unix://$work/run/cuzk.sock"
took "daemon start"

# ---- proofs -------------------------------------------------------------------------------
# the exact timings line of single (docs/bench.md)
timings='^timings:   total=[0-9]+ ms \(queue=[0-9]+ ms, srs=[0-9]+ ms, synth=[0-9]+ ms, '
timings+='gpu=[0-9]+ ms\)$'
# verify NAME PARTS: verify-fc of NAME.proof against NAME.van and the daemon's keys
verify() {
  local name=$1 parts=$2 i
  "$bench" verify-fc --vanilla "$work/$name.van" --proof "$work/$name.proof" \
    --cache-dir "$work/cache" > "$work/$name.verify.txt" || fail "verify-fc $name: exit $?"
  for ((i = 0; i < parts; i++)); do
    grep -qx "partition $i: valid" "$work/$name.verify.txt" || fail "verify-fc $name: partition $i"
  done
  [ "$(grep -c '^partition ' "$work/$name.verify.txt")" -eq "$parts" ] ||
    fail "verify-fc $name: not one line per partition"
}
# prove NAME KIND PARTS: one Prove of NAME.van through the daemon, its output checked, the
# proof verified independently; the first job of a profile includes its key setup (srs=)
prove() {
  local name=$1 kind=$2 parts=$3
  "$bench" -a "$a" --log-level warn --timeout 1800 single -t "$kind" --vanilla "$work/$name.van" \
    --proof-out "$work/$name.proof" > "$work/$name.single.txt" || fail "single $name: exit $?"
  grep -q '^status:    COMPLETED$' "$work/$name.single.txt" || fail "single $name: status"
  grep -Eq "$timings" "$work/$name.single.txt" || fail "single $name: timings line"
  [ "$(stat -c %s "$work/$name.proof")" -eq $((192 * parts)) ] ||
    fail "single $name: $parts partitions give $((192 * parts)) proof bytes"
  local line srs
  line=$(grep '^timings:' "$work/$name.single.txt")
  srs=$(echo "$line" | sed -E 's/.*srs=([0-9]+) ms.*/\1/')
  echo "fc_e2e:   $name $line"
  took "$name: prove (key setup $((srs / 1000)).$((srs % 1000 / 100)) s)"
  verify "$name" "$parts"
  took "$name: verify-fc"
}
prove wpost wpost 2

# the corrupted job and a good one at the same time: the first fails alone
"$bench" -a "$a" --log-level warn --timeout 1800 single -t wpost --vanilla "$work/wpost-bad.van" \
  > "$work/wpost-bad.single.txt" 2>&1 &
pid_bad=$!
"$bench" -a "$a" --log-level warn --timeout 1800 single -t wpost --vanilla "$work/wpost-good.van" \
  --proof-out "$work/wpost-good.proof" > "$work/wpost-good.single.txt" 2>&1 &
pid_good=$!
rc_bad=0
wait "$pid_bad" || rc_bad=$?
rc_good=0
wait "$pid_good" || rc_good=$?
[ "$rc_bad" -eq 1 ] || fail "the corrupted job: single exit $rc_bad, not 1 (a failed proof)"
grep -q '^status:    FAILED$' "$work/wpost-bad.single.txt" || fail "the corrupted job: status"
err=$(grep '^error:' "$work/wpost-bad.single.txt") || fail "the corrupted job: no error line"
echo "fc_e2e:   corrupted job: $err"
case "$err" in
  *"partition 1"*"vanilla: partition 1, sector 0, challenge 0"*"does not reach comm_r_last"*) ;;
  *) fail "the corrupted job's error does not name the broken path" ;;
esac
[ "$rc_good" -eq 0 ] || fail "the good job beside the corrupted one: single exit $rc_good"
grep -q '^status:    COMPLETED$' "$work/wpost-good.single.txt" || fail "the good job: status"
[ "$(stat -c %s "$work/wpost-good.proof")" -eq 384 ] || fail "the good job: proof length"
verify wpost-good 2
took "corrupted + good wpost jobs together"

# verify-fc refuses: another file's public inputs (exit 1), a proof of the wrong length (3)
rc=0
"$bench" verify-fc --vanilla "$work/wpost-good.van" --proof "$work/wpost.proof" \
  --cache-dir "$work/cache" > "$work/mismatch.txt" || rc=$?
[ "$rc" -eq 1 ] || fail "verify-fc: a proof of other public inputs gave exit $rc, not 1"
grep -qx 'partition 0: invalid' "$work/mismatch.txt" || fail "verify-fc: no 'invalid' line"
head -c 383 "$work/wpost.proof" > "$work/short.proof"
rc=0
"$bench" verify-fc --vanilla "$work/wpost.van" --proof "$work/short.proof" \
  --cache-dir "$work/cache" > /dev/null 2> "$work/short.txt" || rc=$?
[ "$rc" -eq 3 ] || fail "verify-fc: a short proof file gave exit $rc, not 3"
grep -q '383 bytes' "$work/short.txt" || fail "verify-fc: a short proof file's message"

prove snap snap 2
prove winning winning 1
prove porep porep 2

# ---- PoSt as Curio sends it: bincode entries made from the real 2 KiB sectors ---------------
# gen-post builds each sector's tree R from its replica (its root checked against the sealer's
# p_aux) and the inclusion proofs of the leaves the randomness challenges; the request carries
# registered_proof, sector_size and randomness, which select wpost-s2-r2 / winning-s66-r2 and
# check every challenge. The daemon verifies the proof before it answers.
real=$(cd "$(dirname "$0")/../data/realdata" && pwd)
rnd=0102030405060708091011121314151617181920212223242526272829303132
"$bench" gen-post --registered-proof 10 --randomness "$rnd" -o "$work/curio-wpost.json" \
  --replica "$real/lotus-mir-t01000-0.sealed" --p-aux "$real/lotus-mir-t01000-0.p_aux" \
  --sector-id 0 --replica "$real/lotus-mir-t01000-1.sealed" \
  --p-aux "$real/lotus-mir-t01000-1.p_aux" --sector-id 1 > "$work/gen-post.txt" ||
  fail "gen-post wpost"
[ "$(grep -c '^sector [01] comm_r [0-9a-f]\{64\} bytes 5680$' "$work/gen-post.txt")" -eq 2 ] ||
  fail "gen-post: one line per sector"
"$bench" gen-post --registered-proof 0 --randomness "$rnd" -o "$work/curio-winning.json" \
  --replica "$real/venus-t0106-1.sealed" --p-aux "$real/venus-t0106-1.p_aux" --sector-id 1 \
  > /dev/null || fail "gen-post winning"
took "gen-post (real 2 KiB sectors)"
# curio NAME KIND REGISTERED: a Prove of NAME.json as Curio shapes it
curio() {
  local name=$1 kind=$2 reg=$3
  "$bench" -a "$a" --log-level warn --timeout 1800 single -t "$kind" \
    --vanilla "$work/curio-$name.json" --registered-proof "$reg" --sector-size 2048 \
    --randomness "$rnd" --proof-out "$work/curio-$name.proof" > "$work/curio-$name.txt" ||
    fail "curio $name: exit $?"
  grep -q '^status:    COMPLETED$' "$work/curio-$name.txt" || fail "curio $name: status"
  [ "$(stat -c %s "$work/curio-$name.proof")" -eq 192 ] || fail "curio $name: proof length"
  took "curio-shaped $name (registered_proof $reg)"
}
curio wpost wpost 10
curio winning winning 0
# refuse STATUS REGISTERED SECTOR_SIZE RANDOMNESS WANT: the request is refused with a sentence
refuse() {
  local rc=0
  "$bench" -a "$a" --log-level warn single -t wpost --vanilla "$work/curio-wpost.json" \
    --registered-proof "$2" --sector-size "$3" --randomness "$4" > "$work/refused.txt" 2>&1 || rc=$?
  [ "$rc" -eq 3 ] || fail "refuse $2/$3: single exit $rc, not 3"
  grep -q "$1.*$5" "$work/refused.txt" ||
    fail "refuse $2/$3: no $1 naming '$5': $(cat "$work/refused.txt")"
}
refuse INVALID_ARGUMENT 10 2048 "${rnd%??}00" \
  "randomness: entry 0 (sector 0), inclusion proof 0 is of leaf"
refuse INVALID_ARGUMENT 10 34359738368 "$rnd" \
  "sector_size 34359738368 does not match registered_proof 10"
refuse INVALID_ARGUMENT 13 34359738368 "$rnd" \
  "inclusion proof 0: a path of 2 levels, the sector's tree has 10"
refuse UNIMPLEMENTED 14 68719476736 "$rnd" "64 GiB sectors (tree 8-8-2) are not served yet"
refuse INVALID_ARGUMENT 3 2048 "$rnd" "registered_proof 3 is not a WindowPoSt proof"
took "curio-shaped refusals"

# ---- PoRep C2 as Curio sends it: a C1 output of a real 2 KiB sector -------------------------
# gen-c1 makes the sector's commit-phase-1 output (the real replica id, trees, challenges of
# the seed and parents of the graph) in the {SectorNum, Phase1Out, SectorSize} wrapper; the
# daemon checks the replica id, the challenges and the parents against miner_id,
# sector_number and registered_proof, proves porep-c2-l2-d6-r2 (the real 2 KiB circuit, 2.7 M
# constraints: its key is set up here) and verifies the proof before it answers.
ticket=79ac3dd7defaad6d40e033a1c89124df3cbefdf072868b1924e562f0d4204189
"$bench" gen-c1 --registered-proof 5 --replica "$real/lotus-mir-t01000-1.sealed" \
  --miner-id 1000 --sector-id 1 --ticket "$ticket" \
  --comm-d 40dacdaed73bc8f0f32b40e933787f44d86026ff8da3b3c05b9979ebaceced06 \
  --seed "$rnd" -o "$work/c1.json" > "$work/gen-c1.txt" || fail "gen-c1"
grep -q '^c1 StackedDrg2KiBV1_1 partitions 1 bytes [0-9]* replica_id 5369798cb376b2e2cafab4d595f30bf5c20e8bff4070fcdc328cddb8eddd451b$' \
  "$work/gen-c1.txt" || fail "gen-c1: the sector's real replica id ($(cat "$work/gen-c1.txt"))"
took "gen-c1 (a real 2 KiB sector)"
# c1refuse REGISTERED SECTOR_SIZE MINER SECTOR WANT
c1refuse() {
  local rc=0
  "$bench" -a "$a" --log-level warn single -t porep --c1 "$work/c1.json" \
    --registered-proof "$1" --sector-size "$2" --miner-id "$3" --sector-num "$4" \
    > "$work/refused.txt" 2>&1 || rc=$?
  [ "$rc" -eq 3 ] || fail "c1refuse $1/$3/$4: single exit $rc, not 3"
  grep -q "INVALID_ARGUMENT.*$5" "$work/refused.txt" ||
    fail "c1refuse: no INVALID_ARGUMENT naming '$5': $(cat "$work/refused.txt")"
}
c1refuse 5 2048 1001 1 "replica_id: the C1's 5369798cb376b2e2... is not"
c1refuse 5 2048 1000 2 "sector_number: the request's 2, the C1's SectorNum 1"
c1refuse 8 0 1000 1 "registered_proof: the request's 8, the C1's 5"
c1refuse 5 34359738368 1000 1 "sector_size: the request's 34359738368, the C1's 2048"
took "C1 refusals (at submission)"
"$bench" -a "$a" --log-level warn --timeout 3600 single -t porep --c1 "$work/c1.json" \
  --registered-proof 5 --miner-id 1000 --sector-num 1 --proof-out "$work/c1.proof" \
  > "$work/c1.txt" || fail "single --c1: exit $?"
grep -q '^status:    COMPLETED$' "$work/c1.txt" || fail "single --c1: status"
[ "$(stat -c %s "$work/c1.proof")" -eq 192 ] || fail "single --c1: proof length"
took "single --c1 (key setup of 2.7 M rows + proof)"

# ---- non-interactive PoRep (registered proof 15): a zero sector sealed here under its porep_id,
# 13 partitions challenged from comm_r, the same circuit and key ---------------------------------
"$bench" gen-c1 --registered-proof 15 --seal-cc --miner-id 1000 --sector-id 3 \
  --ticket "$ticket" --seed "$rnd" -o "$work/ni.json" > "$work/gen-ni.txt" || fail "gen-c1 --seal-cc"
grep -q '^c1 StackedDrg2KiBV1_2_Feat_NonInteractivePoRep partitions 13 ' "$work/gen-ni.txt" ||
  fail "gen-c1 --seal-cc: $(cat "$work/gen-ni.txt")"
c1refuse_ni() { # the interactive number for the same C1: its registered proof is named
  local rc=0
  "$bench" -a "$a" --log-level warn single -t porep --c1 "$work/ni.json" \
    --registered-proof 5 --miner-id 1000 --sector-num 3 > "$work/refused.txt" 2>&1 || rc=$?
  [ "$rc" -eq 3 ] && grep -q "INVALID_ARGUMENT.*registered_proof: the request's 5, the C1's 15" \
    "$work/refused.txt" || fail "NI C1 as proof 5: exit $rc: $(cat "$work/refused.txt")"
}
c1refuse_ni
# Its 13 proofs would take CI five minutes more: the first partition is proved and self-checked
# against the non-interactive public inputs (its FIN_TIMING line, logged only after the check
# passed), then the call is dropped and, with daemon.cancel_on_disconnect, the job cancelled.
# The 13 x 192-byte answer is put together as for every partitioned job above.
n0=$(grep -c '^FIN_TIMING' "$work/daemon.log" || true)
"$bench" -a "$a" --log-level warn --timeout 3600 single -t porep --c1 "$work/ni.json" \
  --registered-proof 15 --miner-id 1000 --sector-num 3 > "$work/ni.txt" 2>&1 &
bpid=$!
for _ in $(seq 6000); do
  [ "$(grep -c '^FIN_TIMING' "$work/daemon.log" || true)" -gt "$n0" ] && break
  kill -0 "$bpid" 2>/dev/null || fail "single --c1 (non-interactive) ended: $(cat "$work/ni.txt")"
  sleep 0.1
done
fin=$(grep '^FIN_TIMING' "$work/daemon.log" | tail -n 1)
ni_job=$(sed 's/^FIN_TIMING job=\([^ ]*\) .*/\1/' <<<"$fin")
grep -q ' verify_ms=[0-9]*\.[0-9]*[1-9]' <<<"$fin" || fail "no self-checked NI partition: $fin"
kill "$bpid" 2>/dev/null || true
wait "$bpid" 2>/dev/null || true
for _ in $(seq 600); do
  grep -q "^CUZK_TIMING job=$ni_job .*state=cancelled" "$work/daemon.log" && break
  sleep 0.1
done
grep -q "^CUZK_TIMING job=$ni_job kind=porep circuit=porep-c2-l2-d6-r2 state=cancelled partitions=13 " \
  "$work/daemon.log" || fail "the NI job: $(grep "job=$ni_job" "$work/daemon.log" | tail -n 3)"
took "non-interactive PoRep (a partition of 13, then cancelled)"

"$bench" -a "$a" status > "$work/status.txt" || fail "status"
grep -q '^proofs completed: *8$' "$work/status.txt" || fail "status: 8 proofs completed"
grep -q '^proofs failed: *1$' "$work/status.txt" || fail "status: 1 proof failed"

kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
pid=
[ "$rc" -eq 0 ] || fail "exit status $rc after SIGTERM"
[ ! -e "$work/run/cuzk.sock" ] || fail "socket file left behind"
took "status, SIGTERM"
for k in "$work/cache"/fc-*.zkey; do echo "fc_e2e:   key ${k##*/}: $(stat -c %s "$k") bytes"; done
t=$(now_ms)
printf 'fc_e2e: step times\n%s  %-44s %7d.%d s\n' "$summary" total $(((t - t_start) / 1000)) \
  $(((t - t_start) % 1000 / 100))
rm -rf "$work"
echo "fc_e2e: ok"
