#!/usr/bin/env bash
# The real daemon driven by cuzk-bench: start on a unix socket, wait for the ready line, then
# single, batch, preload, status, metrics, timeline and stages through the bench tool, each output
# checked; SIGTERM, exit status 0 and the socket file gone. At start the daemon removes the
# temporary files of dead writers from its key cache, and only those, and raises its soft limit
# of descriptors to the hard one.
#   bench_e2e.sh CUZK_DAEMON CUZK_BENCH
set -euo pipefail
daemon=$1
bench=$2
work=$(mktemp -d /tmp/cuzk-bench-e2e.XXXXXX)
fail() { echo "bench_e2e: FAIL: $*" >&2; tail -n 20 "$work/daemon.log" >&2 || true; exit 1; }
# --check-config runs the checks of a start: what it accepts starts, what fails to start it
# refuses, with the start's words (exit 2), and the start refuses it the same way (exit 1)
check_refuses() { # EXPECTED-TEXT SETTING...
  local want=$1 rc=0 sets=()
  shift
  for s in "$@"; do sets+=(--set "$s"); done
  "$daemon" -c /dev/null "${sets[@]}" --check-config > "$work/check.txt" 2>&1 || rc=$?
  [ "$rc" -eq 2 ] || fail "--check-config $*: exit $rc, not 2"
  grep -q "$want" "$work/check.txt" || fail "--check-config $*: $(cat "$work/check.txt")"
}
echo "not a key" > "$work/key.pem"
check_refuses "TLS: $work/none.pem: No such file" daemon.tls_cert="$work/none.pem" \
  daemon.tls_key="$work/key.pem"
check_refuses "TLS: $work/key.pem is not a PEM file" daemon.tls_cert="$work/key.pem" \
  daemon.tls_key="$work/key.pem"
check_refuses "snarkjs.dir $work/no-circuits: No such file" snarkjs.dir="$work/no-circuits"
check_refuses "status HTTP: HTTP address nohost.invalid:0" daemon.status_listen=nohost.invalid:0
rc=0
"$daemon" -c /dev/null --set snarkjs.dir="$work/no-circuits" --listen "unix://$work/x.sock" \
  > "$work/start.txt" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q "snarkjs.dir $work/no-circuits: No such file" "$work/start.txt" ||
  fail "a start with a missing snarkjs.dir: exit $rc: $(tail -n 2 "$work/start.txt")"
"$daemon" -c /dev/null --check-config > /dev/null || fail "--check-config of the defaults"

cat > "$work/cuzk.toml" <<CONF
[daemon]
listen = "unix://$work/run/cuzk.sock"
[srs]
param_cache = "$work/cache"
[synthetic]
max_cache_bytes = "1KiB" # each new synthetic key file replaces the others
CONF
# a writer killed mid-write left its temporary file in the cache (a dead pid: a subshell that
# exited); a live writer's (this shell's) is kept
mkdir -p "$work/cache"
dead=$(sh -c 'echo $$')
head -c 1000 /dev/zero > "$work/cache/fc-porep-c18-0123.key.tmp.$dead"
echo x > "$work/cache/synthetic-256.zkey.tmp.$$"
# an empty synthetic key (a disk that filled up, a copy cut short): found corrupt at its load,
# removed and set up again, its job proved
: > "$work/cache/synthetic-512.zkey" # empty
# started with a low soft limit of descriptors (where the hard one is higher): raised at start
low=""
if [ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -gt 512 ]; then low=512; fi
(if [ -n "$low" ]; then ulimit -Sn "$low"; fi; exec "$daemon" -c "$work/cuzk.toml") \
  > "$work/daemon.log" 2>&1 &
pid=$!
trap 'kill -9 "$pid" 2>/dev/null || true' EXIT
for _ in $(seq 600); do
  grep -q 'cuzk-daemon ready, serving on' "$work/daemon.log" && break
  kill -0 "$pid" 2>/dev/null || fail "the daemon exited before it was ready"
  sleep 0.1
done
grep -q 'cuzk-daemon ready, serving on unix://' "$work/daemon.log" || fail "no ready line"
a="unix://$work/run/cuzk.sock"
if [ -n "$low" ]; then
  read -r soft hard < <(awk '/^Max open files/ {print $4, $5}' "/proc/$pid/limits")
  [ "$soft" = "$hard" ] || fail "the descriptors' soft limit $soft was not raised to $hard"
  grep -q "descriptors: soft limit raised from 512 to" "$work/daemon.log" ||
    fail "no line about the raised descriptor limit"
fi
[ ! -e "$work/cache/fc-porep-c18-0123.key.tmp.$dead" ] || fail "a dead writer's temporary file is kept"
grep -q 'removed 1 temporary file(s) of 1000 bytes left by a writer that died' "$work/daemon.log" ||
  fail "no line about the removed temporary file"
[ -e "$work/cache/synthetic-256.zkey.tmp.$$" ] || fail "a live writer's temporary file is removed"
rm -f "$work/cache/synthetic-256.zkey.tmp.$$"
"$bench" -a "$a" single -t synthetic --circuit 512 --seed 3 > "$work/trunc.txt" 2>&1 ||
  fail "a job of a truncated key's size: $(tail -n 3 "$work/trunc.txt")"
grep -q '^status:    COMPLETED$' "$work/trunc.txt" || fail "the truncated key's job status"
grep -q 'synthetic-512.zkey is corrupt: removed' "$work/daemon.log" || fail "no line about the corrupt key"

[ -e "$work/cache/synthetic-512.zkey" ] || fail "the 512 key was not stored again"
"$bench" -a "$a" preload -c synthetic:256 > "$work/preload.txt" || fail "preload"
grep -q 'synthetic:256 loaded in' "$work/preload.txt" || fail "preload output"
# synthetic.max_cache_bytes: storing the 256 key removed the least recently used other file
[ ! -e "$work/cache/synthetic-512.zkey" ] && [ -e "$work/cache/synthetic-256.zkey" ] ||
  fail "the synthetic key cache is not bounded: $(ls "$work/cache")"
grep -q 'synthetic-512.zkey removed (.* bytes, the least recently used)' "$work/daemon.log" ||
  fail "no line about the removed key file"
"$bench" -a "$a" preload -c synthetic:256 | grep -q 'already loaded' || fail "second preload"

"$bench" -a "$a" single -t synthetic --circuit 256x2 --seed 5 --proof-out "$work/p.bin" \
  > "$work/single.txt" || fail "single"
grep -q '^status:    COMPLETED$' "$work/single.txt" || fail "single status"
grep -Eq '^timings:   total=[0-9]+ ms \(queue=[0-9]+ ms, srs=[0-9]+ ms, synth=[0-9]+ ms, gpu=[0-9]+ ms\)$' \
  "$work/single.txt" || fail "single timings line"
[ "$(stat -c %s "$work/p.bin")" -eq 384 ] || fail "2 partitions give 384 proof bytes"

"$bench" -a "$a" batch -t synthetic --circuit 256x2 -c 4 -j 2 > "$work/batch.txt" || fail "batch"
grep -q '^completed:     4$' "$work/batch.txt" || fail "batch completed count"
grep -q '^throughput:' "$work/batch.txt" || fail "batch throughput"

"$bench" -a "$a" status > "$work/status.txt" || fail "status"
grep -q '^proofs completed: *6$' "$work/status.txt" || fail "status counts 6 proofs (the truncated key's one included)"
"$bench" -a "$a" metrics > "$work/metrics.txt" || fail "metrics"
grep -q '^# TYPE' "$work/metrics.txt" || fail "metrics text"

# a bad request: a circuit id the synthetic kind refuses; the daemon keeps serving
if "$bench" -a "$a" single -t synthetic --circuit 256y2 > "$work/bad.txt" 2>&1; then
  fail "a bad circuit id was accepted"
fi
"$bench" -a "$a" single -t synthetic --circuit 256 --seed 1 | grep -q COMPLETED ||
  fail "the daemon stopped serving after a bad request"

kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
trap - EXIT
[ "$rc" -eq 0 ] || fail "exit status $rc after SIGTERM"
[ ! -e "$work/run/cuzk.sock" ] || fail "socket file left behind"
"$bench" timeline "$work/daemon.log" -o "$work/timeline.svg" > "$work/timeline.txt" 2>&1 ||
  fail "timeline"
grep -q '<svg' "$work/timeline.svg" || fail "timeline SVG"
# the stage times of the same log: one GPU_TIMING line per partition, one CUZK_TIMING per job
"$bench" stages "$work/daemon.log" > "$work/stages.txt" 2>&1 || fail "stages"
grep -q '^GPU_TIMING: [1-9][0-9]* lines$' "$work/stages.txt" || fail "stages: GPU_TIMING lines"
grep -q '^CUZK_TIMING: [1-9][0-9]* lines$' "$work/stages.txt" || fail "stages: CUZK_TIMING lines"
"$bench" stages --csv - < "$work/daemon.log" > "$work/stages.csv" || fail "stages --csv"
grep -q '^CUZK_TIMING,total_ms,[1-9][0-9]*,' "$work/stages.csv" || fail "stages CSV"
rm -rf "$work"
echo "bench_e2e: ok"
